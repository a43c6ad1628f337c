"""Optional native whole-tile ops (native/elementwise.c): float32 add / subtract / multiply, same-dtype
copies and fills on 1-D / 2-D strided ndarrays, for the hot paths of tensor_tensor, tensor_copy and memset,
and activation's ``data * scale + bias`` step.

numpy stays the reference and the fallback. Each function returns True when it did the whole op and
False when the caller must run numpy (a case the C code does not cover exactly: another dtype or op,
shapes that differ, 3-D, misaligned, an output overlapping an input other than exactly, a NaN input),
so a hook reads ``if not native_elementwise.binary(fn, a, b, out): fn(a, b, out=out)``. Why the C code is
worth it: a (128, 16) float32 multiply on SBUF's partition-strided rows costs numpy ~4 us (its general
iterator, and buffering because all tiles share one byte array), the C loop a fraction of that.

The extension is built on first use (``core.native_build.build_library``: -O2 -ffp-contract=off, never
-ffast-math; the cache key covers the source, compiler, flags, CPU, Python ABI and numpy version) and
loaded with importlib. ``NPUSIM_NATIVE=0`` (every native path off) or ``NPUSIM_NATIVE_ELEMENTWISE=0`` (this
one; both read on first use, or after ``reset()``), no C compiler, or a failed build (one warning saying
why) leave every function returning False: numpy does everything.
"""
from __future__ import annotations

import os
import sysconfig
import warnings

import numpy as np

from ..core import native_build

SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "native", "elementwise.c")
MODULE = "npusim.nki._native_elementwise"      # elementwise.c's PyInit__native_elementwise


def _flags() -> list[str]:
    # the Python ABI and numpy's version as a define: part of the cache key, unused by the source
    abi = f"{sysconfig.get_config_var('SOABI')}-numpy{np.__version__}".replace('"', "")
    # (-fvect-cost-model=dynamic: -O2's very-cheap model leaves short row loops scalar; vector lanes run the
    # same IEEE operations, and no float reduction is reassociated without -ffast-math)
    return ["-std=gnu99", "-O2", "-ftree-vectorize", "-fvect-cost-model=dynamic", "-ffp-contract=off",
            "-fno-fast-math", "-fPIC", "-shared",
            "-fno-tree-loop-distribute-patterns",         # short row copies stay loops, not memcpy calls
            f"-I{sysconfig.get_paths()['include']}", f"-I{np.get_include()}", f'-DNPUSIM_BUILT_FOR="{abi}"']


def _load():
    """The extension module, or None (with a warning when a compiler exists but the build fails)."""
    path, why = native_build.build_library("nki_native", SOURCE, [_flags()])
    if path is None:
        if "no C compiler" not in why:
            warnings.warn(f"npusim.nki: native elementwise.c does not build, using numpy: {why[:500]}",
                          RuntimeWarning)
        return None
    try:
        module = native_build.load_extension(MODULE, path)
    except (ImportError, OSError) as e:
        warnings.warn(f"npusim.nki: cannot load {path} ({e}), using numpy", RuntimeWarning)
        return None
    return module


def _numpy_does_it(*args) -> bool:
    return False


def _numpy_computes_it(*args) -> None:
    return None


def _decide() -> None:
    """Bind binary / copy / fill / affine to the C functions, or to ``_numpy_does_it`` /
    ``_numpy_computes_it``."""
    global _EXT, binary, copy, fill, affine
    off = os.environ.get("NPUSIM_NATIVE", "1") == "0" or os.environ.get("NPUSIM_NATIVE_ELEMENTWISE", "1") == "0"
    _EXT = None if off else _load()
    if _EXT is None:
        binary = copy = fill = _numpy_does_it
        affine = _numpy_computes_it
    else:
        binary, copy, fill, affine = _EXT.binary, _EXT.copy, _EXT.fill, _EXT.affine


def _first_binary(fn, a, b, out) -> bool:
    _decide()
    return binary(fn, a, b, out)


def _first_copy(src, out) -> bool:
    _decide()
    return copy(src, out)


def _first_fill(out, value) -> bool:
    _decide()
    return fill(out, value)


def _first_affine(x, scale, bias):
    _decide()
    return affine(x, scale, bias)


_EXT = None
#: binary(ufunc, a, b, out): out = ufunc(a, b) for np.add / np.subtract / np.multiply on float32 arrays
binary = _first_binary
#: copy(src, out): out[...] = src for arrays of one dtype (itemsize 1, 2, 4 or 8), bytes as they are
copy = _first_copy
#: fill(out, value): out[...] = value, value a 0-d array of out's dtype
fill = _first_fill
#: affine(x, scale, bias): ``x * scale + bias`` (scale / bias: None for none, a float32 value, or a (P, 1)
#: float32 column) as a new float32 array of x's (P, N) shape, or None: numpy computes it (a NaN input, ...)
affine = _first_affine


def reset() -> None:
    """Decide again on next use (re-reads ``NPUSIM_NATIVE``): for tests that switch the native path."""
    global binary, copy, fill, affine, _EXT
    _EXT, binary, copy, fill, affine = None, _first_binary, _first_copy, _first_fill, _first_affine


def enabled() -> bool:
    """Whether the C functions are in use (decides now if not decided yet)."""
    if binary is _first_binary:
        _decide()
    return _EXT is not None


def last_reason() -> str:
    """Why the last native call returned False ("done" when it returned True; "off" without the C code):
    "type", "shape", "align", "readonly", "overlap", "nan" or "op"."""
    return _EXT.last_reason() if _EXT is not None else "off"
