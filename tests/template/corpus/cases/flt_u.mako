${"a b&c/d?é" | u}
