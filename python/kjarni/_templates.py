"""Templates from Python callables (grunnur's ``from_callable`` constructors).

A callable's parameter names become the def's arguments, and the text it returns, called with
those names, becomes the def's body: ``lambda varname: "${varname} + ${num}"``.
"""

import inspect

from . import _kjarni

DefTemplate = _kjarni.DefTemplate
Snippet = _kjarni.Snippet
Module = _kjarni.Module
Template = _kjarni.Template


def _argnames(callable_obj):
    return list(inspect.signature(callable_obj).parameters)


def _def_from_callable(cls, name, callable_obj):
    """A def named ``name`` whose parameters are the callable's (defaults included) and whose body is
    the text the callable returns; as in grunnur, the callable is called with None for each."""
    signature = inspect.signature(callable_obj)
    body = callable_obj(*[None] * len(signature.parameters))
    if all(p.default is inspect.Parameter.empty for p in signature.parameters.values()):
        return DefTemplate.from_string(name, list(signature.parameters), body)
    params = str(signature)[1:-1]
    return Template.from_string(f"<%def name='{name}({params})'>\n{body}\n</%def>").get_def(name)


def _snippet_from_callable(cls, callable_obj, name="_snippet", render_globals=None):
    return Snippet(_def_from_callable(DefTemplate, name, callable_obj), render_globals)


def _module_from_callable(cls, callable_obj, name="_module", render_globals=None):
    names = _argnames(callable_obj)
    if not names:
        raise _kjarni_errors().ArgumentError("a module's callable takes the prefix as its first parameter",
                                             "callable_obj")
    return Module(_def_from_callable(DefTemplate, name, callable_obj), render_globals)


def _kjarni_errors():
    from . import errors
    return errors


def to_template_source(template_src):
    """What Program and StaticKernel take: a string, a DefTemplate, a Snippet, or a callable."""
    if isinstance(template_src, (str, DefTemplate, Snippet)):
        return template_src
    if callable(template_src):
        return _def_from_callable(DefTemplate, "_main", template_src)
    raise _kjarni_errors().ArgumentError(
        "must be a string, a DefTemplate, a Snippet or a callable returning template text", "template_src")


DefTemplate.from_callable = classmethod(_def_from_callable)
Snippet.from_callable = classmethod(_snippet_from_callable)
Module.from_callable = classmethod(_module_from_callable)


# grunnur's DefTemplate.source is the whole def, <%def name='f(a, b)'>...</%def>, for a def made by
# from_string as for one taken from a Template; the binding keeps a from_string def's body alone
# (between the newlines that open and close it).
_binding_source = DefTemplate.source


def _def_source(self):
    """The def's source as grunnur gives it: ``<%def name='f(a, b)'>\\n${a}\\n</%def>``."""
    source = _binding_source.__get__(self)
    if source.lstrip().startswith("<%def"):
        return source
    return f"<%def name='{self.name}({', '.join(self.argnames)})'>{source}</%def>"


DefTemplate.source = property(_def_source, doc=_def_source.__doc__)
