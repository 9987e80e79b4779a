## comment
%% literal
line \
continued ${[1, 2.5, "s", None, (1,), {"k": 1}]} ${d["a"] + len(xs)} ${xs[1:]} ${2**10 // 3 % 7}
