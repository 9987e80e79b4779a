typedef struct {
% for i, nm in enumerate(names):
    ${ctype} ${nm}; // offset ${i * 4}
% endfor
} point${len(names)};
