"""The small C types of okk.h: dim4, dim2, Padding, and the x32/x16/x8 unions.

Kernels port line by line from C, so these are plain mutable records with the C field names. A union is
built from one named member (``x32(fp32=1.5)``, ``x32(s32=-1)``, ``x32(_4N_s8=(1, 2, 3, 4))``); a plain
Python float passed where a union is expected means its fp32 bits, a plain int its raw bits.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core.errors import ConstraintError


@dataclass
class dim4:
    n: int = 1
    c: int = 1
    h: int = 1
    w: int = 1

    def tuple(self) -> tuple[int, int, int, int]:
        return (self.n, self.c, self.h, self.w)


@dataclass
class dim2:
    h: int = 1
    w: int = 1


@dataclass
class Padding:
    top: int = 0
    bottom: int = 0
    left: int = 0
    right: int = 0


class _Union:
    """A C union of ``bits`` bits: every member is a reinterpretation of the same raw bits."""
    bits_width = 32
    members: dict[str, tuple[str, int]] = {}      # name -> (numpy dtype of one lane, lane count)

    def __init__(self, value=None, **member):
        if (value is None) == (not member) or len(member) > 1:
            raise ConstraintError(type(self).__name__, "member", "exactly one union member is given",
                                  member or value)
        if value is not None:
            self.bits = _raw_bits(value, self.bits_width)
            return
        (name, v), = member.items()
        if name not in self.members:
            raise ConstraintError(type(self).__name__, name, f"a member of {type(self).__name__} "
                                  f"({', '.join(self.members)})", v)
        dt, count = self.members[name]
        lanes = np.asarray(v if count > 1 else [v]).astype(dt, casting="unsafe") \
            if np.dtype(dt).kind != "f" else np.asarray(v if count > 1 else [v], dt)
        if lanes.size != count:
            raise ConstraintError(type(self).__name__, name, f"{count} lane value(s)", v)
        self.bits = int.from_bytes(lanes.tobytes(), "little")

    def __getattr__(self, name):
        members = type(self).members
        if name not in members:
            raise AttributeError(name)
        dt, count = members[name]
        lanes = np.frombuffer(self.bits.to_bytes(self.bits_width // 8, "little"), dt)
        return lanes[0].item() if count == 1 else tuple(x.item() for x in lanes)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(bits={self.bits:#0{self.bits_width // 4 + 2}x})"

    def __eq__(self, other) -> bool:
        return type(other) is type(self) and other.bits == self.bits


class x32(_Union):
    bits_width = 32
    # okk.h names the packed members _4N_s8, _4N_u8, _2N_s16, _2N_u16; s8x4 ... are npusim's older aliases
    members = {"fp32": ("<f4", 1), "s32": ("<i4", 1), "u32": ("<u4", 1), "_4N_s8": ("i1", 4),
               "_4N_u8": ("u1", 4), "_2N_s16": ("<i2", 2), "_2N_u16": ("<u2", 2), "s8x4": ("i1", 4),
               "u8x4": ("u1", 4), "s16x2": ("<i2", 2), "u16x2": ("<u2", 2)}


class x16(_Union):
    bits_width = 16
    members = {"fp16": ("<f2", 1), "s16": ("<i2", 1), "u16": ("<u2", 1), "s8x2": ("i1", 2), "u8x2": ("u1", 2)}


class x8(_Union):
    bits_width = 8
    members = {"s8": ("i1", 1), "u8": ("u1", 1)}


def _raw_bits(value, width: int) -> int:
    if isinstance(value, _Union):
        return value.bits & ((1 << width) - 1)
    if isinstance(value, (bool, np.bool_)):
        return int(value)
    if isinstance(value, (int, np.integer)):
        return int(value) & ((1 << width) - 1)
    if isinstance(value, (float, np.floating)):
        dt = {32: "<f4", 16: "<f2"}.get(width)
        if dt is None:
            raise ConstraintError(f"x{width}", "value", "an 8-bit union takes an int, not a float", value)
        return int.from_bytes(np.asarray([value], dt).tobytes(), "little")
    raise ConstraintError(f"x{width}", "value", "a union, an int (raw bits) or a float (fp bits)", value)


def union_bits(value, width: int) -> int:
    """The raw bits of a union argument (x32/x16/x8 object, plain int, or plain float)."""
    return _raw_bits(value, width)


def as_dim4(api: str, param: str, d) -> dim4:
    """Accept a dim4 (or a 4-tuple, for convenience); the C API takes ``const dim4 *``. Fields must be
    C ints (okk/args.py); the result is a fresh dim4 of Python ints."""
    from .args import dim4_arg
    return dim4_arg(api, param, d)
