"""Templates given to a lookup as text (Mako's TemplateLookup.put_string), alone and beside the
corpus's directory (corpus/lib), rendered by Mako itself (issue 43, item 4: Mako's lookup over
directories and embedded templates). Writes FOLDER/cases.txt, tab-separated lines:

    put <TAB> lookup <TAB> uri <TAB> text (hex)       a template given to lookup `strings` or `mixed`
    render <TAB> lookup <TAB> uri <TAB> output (hex)  what Mako renders for get_template(uri)

or `MAKO-ERROR <type>` for the output where Mako refuses. lookup_test.cpp (EmbeddedTemplates)
makes the same lookups, puts the same texts and compares. The globals are those of the corpus."""

import sys
from pathlib import Path

from mako.lookup import TemplateLookup

corpus = Path(__file__).resolve().parent.parent / "corpus"
out_dir = Path(sys.argv[1])
GLOBALS = dict(n=4, ctype="float", names=["x", "y", "z"])

# URIs start with '/', as Mako's own examples of put_string write them: Mako looks a put_string
# template up by the exact string its tag's URI adjusts to ("/pages/x.mako" relative to
# "/pages/page.mako"), where kjarni normalises every URI (docs: so kjarni also finds
# "/pages/../lib/x.mako" and "lib/x.mako", which Mako does not).
TEMPLATES = {
    "strings": {
        "/lib/helpers.mako": '<%def name="decl(t, nm)">${t} ${nm};</%def>\n'
                             '<%def name="greet(who)">hello ${who}</%def>\n',
        "/lib/footer.mako": '<%page args="x=1"/>footer ${x} of ${n}\n',
        "/layout.mako": "<html>\n${self.title()}\n${next.body()}\n"
                        '<%include file="lib/footer.mako" args="x=2"/></html>\n'
                        '<%def name="title()">untitled</%def>\n',
        "/pages/page.mako": '<%inherit file="/layout.mako"/>\n'
                            '<%namespace name="h" file="/lib/helpers.mako"/>\n'
                            '<%namespace name="local_h" file="more/local.mako"/>\n'
                            '<%def name="title()">page ${n}</%def>\n'
                            "% for nm in names:\n${h.decl(ctype, nm)}\n% endfor\n"
                            '${h.greet("you")} ${local_h.twice("ab")}\n',
        "/pages/more/local.mako": '<%def name="twice(s)">${s}${s}</%def>',
        "/pages/plain.mako": '<%namespace file="/lib/helpers.mako" import="greet"/>\n'
                             '${greet("me")} <%include file="/lib/footer.mako"/>',
        "/pages/missing.mako": '<%include file="nowhere.mako"/>\n',
        "/pages/leaves.mako": '<%include file="../../outside.mako"/>\n',
    },
    "mixed": {
        # Beside corpus/lib: an embedded template uses the directory's files, and shadows one.
        "/main.mako": '<%namespace name="u" file="util.mako"/>\n'
                      '<%include file="common.mako"/>\n'
                      '${u.decl(ctype, "v")} ${u.twice_str("ab")}\n',
        "/common.mako": "// embedded common, n = ${n}\n",
        "/sub/uses_file.mako": '<%include file="leaf.mako"/>\n',
    },
}
RENDERS = {
    "strings": ["/pages/page.mako", "/pages/plain.mako", "/layout.mako", "/lib/footer.mako",
                "/pages/missing.mako", "/pages/leaves.mako", "/nothing.mako"],
    "mixed": ["/main.mako", "/common.mako", "/sub/uses_file.mako", "/util.mako", "/base.mako"],
}

lines = []
lookups = {
    "strings": TemplateLookup(strict_undefined=True),
    "mixed": TemplateLookup(directories=[str(corpus / "lib")], strict_undefined=True),
}
for name, lookup in lookups.items():
    for uri, text in TEMPLATES[name].items():
        lookup.put_string(uri, text)
        lines.append("\t".join(["put", name, uri, text.encode("utf-8").hex()]))
    for uri in RENDERS[name]:
        try:
            out = lookup.get_template(uri).render(**GLOBALS).encode("utf-8").hex()
        except Exception as e:  # noqa: BLE001 -- any refusal of Mako's is the expected result
            out = f"MAKO-ERROR {type(e).__name__}"
        lines.append("\t".join(["render", name, uri, out]))
out_dir.mkdir(parents=True, exist_ok=True)
(out_dir / "cases.txt").write_text("\n".join(lines) + "\n", encoding="ascii")
