"""BLAS on Arrays (cuBLAS on CUDA, CLBlast on OpenCL), enqueued on the caller's queue: ``dot``,
``gemv``, ``gemm``, ``ger``, ``gemm_batched``. Ops are 'N', 'T' or 'C' (conjugate transpose)."""

from . import _kjarni
from ._algorithms import _on_queue

dot = _on_queue(_kjarni.blas.dot)
gemv = _on_queue(_kjarni.blas.gemv)
gemm = _on_queue(_kjarni.blas.gemm)
ger = _on_queue(_kjarni.blas.ger)
gemm_batched = _on_queue(_kjarni.blas.gemm_batched)
