<% xs = [3, 1, 2]; xs.sort(); ys = xs + [9]; zs = ys.copy(); zs.reverse() %>${xs} ${ys} ${zs} ${ys.index(9)} ${ys.count(1)}
