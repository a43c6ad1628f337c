"""Optional native helpers of the DMA path. native/dma_engines.c (``ext()``) for ``dma.DmaEngines``: the
first common free start of some engine classes (``earliest``) and the common reservation
(``reserve_after``: after every interval, nothing nested, no folding); every DMA transfer asks both, in
Python they were a third of a DMA's own work. native/slicing.c (``slicing()``): the plan key of a basic
index (``view_key``, tensor.py's ``_view_key`` in C), built for every slice a kernel takes of a tensor.

The Python code stays the reference and the fallback: the engine functions work on dma.py's lists, answer
only when every number is an exact Python float, and otherwise return None / False with nothing changed.
``NPUSIM_NATIVE=0`` (every native path off) or ``NPUSIM_NATIVE_DMA=0`` (this one; read on first use or after
``reset()``), no C compiler, or a failed build (one warning saying why) leave the Python code doing it all.
"""
from __future__ import annotations

import os
import sysconfig
import warnings

from ..core import native_build

_HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "native")
#: (source, module name: its PyInit_ is the last part)
ENGINES = (os.path.join(_HERE, "dma_engines.c"), "npusim.nki._native_dma")
SLICING = (os.path.join(_HERE, "slicing.c"), "npusim.nki._native_slicing")


def _flags() -> list[str]:
    # the Python ABI as a define: part of the cache key, unused by the source
    abi = str(sysconfig.get_config_var("SOABI")).replace('"', "")
    return ["-std=gnu99", "-O2", "-ffp-contract=off", "-fno-fast-math", "-fPIC", "-shared",
            f"-I{sysconfig.get_paths()['include']}", f'-DNPUSIM_BUILT_FOR="{abi}"']


def _load(source: str, module: str):
    """The extension module, or None (with a warning when a compiler exists but the build fails)."""
    path, why = native_build.build_library("nki_native", source, [_flags()])
    if path is None:
        if "no C compiler" not in why:
            warnings.warn(f"npusim.nki: native {os.path.basename(source)} does not build, using Python: "
                          f"{why[:500]}", RuntimeWarning)
        return None
    try:
        return native_build.load_extension(module, path)
    except (ImportError, OSError) as e:
        warnings.warn(f"npusim.nki: cannot load {path} ({e}), using Python", RuntimeWarning)
        return None


_MODULES: dict = {}     # (source, module) -> the extension or None, decided on first use


def _get(which):
    if which not in _MODULES:
        off = os.environ.get("NPUSIM_NATIVE", "1") == "0" or os.environ.get("NPUSIM_NATIVE_DMA", "1") == "0"
        _MODULES[which] = None if off else _load(*which)
    return _MODULES[which]


def ext():
    """dma_engines.c's module, or None: the Python code does it all (decides on first use)."""
    return _get(ENGINES)


def slicing():
    """slicing.c's module, or None: the Python code does it all (decides on first use)."""
    return _get(SLICING)


def reset() -> None:
    """Decide again on next use (re-reads the switches): for tests that switch the native path."""
    _MODULES.clear()
