"""The 128-bit vector mask register and the Normal / Counter mode bit (ascendc.md §1.3-1.4).

Normal mode: bit i (LSB first; low word = bits 0..63) enables element i of every repeat. Counter mode:
the low 64 bits hold the total element count N; the hardware runs ceil(N/E) repeats.
"""
from __future__ import annotations

import enum
import functools

import numpy as np

from ..core.errors import ConstraintError, UnsupportedError
from . import cost
from .context import FULL64, current
from . import args as _args
from .rules import UINT32_MAX, UINT64_MAX


class MaskMode(enum.Enum):
    NORMAL = 0
    COUNTER = 1


MASK_PLACEHOLDER = 0


def continuous_bits(n: int) -> tuple[int, int]:
    """SetMask<T>(len) in Normal mode: the low n bits as (high, low)."""
    if n >= 128:
        return FULL64, FULL64
    if n > 64:
        return (1 << (n - 64)) - 1, FULL64
    if n == 64:
        return 0, FULL64
    return 0, (1 << n) - 1


@functools.lru_cache(maxsize=1024)
def active_lanes(high: int, low: int, E: int) -> np.ndarray | None:
    """Bool (E,) of the lanes a Normal-mode mask enables; None when all E are on. Read-only, cached."""
    words = np.array([low, high], dtype=np.uint64)
    bits = np.unpackbits(words.view(np.uint8), bitorder="little")[:E].astype(bool)
    if bits.all():
        return None
    bits.setflags(write=False)
    return bits


def _place(name: str) -> None:
    current().place("PIPE_V", name, cost.MASK_CYCLES)


def SetMaskNorm() -> None:
    current().counter_mode = False
    _place("SetMaskNorm")


def SetMaskCount() -> None:
    ctx = current()
    if not ctx.soc.counter_mode:
        raise UnsupportedError("SetMaskCount", "counter mode", f"{ctx.soc.name} has no counter mode")
    ctx.counter_mode = True
    _place("SetMaskCount")


def ResetMask() -> None:
    ctx = current()
    ctx.mask_high = ctx.mask_low = FULL64
    _place("ResetMask")


def SetVectorMask(dtype, *args, mode: MaskMode = MaskMode.NORMAL) -> None:
    """``SetVectorMask<T, mode>(maskHigh, maskLow)`` or ``SetVectorMask<T, mode>(len)``."""
    ctx = current()
    d = _args.dtype("SetVectorMask", "T", dtype)
    if not isinstance(mode, MaskMode):
        raise ConstraintError("SetVectorMask", "mode", "a MaskMode", mode)
    counter = mode is MaskMode.COUNTER or ctx.counter_mode
    if len(args) == 2:
        high, low = (_args.as_int("SetVectorMask", "maskHigh", args[0], rule="a uint64_t"),
                     _args.as_int("SetVectorMask", "maskLow", args[1], rule="a uint64_t"))
        for name, v in (("maskHigh", high), ("maskLow", low)):
            if not 0 <= v <= UINT64_MAX:
                raise ConstraintError("SetVectorMask", name, "a uint64_t", v)
        if counter and low > UINT32_MAX:
            raise ConstraintError("SetVectorMask", "maskLow", "in counter mode the count is <= UINT32_MAX", low)
    elif len(args) == 1:
        n = _args.as_int("SetVectorMask", "len", args[0])
        if n < 0:
            raise ConstraintError("SetVectorMask", "len", "len >= 0", n)
        if counter:
            if n > UINT32_MAX:
                raise ConstraintError("SetVectorMask", "len", "in counter mode len <= UINT32_MAX", n)
            high, low = 0, n
        else:
            E = 256 // d.itemsize
            if n > E:
                raise ConstraintError("SetVectorMask", "len", f"0 <= len <= {E} for {d} in Normal mode", n)
            high, low = continuous_bits(n)
    else:
        raise ConstraintError("SetVectorMask", "args", "(maskHigh, maskLow) or (len)", args)
    ctx.mask_high, ctx.mask_low = high, low
    _place("SetVectorMask")
