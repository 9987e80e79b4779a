${bool([])} ${bool({})} ${bool("")} ${bool(0.0)} ${not empty} ${names and "yes"} ${empty or "fallback"}
