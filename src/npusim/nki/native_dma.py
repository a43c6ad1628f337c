"""Optional native DMA-engine bookkeeping (native/dma_engines.c) for ``dma.DmaEngines``: the first common
free start of some engine classes (``earliest``) and the common reservation (``reserve_after``: after
every interval, nothing nested, no folding). Every DMA transfer asks both; in Python they are a third of
a DMA's own work.

dma.py's Python code stays the reference and the fallback: the C functions work on its lists, answer
only when every number is an exact Python float, and otherwise return None / False with nothing changed.
``NPUSIM_NATIVE=0`` (every native path off) or ``NPUSIM_NATIVE_DMA=0`` (this one; read on first use or after
``reset()``), no C compiler, or a failed build (one warning saying why) leave the Python code doing it all.
"""
from __future__ import annotations

import os
import sysconfig
import warnings

from ..core import native_build

SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "native", "dma_engines.c")
MODULE = "npusim.nki._native_dma"      # dma_engines.c's PyInit__native_dma


def _flags() -> list[str]:
    # the Python ABI as a define: part of the cache key, unused by the source
    abi = str(sysconfig.get_config_var("SOABI")).replace('"', "")
    return ["-std=gnu99", "-O2", "-ffp-contract=off", "-fno-fast-math", "-fPIC", "-shared",
            f"-I{sysconfig.get_paths()['include']}", f'-DNPUSIM_BUILT_FOR="{abi}"']


def _load():
    """The extension module, or None (with a warning when a compiler exists but the build fails)."""
    path, why = native_build.build_library("nki_native", SOURCE, [_flags()])
    if path is None:
        if "no C compiler" not in why:
            warnings.warn(f"npusim.nki: native dma_engines.c does not build, using Python: {why[:500]}",
                          RuntimeWarning)
        return None
    try:
        return native_build.load_extension(MODULE, path)
    except (ImportError, OSError) as e:
        warnings.warn(f"npusim.nki: cannot load {path} ({e}), using Python", RuntimeWarning)
        return None


_decided = False
_EXT = None


def ext():
    """The extension module, or None: the Python code does it all (decides on first use)."""
    global _decided, _EXT
    if not _decided:
        off = os.environ.get("NPUSIM_NATIVE", "1") == "0" or os.environ.get("NPUSIM_NATIVE_DMA", "1") == "0"
        _EXT = None if off else _load()
        _decided = True
    return _EXT


def reset() -> None:
    """Decide again on next use (re-reads the switches): for tests that switch the native path."""
    global _decided, _EXT
    _decided, _EXT = False, None
