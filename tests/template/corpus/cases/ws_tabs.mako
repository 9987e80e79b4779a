	int a;
	% for i in range(2):
	int b${i};
	% endfor
