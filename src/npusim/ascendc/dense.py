"""Reading and writing dense (contiguous) operands on the hot paths without TensorView.read / write.

A memory's init map holds 0 or 1 per byte (core.memory), so "every byte was written" is one comparison of
the map's bytes with a run of ones. When that fails, the view's own ``read`` reports the never-written
bytes, so errors, warnings and poisoning are exactly the core's.
"""
from __future__ import annotations

import numpy as np

from ..core.options import options
from ..core.view import TensorView

_ONES: dict[int, bytes] = {}


def ones(n: int) -> bytes:
    """``n`` bytes of 1: the init-map image of ``n`` written bytes (kept per length; kernels repeat sizes)."""
    b = _ONES.get(n)
    if b is None:
        if len(_ONES) > 256:
            _ONES.clear()
        b = _ONES[n] = b"\x01" * n
    return b


def all_written(init: np.ndarray, want: bytes) -> bool:
    """``init`` (a slice of an init map) is all ones; ``want`` is ``ones(init.size)``."""
    return init.tobytes() == want


def copy_dense(sv: TensorView, dv: TensorView, api: str) -> None:
    """``dv.write(sv.read(api))`` for two contiguous byte views of the same size (a count-form DataCopy)."""
    n = sv.nbytes
    src, dst = sv.memory, dv.memory
    s0, d0 = sv.offset, dv.offset
    track = options().track_init
    if track and not all_written(src.init[s0:s0 + n], ones(n)):
        sv.read(api)                               # raises, or warns and poisons in place
    dst.data[d0:d0 + n] = src.data[s0:s0 + n]
    if track:
        dst.init[d0:d0 + n] = 1
