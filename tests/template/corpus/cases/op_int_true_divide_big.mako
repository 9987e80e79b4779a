## int / int rounds the exact quotient once, as Python: quotients near the largest float from
## integers beyond it, subnormal quotients (rounded to 2^-1074, half to even), signed zeros.
${int(1.7976931348623157e308) / -1} ${int(1.7976931348623157e308) * 3 / 3} ${(2 ** 1024 - 2 ** 971 - 1) / 1} ${(2 ** 1024 - 2 ** 970 - 1) / 1}
${(10 ** 400 + 1) / 10 ** 380} ${7 ** 300 / 3 ** 500} ${1 / 2 ** 1074} ${1 / 2 ** 1075} ${3 / 2 ** 1076}
${1 / 3 ** 700} ${(2 ** 60 + 1) / 2 ** 1130} ${(2 ** 53 + 1) * 2 ** 200 / 2 ** 200} ${0 / -(2 ** 70)} ${-(2 ** 70) / 2 ** 71}
${[(10 ** 30 + k) / (3 * 10 ** 12 + k) for k in range(5)]}
${[(2 ** 1074 * k + 1) / 2 ** 2148 for k in range(1, 6)]}
