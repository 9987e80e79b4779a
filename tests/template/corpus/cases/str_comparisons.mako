${"a" < "b"} ${"abc" == "abc"} ${"B" < "a"} ${sorted(["b", "C", "a"])}
