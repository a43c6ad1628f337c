"""DMA option enums of ``nki.isa`` (``nki/api/nki/isa/__init__.py``; attribute names from the API pages).

The SDK does not publish their integer values: members are numbered in the documented order.
Descriptor generation is not modelled (dge_mode); oob_mode decides what an out-of-bounds index of an
indirect ``.ap(scalar_offset= / vector_offset=)`` pattern does (access.py).
"""
from __future__ import annotations

import enum


class dge_mode(enum.IntEnum):
    """Descriptor Generation Engine mode of a DMA."""
    unknown = 0     # let the compiler decide
    swdge = 1       # software DGE
    hwdge = 2       # hardware DGE
    none = 3        # not using DGE


class oob_mode(enum.IntEnum):
    """What a DMA does with an out-of-bounds indirect index."""
    error = 0       # raise
    skip = 1        # skip the element


class dma_engine(enum.IntEnum):
    """The DMA transfer mechanism of ``nisa.sendrecv``."""
    dma = 1         # the standard DMA engine with CoreBarrier synchronization (the stub's values)
    gpsimd_dma = 2  # GpSimd's internal DMA (small SBUF-to-SBUF swaps in LNC2)


def is_member(cls, value) -> bool:
    """A member of ``cls``, or the plain int of one: nki-library passes ``dge_mode=3`` ("none") as an int
    (norm_tkg_utils.py ``_DGE_MODE_NONE = 3``), which the compiler accepts as that member."""
    if isinstance(value, cls):
        return True
    return isinstance(value, int) and not isinstance(value, bool) and value in cls._value2member_map_
