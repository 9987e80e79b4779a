"""Renders every template of the corpus (tests/template/corpus/cases/*.mako) with Mako itself, as
grunnur makes its templates (strict_undefined=True), with the globals below and a lookup on
corpus/lib for <%namespace>, <%include> and <%inherit>. Writes CASE.txt into the folder given; a
template Mako refuses gives `MAKO-ERROR <exception type>` (kjarni must refuse it too).

The globals must stay equal to those of corpus_test.cpp."""

import sys
from pathlib import Path

from mako.lookup import TemplateLookup
from mako.template import Template

corpus = Path(__file__).resolve().parent.parent / "corpus"


def twice(s):
    return s + s


def globals_():
    return dict(
        n=4,
        names=["x", "y", "z"],
        ctype="float",
        scale=0.5,
        flag=True,
        empty=[],
        text="h\u00e9llo w\u00f6rld",
        mapping={"b": 2, "a": 1, "c": 3},
        pairs=[("i", 1), ("j", 2)],
        big=2**40,
        twice=twice,
    )


def main():
    out_dir = Path(sys.argv[1])
    out_dir.mkdir(parents=True, exist_ok=True)
    lookup = TemplateLookup(directories=[str(corpus / "lib")], strict_undefined=True)
    for case in sorted((corpus / "cases").glob("*.mako")):
        # Bytes, not read_text: text mode would turn the cases' "\r\n" into "\n" before Mako sees it.
        source = case.read_bytes().decode("utf-8")
        try:
            text = Template(source, strict_undefined=True, lookup=lookup).render(**globals_())
        except Exception as e:  # noqa: BLE001 -- any refusal of Mako's is the expected result
            text = f"MAKO-ERROR {type(e).__name__}\n"
        (out_dir / (case.stem + ".txt")).write_bytes(text.encode("utf-8"))


if __name__ == "__main__":
    main()
