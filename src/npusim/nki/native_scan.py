"""An optional native ``tensor_tensor_scan`` loop (native/scan.c) for add / subtract / multiply pairs.

numpy (isa_vector.py) stays the reference: the C loop runs only when a C compiler is available and
``NPUSIM_NATIVE`` is not ``0``, for the op pairs whose float32 semantics it reproduces bit for bit, and
its result is used only when no step gave a NaN (NaN payloads are numpy's business). Built once per
source, compiler, flags and CPU into the npusim cache folder with -ffp-contract=off -fno-fast-math; a
build or load failure disables it with one warning. The scan of a (128, 16) tile is ~32 ufunc calls in
numpy, one call here.
"""
from __future__ import annotations

import ctypes
import os
import warnings

import numpy as np

from ..core import native_build

SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "native", "scan.c")
FLAGS = ["-std=gnu99", "-O2", "-ftree-vectorize", "-ffp-contract=off", "-fno-fast-math", "-fPIC", "-shared"]
ARCH = ["-march=native"]            # tried first; the cache key holds the CPU's flags

#: the ALU ops the C loop computes, by AluOp name -> its op code in scan.c
OP_CODES = {"add": 0, "subtract": 1, "multiply": 2}

_LIB: list = []                     # [the kernel function or None] once decided
_P, _L, _I = ctypes.c_void_p, ctypes.c_long, ctypes.c_int


def _load():
    path, why = native_build.build_library("nki_native", SOURCE, [FLAGS + ARCH, FLAGS])
    if path is None:
        if "no C compiler" not in why:
            warnings.warn(f"npusim.nki: native scan.c does not build, using numpy: {why[:500]}", RuntimeWarning)
        return None
    try:
        fn = ctypes.CDLL(path).nki_tensor_tensor_scan
    except (OSError, AttributeError) as e:
        warnings.warn(f"npusim.nki: cannot load {path} ({e}), using numpy", RuntimeWarning)
        return None
    fn.argtypes = [_P, _L, _P, _L, _P, _P, _L, _L, _I, _I, _I, _I]
    fn.restype = _I
    return fn


def kernel():
    """The C function, or None (``NPUSIM_NATIVE=0``, no compiler, or it does not build)."""
    if os.environ.get("NPUSIM_NATIVE", "1") == "0":
        return None
    if not _LIB:
        _LIB.append(_load())
    return _LIB[0]


#: id(a memory's array) -> (that array, its address). A view's rows start at its memory's address plus
#: its byte offset: no ctypes object per call (``x.ctypes.data`` builds one, ~0.8 us). The entry holds
#: the array, so its id is not reused while the entry exists.
_BASES: dict = {}


def _base(buf: np.ndarray) -> int:
    e = _BASES.get(id(buf))
    if e is None:
        if len(_BASES) > 64:
            _BASES.clear()
        e = _BASES[id(buf)] = (buf, buf.ctypes.data)
    return e[1]


def _rows(x: np.ndarray, view=None) -> tuple[np.ndarray, int, int]:
    """``x`` (2-D float32) with unit column stride, its address and its row stride in floats. ``view``: a
    core TensorView whose ``array()`` ``x`` is (its address is then its memory's plus its offset), or
    None."""
    s0, s1 = x.strides
    if s1 != 4 or s0 % 4 or s0 < 0:
        x = np.ascontiguousarray(x)
        return x, x.ctypes.data, x.strides[0] // 4
    if view is not None and x is view.array():
        return x, _base(view.memory.data) + view.offset, s0 // 4
    return x, x.ctypes.data, s0 // 4


def scan(fn, x0: np.ndarray, x1: np.ndarray, init, op0: int, op1: int, reverse0: bool,
         reverse1: bool, view0=None, view1=None) -> np.ndarray | None:
    """The (P, N) float32 scan of float32 ``x0``, ``x1`` (P, N) from ``init`` (a float32 scalar or (P,)
    values), or None when some step gave a NaN (the caller recomputes with numpy). ``fn`` is ``kernel()``;
    op codes from ``OP_CODES``; ``view0`` / ``view1``: the TensorViews ``x0`` / ``x1`` are the arrays of,
    when they are (see ``_rows``)."""
    p, n = x0.shape
    x0, a0, s0 = _rows(x0, view0)
    x1, a1, s1 = _rows(x1, view1)
    # the initial column and the result in one buffer: one address to ask numpy for (~0.8 us each)
    buf = np.empty(p + p * n, np.float32)
    buf[:p] = init
    at = buf.ctypes.data
    if fn(a0, s0, a1, s1, at, at + 4 * p, p, n, op0, op1, bool(reverse0), bool(reverse1)):
        return None
    return buf[p:].reshape(p, n)
