"""Random templates with Windows (CRLF), Unix (LF) and lone CR line ends, rendered by Mako itself
(issue 43, item 4: text with CRLF line ends renders exactly as Mako renders it). Writes
FOLDER/cases.txt, one case a line: the template's bytes in hex, a tab, and Mako's output in hex,
or `MAKO-ERROR <exception type>` where Mako refuses the template (kjarni must refuse it too).
line_ends_test.cpp renders every case with kjarni and compares byte for byte.

The templates mix text (with blanks, `%%` lines, `\\` line continuations, `##` comments),
`${...}` (triple-quoted strings that span a line end among them), control lines (if / else / for)
nested, `<% %>` blocks on one line or several, and `<%def>`s called later. The globals must stay
equal to those of line_ends_test.cpp."""

import random
import sys
from pathlib import Path

from mako.template import Template

out_dir = Path(sys.argv[1])
rng = random.Random(4343)
GLOBALS = dict(n=3, flag=True, names=["x", "y"])
WORDS = ["a", "kernel", "x = 1;", "  ", "\t", "float y", "{", "}", "a%", "#", "\\n", "$ ", "< ", ">"]


def eol(lone_cr):
    r = rng.random()
    if lone_cr and r < 0.15:
        return "\r"
    return "\r\n" if r < 0.65 else "\n"


def text_line():
    parts = [rng.choice(WORDS) for _ in range(rng.randint(0, 4))]
    r = rng.random()
    if r < 0.3:
        parts.insert(rng.randint(0, len(parts)), rng.choice(["${n}", "${n * 2}", "${names[0]}", "${'q'}"]))
    line = "".join(parts)
    r = rng.random()
    if r < 0.08:
        line = rng.choice(["", " ", "\t"]) + "%%" + line
    elif r < 0.16:
        line += "\\"  # joins the next line
    elif r < 0.22:
        line += rng.choice([" ", "\t", "  "])
    return [line]


def block(depth, lone_cr, defs):
    lines = []
    for _ in range(rng.randint(1, 4)):
        r = rng.random()
        if r < 0.35 or depth > 2:
            lines += text_line()
        elif r < 0.45:
            lines.append(rng.choice(["", " ", "  "]) + "## a comment" + rng.choice(["", " "]))
        elif r < 0.58:
            lines.append(rng.choice(["", "  "]) + "% if flag:" + rng.choice(["", " "]))
            lines += block(depth + 1, lone_cr, defs)
            if rng.random() < 0.5:
                lines.append("% else:")
                lines += block(depth + 1, lone_cr, defs)
            lines.append(rng.choice(["", "  "]) + "% endif" + rng.choice(["", "  "]))
        elif r < 0.68:
            lines.append("% for i in range(2):")
            lines += block(depth + 1, lone_cr, defs) + ["${i}" + rng.choice(["", "\\"])]
            lines.append("% endfor")
        elif r < 0.76:
            if rng.random() < 0.5:
                lines.append("<% v = n + 1 %>" + rng.choice(["", "${v}", " tail"]))
            else:
                lines += ["<%", "w = n * 2", "if flag:", "    w += 1", "%>" + rng.choice(["", "${w}"])]
        elif r < 0.84:
            lines += ['${repr("""p', 'q""")}' + rng.choice(["", " t"])]
        elif r < 0.92 and depth == 0:
            name = f"f{len(defs)}"
            lines.append(f'<%def name="{name}(a)">' + rng.choice(["", "[${a}]"]))
            lines += block(depth + 1, lone_cr, defs)
            lines.append("</%def>" + rng.choice(["", " after"]))
            defs.append(name)  # after its body: a def that calls itself would never end
        elif defs:
            lines.append(rng.choice(["", "call: "]) + f"${{{rng.choice(defs)}({rng.randint(0, 9)})}}")
        else:
            lines += text_line()
    return lines


def template(lone_cr):
    lines = block(0, lone_cr, [])
    text = "".join(line + eol(lone_cr) for line in lines)
    return text if rng.random() < 0.7 else text.rstrip("\r\n")


cases = []
for k in range(400):
    source = template(lone_cr=k >= 300)
    try:
        result = Template(source, strict_undefined=True).render(**GLOBALS).encode("utf-8").hex()
    except Exception as e:  # noqa: BLE001 -- any refusal of Mako's is the expected result
        result = f"MAKO-ERROR {type(e).__name__}"
    cases.append(source.encode("utf-8").hex() + "\t" + result)
out_dir.mkdir(parents=True, exist_ok=True)
(out_dir / "cases.txt").write_text("\n".join(cases) + "\n", encoding="ascii")
