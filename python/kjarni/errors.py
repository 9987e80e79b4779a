"""kjarni's exceptions: one hierarchy, mirroring the C++ library's (``kjarni/error.hpp``).

Every failure inside kjarni reaches Python as one of these, carrying what the C++ exception carries:
the compiler's log for a :class:`CompileError`, the template position for a :class:`RenderError`,
the argument's name for an :class:`ArgumentError`. Where a Python built-in exception says the same
thing, the kjarni class derives from it too (``ArgumentError`` is a ``ValueError``,
``OutOfMemoryError`` a ``MemoryError``, ``NotFoundError`` a ``LookupError``), so code written for
numpy's or grunnur's exceptions keeps working.
"""

import numpy


class Error(Exception):
    """The root of every exception kjarni raises."""


class BackendError(Error):
    """A driver call failed: ``api`` ("CUDA", "OpenCL", "NVRTC"), ``call``, ``code``, ``code_name``."""

    def __init__(self, message, api="", call="", code=0, code_name=""):
        super().__init__(message)
        self.api = api
        self.call = call
        self.code = code
        self.code_name = code_name


class OutOfMemoryError(BackendError, MemoryError):
    """The device (or the host, for page-locked memory) ran out of memory."""


class ApiUnavailableError(Error):
    """An API whose driver library is missing, or that kjarni was built without, was asked for."""


class NotFoundError(Error, LookupError):
    """Discovery found nothing matching the request."""


class UnsupportedError(Error):
    """The request is valid in general, but the device or API at hand cannot do it."""


class PeerError(Error):
    """A peer of a rendezvous did not answer in time, closed its connection or could not be reached,
    or a communicator's collectives failed on some rank or did not finish in time (the communicator
    is then aborted): ``peer`` is the rank at fault (-1 when no one rank is known to be)."""

    def __init__(self, message, peer=-1):
        super().__init__(message)
        self.peer = peer


class CompileError(Error, RuntimeError):
    """A kernel source did not compile: ``log`` (the compiler's), ``options``, ``source``, ``api``,
    ``device``; ``numbered_source`` is the source with the line numbers the log refers to."""

    def __init__(self, message, api="", device="", log="", options=(), source=""):
        super().__init__(message)
        self.api = api
        self.device = device
        self.log = log
        self.options = list(options)
        self.source = source

    @property
    def numbered_source(self):
        lines = self.source.split("\n")
        width = len(str(len(lines)))
        return "\n".join(f"{i + 1:>{width}}: {line}" for i, line in enumerate(lines))


class LinkError(Error, RuntimeError):
    """Separately compiled units did not link (``Program.link``): ``log`` is the linker's, ``api``
    and ``device`` say where (PyCUDA's LinkError is a RuntimeError too)."""

    def __init__(self, message, api="", device="", log=""):
        super().__init__(message)
        self.api = api
        self.device = device
        self.log = log


class ArgumentError(Error, ValueError):
    """An argument is wrong: ``argument`` names it, the message says why (after "argument 'name': ",
    as the C++ library words it)."""

    def __init__(self, message, argument=""):
        if argument and not message.startswith("argument '"):
            message = f"argument '{argument}': {message}"
        super().__init__(message)
        self.argument = argument


class ArgumentTypeError(ArgumentError, TypeError):
    """An argument of a type the call does not take (a TypeError too, as Python's own are): kjarni's
    message in place of the binding layer's list of signatures."""


class AxisError(ArgumentError, numpy.exceptions.AxisError):
    """An axis the array does not have: numpy's AxisError too (so a ValueError and an IndexError), as
    numpy raises for the same call, so that ``except numpy.exceptions.AxisError`` catches it."""

    def __init__(self, message, argument=""):
        # ArgumentError's super().__init__ reaches numpy's AxisError in its one-argument form (the
        # message), which keeps it for str() and leaves .axis and .ndim None; args as Python's.
        ArgumentError.__init__(self, message, argument)
        self.args = (str(self),)


class IndexOutOfBoundsError(ArgumentError, IndexError):
    """An index past the extent it indexes, or more indices than the array has axes (numpy's
    IndexError)."""


class ScalarOverflowError(ArgumentError, OverflowError):
    """An integer scalar that the dtype it is computed in cannot hold (numpy 2's OverflowError for a
    Python int out of bounds, as in ``int8_array + 300``)."""


class DivisionByZeroError(ArgumentError, ZeroDivisionError):
    """An argument that makes numpy divide by zero (weights that sum to zero, an array split into 0
    sections): numpy's ZeroDivisionError."""


class VirtualSizeError(ArgumentError):
    """A static kernel's sizes do not fit the device (grunnur's VirtualSizeError): a local size
    larger than the device or the kernel allows, or a grid too large for the virtual sizes."""


# grunnur's name for a kernel that failed to compile (a RuntimeError there as here).
CompilationError = CompileError


class RenderError(Error):
    """A template failed to compile or render: ``template_name``, the 1-based ``line`` and
    ``column`` in its source, ``message`` (without the position), ``source_line`` and the names of
    the render globals given (``global_names``)."""

    def __init__(self, what, template_name="", line=0, column=0, message="", global_names=(), source_line=""):
        super().__init__(what)
        self.template_name = template_name
        self.line = line
        self.column = column
        self.message = message
        self.global_names = list(global_names)
        self.source_line = source_line


__all__ = [
    "Error", "BackendError", "OutOfMemoryError", "ApiUnavailableError", "NotFoundError",
    "UnsupportedError", "PeerError", "CompileError", "LinkError", "CompilationError", "ArgumentError", "ArgumentTypeError",
    "VirtualSizeError",
    "RenderError",
]
