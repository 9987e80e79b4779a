{
    % for i in range(2):
    x[${i}] = 0;
    % endfor
}
