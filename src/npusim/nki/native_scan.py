"""An optional native ``tensor_tensor_scan`` (native/scan.c, a CPython extension) for add / subtract /
multiply pairs.

numpy (isa_vector.py) stays the reference and the fallback: the C loop runs only when a C compiler is
available and ``NPUSIM_NATIVE`` is not ``0`` (read on first use, or after ``reset()``), for the op pairs
whose float32 semantics it reproduces bit for bit, and its result is used only when no step gave a NaN
(NaN payloads are numpy's business). ``scan_into`` writes the result straight into the caller's output
view (dst's array): no result array, no second copy. Built once per source, compiler, flags, CPU, Python
ABI and numpy version into the npusim cache folder with -ffp-contract=off -fno-fast-math; a build or load
failure disables it with one warning. The scan of a (128, 16) tile is ~32 ufunc calls in numpy, one call
here.
"""
from __future__ import annotations

import os
import sysconfig
import warnings

import numpy as np

from ..core import native_build

SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "native", "scan.c")
MODULE = "npusim.nki._native_scan"      # scan.c's PyInit__native_scan

#: the ALU ops the C loop computes, by AluOp name -> its op code in scan.c
OP_CODES = {"add": 0, "subtract": 1, "multiply": 2}


def _flags() -> list[str]:
    # the Python ABI and numpy's version as a define: part of the cache key, unused by the source
    abi = f"{sysconfig.get_config_var('SOABI')}-numpy{np.__version__}".replace('"', "")
    # (-fvect-cost-model=dynamic: -O2's very-cheap model leaves the short row loops scalar; vector lanes run
    # the same IEEE operations, and no float reduction is reassociated without -ffast-math)
    return ["-std=gnu99", "-O2", "-ftree-vectorize", "-fvect-cost-model=dynamic", "-ffp-contract=off",
            "-fno-fast-math", "-fPIC", "-shared", f"-I{sysconfig.get_paths()['include']}", f"-I{np.get_include()}", f'-DNPUSIM_BUILT_FOR="{abi}"']


def _load():
    """The extension's scan function, or None (with a warning when a compiler exists but the build fails)."""
    path, why = native_build.build_library("nki_native", SOURCE, [_flags()])
    if path is None:
        if "no C compiler" not in why:
            warnings.warn(f"npusim.nki: native scan.c does not build, using numpy: {why[:500]}", RuntimeWarning)
        return None
    try:
        return native_build.load_extension(MODULE, path).scan
    except (ImportError, OSError, AttributeError) as e:
        warnings.warn(f"npusim.nki: cannot load {path} ({e}), using numpy", RuntimeWarning)
        return None


_DECIDED: list = []                 # [the C function or None] once decided


def kernel():
    """The C function ``scan(x0, x1, init, out, op0, op1, reverse0, reverse1) -> bool``, or None
    (``NPUSIM_NATIVE=0`` when first asked, no compiler, or it does not build)."""
    if not _DECIDED:
        _DECIDED.append(None if os.environ.get("NPUSIM_NATIVE", "1") == "0" else _load())
    return _DECIDED[0]


def reset() -> None:
    """Decide again on next use (re-reads ``NPUSIM_NATIVE``): for tests that switch the native path."""
    _DECIDED.clear()


def scan(fn, x0: np.ndarray, x1: np.ndarray, init, op0: int, op1: int, reverse0: bool,
         reverse1: bool) -> np.ndarray | None:
    """The (P, N) float32 scan of float32 ``x0``, ``x1`` (P, N) from ``init`` (a float32 scalar or (P,)
    values) as a new array, or None when some step gave a NaN (numpy decides). ``fn`` is ``kernel()``."""
    out = np.empty(x0.shape, np.float32)
    return out if fn(x0, x1, np.asarray(init, np.float32).reshape(-1), out, op0, op1, reverse0, reverse1) else None
