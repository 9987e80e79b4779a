${"x".join([])}|${"".join(reversed("abc"))}
