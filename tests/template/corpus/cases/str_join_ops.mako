${"-".join(names)} ${"ab" * 3} ${"x" + "y"} ${"b" in "abc"}
