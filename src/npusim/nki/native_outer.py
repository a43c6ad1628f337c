"""Optional native K = 1 matmul (native/outer.c): ``out = a @ b`` for float32 a [M, 1], b [1, N] written
straight into ``out`` (PSUM rows) in one pass, for blas.matmul's outer-product case (nl.broadcast_to's
ones-row matmul). ``blas._outer`` (numpy) stays the reference and the fallback.

``outer(a, b, out)`` returns True when it wrote the whole product, False when the caller must run numpy
(see outer.c: another dtype or shape, misalignment, read-only or overlapping out, a NaN in both inputs).
Built on first use like native_elementwise (core.native_build.build_library, -O2 -ffp-contract=off, never
-ffast-math; the cache key covers the source, compiler, flags, CPU, Python ABI and numpy version).
``NPUSIM_NATIVE=0`` (every native path off) or ``NPUSIM_NATIVE_OUTER=0`` (this one; read on first use or
after ``reset()``), no C compiler, or a failed build (one warning) make ``outer`` always return False.
"""
from __future__ import annotations

import os
import warnings

from ..core import native_build
from . import native_elementwise as _ew

SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "native", "outer.c")
MODULE = "npusim.nki._native_outer"      # outer.c's PyInit__native_outer


def _load():
    """The extension module, or None (with a warning when a compiler exists but the build fails)."""
    path, why = native_build.build_library("nki_native", SOURCE, [_ew._flags()])
    if path is None:
        if "no C compiler" not in why:
            warnings.warn(f"npusim.nki: native outer.c does not build, using numpy: {why[:500]}", RuntimeWarning)
        return None
    try:
        return native_build.load_extension(MODULE, path)
    except (ImportError, OSError) as e:
        warnings.warn(f"npusim.nki: cannot load {path} ({e}), using numpy", RuntimeWarning)
        return None


def _numpy_does_it(a, b, out) -> bool:
    return False


def _decide() -> None:
    global _EXT, outer
    off = os.environ.get("NPUSIM_NATIVE", "1") == "0" or os.environ.get("NPUSIM_NATIVE_OUTER", "1") == "0"
    _EXT = None if off else _load()
    outer = _numpy_does_it if _EXT is None else _EXT.outer


def _first_outer(a, b, out) -> bool:
    _decide()
    return outer(a, b, out)


_EXT = None
#: outer(a, b, out) -> bool: out = a @ b for float32 a [M, 1], b [1, N], out [M, N] (see the module doc)
outer = _first_outer


def reset() -> None:
    """Decide again on next use (re-reads the environment): for tests that switch the native path."""
    global _EXT, outer
    _EXT, outer = None, _first_outer


def enabled() -> bool:
    """Whether the C function is in use (decides now if not decided yet)."""
    if outer is _first_outer:
        _decide()
    return _EXT is not None
