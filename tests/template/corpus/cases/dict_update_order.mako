<% d = dict(mapping); d["a"] = 9; d["new"] = 0 %>${d}
