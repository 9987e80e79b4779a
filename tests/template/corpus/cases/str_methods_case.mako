${text.upper()} ${"ABC".lower()} ${"hello world".title()} ${"hello".capitalize()} ${"AbC".swapcase()}
