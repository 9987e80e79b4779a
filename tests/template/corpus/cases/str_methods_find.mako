${"hello".find("l")} ${"hello".rfind("l")} ${"hello".find("z")} ${"hello".index("e")} ${"hello".count("l")}
