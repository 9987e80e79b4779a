% for k, v in d.items():
${k}=${v}, ${", ".join(str(i) for i in xs) if 0 else sorted(xs)} ${min(xs)} ${max(1, 2)} ${abs(-3)} ${zip(xs, xs)} ${enumerate(xs)} ${int("12")} ${float(1)} ${str(mod) + "x"}
% endfor
