"""Single-threaded BLAS for TensorE-sized matmuls.

An nc_matmul is at most [128, 128] x [128, 512] (8M multiply-adds): numpy's multi-threaded OpenBLAS
spends longer waking and synchronising its threads than computing, and on a loaded machine it thrashes
(measured here: 57 ms per call instead of 1.7 ms single-threaded). ``matmul`` limits OpenBLAS to one
thread for the call only and restores the previous count. When numpy's OpenBLAS cannot be found the
plain ``@`` runs.
"""
from __future__ import annotations

import ctypes
import glob
import os

import numpy as np

from . import native_outer as _native

_get = _set = None


def _load() -> None:
    global _get, _set
    libs = os.path.join(os.path.dirname(os.path.dirname(np.__file__)), "numpy.libs")
    for path in glob.glob(os.path.join(libs, "*openblas*.so*")):
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for suffix in ("64_", "_64_", ""):
            g = getattr(lib, f"scipy_openblas_get_num_threads{suffix}", None)
            s = getattr(lib, f"scipy_openblas_set_num_threads{suffix}", None)
            if g is not None and s is not None:
                g.restype, s.argtypes = ctypes.c_int, [ctypes.c_int]
                _get, _set = g, s
                return


try:
    _load()
except Exception:       # never let an unusual numpy build break the simulator
    _get = _set = None


#: Multiply-adds (M * K * N) below which OpenBLAS runs every routine numpy calls for ``@`` (gemm, syrk,
#: gemv, dot) on one thread whatever the thread setting: gemv threads from 2304 * GEMM_MULTITHREAD_THRESHOLD
#: (>= 1) matrix elements, the others from more. Setting and restoring the count (~0.5 us) would only add
#: to such a call; the result never depends on it.
SINGLE_THREAD_WORK = 2304


_F32 = np.dtype(np.float32)
_ZERO = np.float32(0.0)


def _outer(a: np.ndarray, b: np.ndarray, out: np.ndarray | None) -> np.ndarray:
    """``a @ b`` for float32 a [M, 1], b [1, N] as numpy computes it. numpy's matmul takes its scalar loop
    for a contraction of 1 (each element: ``out = 0; out += a * b``): the broadcast product plus zero is
    the same two IEEE operations per element (the zero turns a -0 product into +0, as the loop does) on
    whole arrays, about 10x fewer instructions. Both run on a new contiguous array laid out so that numpy's
    inner loop is the longer of M and N (a [128, 1] x [1, 16] product as 16 rows of 128, not 128 rows of
    16: each row costs a loop call), then one copy goes to ``out``: a strided ``out`` (PSUM rows lie a
    partition apart, each a cache line and a page of its own) is passed over once. The operands' order
    in each multiplication does not matter: a NaN operand gives that NaN whichever side it is on, and
    ``matmul`` keeps the case of a NaN on both sides away from here."""
    if a.shape[0] > b.shape[1]:
        r = np.multiply(b.T, a.T)       # [N, M]: the transposed product
        np.add(r, _ZERO, out=r)
        r = r.T
    else:
        r = np.multiply(a, b)
        np.add(r, _ZERO, out=r)
    if out is None:
        return r
    np.copyto(out, r)
    return out


_max = np.maximum.reduce


def _has_nan(x: np.ndarray) -> bool:
    """``np.isnan(x).any()`` for a non-empty float array: np.maximum propagates a NaN and makes none, so
    the maximum is a NaN exactly when some element is (one C call, no boolean temporary)."""
    m = _max(x, axis=None)
    return m != m


def matmul(a: np.ndarray, b: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """``a @ b`` on one BLAS thread (2-D operands); ``out``: numpy's matmul ``out=`` (written in place)."""
    if a.shape[1] == 1 and a.dtype == _F32 and b.dtype == _F32 and a.size and b.size:
        # the C loop (native_outer) when it covers the case, numpy's _outer the reference
        o = np.empty((a.shape[0], b.shape[1]), _F32) if out is None else out
        if _native.outer(a, b, o):
            return o
        # (when both hold a NaN, which payload the product keeps depends on the compiled operand order of
        # numpy's loop: matmul itself then)
        if not (_has_nan(b) and _has_nan(a)):
            return _outer(a, b, out)
    if _set is None or a.shape[0] * a.shape[1] * b.shape[1] < SINGLE_THREAD_WORK:
        return np.matmul(a, b, out=out)
    before = _get()
    if before == 1:
        return np.matmul(a, b, out=out)
    _set(1)
    try:
        return np.matmul(a, b, out=out)
    finally:
        _set(before)
