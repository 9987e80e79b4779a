<%
    codes = list(range(0xA0, 0x180)) + list(range(0x391, 0x3A2)) + list(range(0x3A4, 0x3AA)) + list(range(0x3B1, 0x3CA)) + list(range(0x400, 0x460))
    s = "".join(chr(c) for c in codes)
%>${s.upper()}
${s.lower()}
${text.upper()} ${"ΑΒΓ ДЖЯ Ÿ".lower()} ${"straße".upper()} ${len("straße".upper())} ${"漢字 한글 — x".upper()}
