"""kjarni's message for a call that matches none of a binding's signatures.

The binding layer (nanobind) raises a TypeError listing every C++ signature with its mangled
types ("incompatible function arguments. The following argument types are supported: ...").
Every function and method of kjarni._kjarni is wrapped here, once at import, so that such a call
raises kjarni.errors.ArgumentTypeError (a TypeError and a kjarni ArgumentError) saying which call
it was, what it was given and the forms it takes, in the package's names. A wrapper costs one
Python call frame; the launch paths (kernels' ``__call__``) take ``*args`` and cannot fail to
match, so they are left as they are."""

import functools
import re

from . import _kjarni
from .errors import ArgumentTypeError

_MARK = "incompatible function arguments"
_QUALIFIED = re.compile(r"\bkjarni\._kjarni\.(?:_functions\.)?")


def _type_name(value):
    t = type(value)
    return t.__name__ if t.__module__ in ("builtins", "kjarni._kjarni") else f"{t.__module__}.{t.__qualname__}"


def _forms(message):
    """The numbered signatures of nanobind's message, in kjarni's names, without the return types."""
    forms = []
    for line in message.splitlines():
        m = re.match(r"\s*\d+\.\s*(.*)", line)
        if m:
            form = _QUALIFIED.sub("", m.group(1))
            forms.append(re.sub(r"\s*->\s*[^,()]*$", "", form).replace("self, ", "").replace("(self)", "()"))
    return forms


def _public(name):
    return name.lstrip("_") if not name.startswith("__") else name


def _explain(qualname, error, args, kwargs):
    given = [_type_name(a) for a in args] + [f"{k}={_type_name(v)}" for k, v in kwargs.items()]
    forms = _forms(str(error))
    text = f"{qualname}() cannot take ({', '.join(given)})"
    if forms:
        text += ": it takes " + " or ".join(_public(f) for f in forms)
    return ArgumentTypeError(text)


def _wrap(f, qualname):
    @functools.wraps(f)
    def call(*args, **kwargs):
        try:
            return f(*args, **kwargs)
        except TypeError as e:
            if type(e) is TypeError and _MARK in str(e):
                raise _explain(qualname, e, args, kwargs) from None
            raise
    call.kjarni_qualname = qualname
    return call


def unwrap(f):
    """(the binding, its name in messages) of a function wrapped here: a Python function that calls
    the binding itself saves the wrapper's call frame, and gives `mismatch` the name."""
    return getattr(f, "__wrapped__", f), getattr(f, "kjarni_qualname", getattr(f, "__name__", "?"))


def mismatch(error, qualname, args, kwargs):
    """kjarni's ArgumentTypeError for `error` when it is the binding's "incompatible function
    arguments", else None (the error is then the call's own)."""
    if type(error) is TypeError and _MARK in str(error):
        return _explain(qualname, error, args, kwargs)
    return None


def _is_binding(obj):
    return type(obj).__name__ in ("nb_func", "nb_method")


# Dunders other than __init__ are operators and protocols: nanobind answers NotImplemented for
# operands it does not take (Python then tries the other side), and the kernels' __call__ is the
# launch path.
_KEEP = {"__call__"}


def wrap_module(module, prefix=""):
    for name, obj in list(vars(module).items()):
        if _is_binding(obj):
            setattr(module, name, _wrap(obj, prefix + _public(name)))
        elif isinstance(obj, type) and obj.__module__ == _kjarni.__name__:
            _wrap_class(obj)
        elif type(obj) is type(module) and obj.__name__.startswith(_kjarni.__name__ + "."):
            wrap_module(obj, prefix + _public(name) + ".")


def _wrap_class(cls):
    for name, obj in list(vars(cls).items()):
        if not _is_binding(obj) or name in _KEEP or (name.startswith("__") and name != "__init__"):
            continue
        # (__init__ too: Python subclasses such as Program call it; a direct call of a nanobind
        # class goes through the type's vectorcall, where refuse_other_constructors answers.)
        wrapped = _wrap(obj, f"{cls.__name__}.{_public(name)}" if name != "__init__" else cls.__name__)
        # nanobind's static methods are plain functions in the class (nb_func), its methods bind
        # to the instance (nb_method): the wrapper must keep the difference.
        setattr(cls, name, staticmethod(wrapped) if type(obj).__name__ == "nb_func" else wrapped)


def refuse_construction(cls, args, kwargs):
    """Raises kjarni's message for a constructor call of ``cls`` that matched none of its forms (the
    C++ side's last constructor calls this: python/src/bindings.hpp, refuse_other_constructors)."""
    init = vars(cls).get("__init__")
    init = getattr(init, "__wrapped__", init)
    forms = [sig for sig, *_ in getattr(init, "__nb_signature__", ()) if "*args" not in sig]
    given = [_type_name(a) for a in args] + [f"{k}={_type_name(v)}" for k, v in kwargs.items()]
    text = f"{cls.__name__}() cannot take ({', '.join(given)})"
    if forms:
        cleaned = [re.sub(r"^def __init__\(self,? ?", f"{cls.__name__}(", _QUALIFIED.sub("", f)) for f in forms]
        text += ": it takes " + " or ".join(re.sub(r"\s*->\s*None$", "", c) for c in cleaned)
    raise ArgumentTypeError(text)
