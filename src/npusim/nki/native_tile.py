"""The optional C extension (native/tile.c) for on-chip tile birth and death.

A kernel of thousands of small instructions makes about one tile per instruction (nl.ndarray, and the
tiles nl.load / broadcast_to make): in Python, runtime.Run._place and the TileBlock's death callback are
some 250 bytecodes per tile. ``place(run, plan, buffer, name)`` does Run._place's common case (next fit
puts the request after every block) and returns None otherwise; ``tile_died`` is TileBlock.release as
the weak reference's callback. Run._place, NextFitAllocator.reserve / insert and TileBlock.release stay
the reference and the fallback (tests/nki/test_native_tile.py: both make the same tiles, blocks,
cursors and errors).

The extension is built once per source, compiler, flags and Python ABI into the npusim cache folder.
``NPUSIM_NATIVE=0`` or ``NPUSIM_NATIVE_TILE=0`` (read when the first Run is made, or after ``reset()``),
no C compiler, or a failed build (one warning saying why) leave the Python path.
"""
from __future__ import annotations

import os
import sysconfig
import warnings

from ..core import native_build

SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "native", "tile.c")
MODULE = "npusim.nki._native_tile"         # tile.c's PyInit__native_tile

#: the slots tile.c sets, in its enum order: every slot of each class, so a slot added to a class
#: turns the native path off (configure_module refuses) until tile.c sets it too
VIEW_SLOTS = ("memory", "offset", "shape", "strides", "dtype", "lane_lo", "lane_hi", "lo", "hi", "_array", "_iv",
              "_ibox", "_iwords", "_written_gen")
TENSOR_SLOTS = ("tv", "buffer", "name", "root", "run", "full", "stale", "checked", "on_chip", "in_psum", "free_size",
                "partitions", "nbytes", "shape", "start_partition", "sig", "scope", "ind")
BLOCK_SLOTS = ("offset", "size", "name", "allocator")

_STATE: list = []       # [the configured module or None] once decided


def _flags() -> list[str]:
    # the Python ABI and numpy's version as a define: part of the cache key (an extension is reused only
    # by the Python and numpy it was built for)
    import numpy as np
    abi = f"{sysconfig.get_config_var('SOABI')}-numpy{np.__version__}".replace('"', "")
    return ["-std=gnu99", "-O2", "-fPIC", "-shared", "-fno-strict-aliasing",
            f"-I{sysconfig.get_paths()['include']}", f"-I{np.get_include()}", f'-DNPUSIM_BUILT_FOR="{abi}"']


def _slots(cls, names: tuple) -> tuple | None:
    """The slot descriptors of ``names``, when they are exactly the slots of ``cls`` (none inherited)."""
    own = [s for s in cls.__dict__.get("__slots__", ()) if s != "__weakref__"]
    if sorted(own) != sorted(names) or any(c.__dict__.get("__slots__") for c in cls.__mro__[1:]):
        return None
    return tuple(cls.__dict__[s] for s in names)


def configure_module(module) -> str:
    """Give the module the types and their slot descriptors; "" or why not."""
    from ..core.view import TensorView
    from . import alloc
    from .tensor import PSUM, SBUF, NkiTensor
    slots = (_slots(TensorView, VIEW_SLOTS), _slots(NkiTensor, TENSOR_SLOTS), _slots(alloc.TileBlock, BLOCK_SLOTS))
    if None in slots:
        return "TensorView, NkiTensor or TileBlock has slots tile.c does not set"
    module.configure({"TensorView": TensorView, "NkiTensor": NkiTensor, "TileBlock": alloc.TileBlock,
                      "view_slots": slots[0], "tensor_slots": slots[1], "block_slots": slots[2], "PSUM": PSUM, "SBUF": SBUF,
                      "tile_died": module.tile_died})
    return ""


def _load():
    if not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")):
        return None
    try:
        path, why = native_build.build_library("nki_native", SOURCE, [_flags()])
    except OSError as e:
        path, why = None, f"cannot build {SOURCE}: {e}"
    if path is None:
        if "no C compiler" not in why:
            warnings.warn(f"npusim.nki: native tile.c does not build, using Python: {why[:500]}", RuntimeWarning)
        return None
    try:
        module = native_build.load_extension(MODULE, path)
    except (ImportError, OSError) as e:
        warnings.warn(f"npusim.nki: cannot load {path} ({e}), using Python", RuntimeWarning)
        return None
    why = configure_module(module)
    if why:
        warnings.warn(f"npusim.nki: native tile.c not used: {why}", RuntimeWarning)
        return None
    return module


def wanted() -> bool:
    return os.environ.get("NPUSIM_NATIVE", "1") != "0" and os.environ.get("NPUSIM_NATIVE_TILE", "1") != "0"


def module():
    """The configured extension, or None (the Python path)."""
    if not _STATE:
        _STATE.append(_load() if wanted() else None)
    return _STATE[0]


def reset() -> None:
    """Decide again on the next ``module()`` (tests switching NPUSIM_NATIVE_TILE)."""
    _STATE.clear()
