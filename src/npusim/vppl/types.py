"""VPPL element types and operator suffixes.

Vectors hold i8/u8/i16/u16/i32/u32 elements (or F16Qq / F32Qq fixed point, stored as int16 / int32).
Operator suffixes name the element the instruction sees: ``$X`` is a size (B = 8, W = 16, L = 32 bits,
seed 003: "要素サイズを示す語B, W, L"), ``$XX`` a signedness and a size (U = unsigned, I = signed:
UB, UW, UL, IB, IW, IL).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from ..core.errors import ConstraintError

SIZE_BITS = {"B": 8, "W": 16, "L": 32}
BITS_SIZE = {v: k for k, v in SIZE_BITS.items()}

VECTOR_TYPES = {"i8": np.dtype(np.int8), "u8": np.dtype(np.uint8), "i16": np.dtype(np.int16),
                "u16": np.dtype(np.uint16), "i32": np.dtype(np.int32), "u32": np.dtype(np.uint32)}

# alloc_vector(name, __I16V, n): the seed shows __I16V; the other five follow the same pattern (assumed).
ALLOC_TYPES = {f"__{k.upper()}V": k for k in VECTOR_TYPES}

_FIXED = re.compile(r"^F(16|32)Q(\d+)$", re.IGNORECASE)


@dataclass(frozen=True)
class ElemType:
    """A vector's declared element type: its numpy storage and, for F16Qq / F32Qq, the q."""
    name: str
    np: np.dtype
    q: int | None = None

    @property
    def bits(self) -> int:
        return self.np.itemsize * 8

    @property
    def signed(self) -> bool:
        return self.np.kind == "i"


def elem_type(name) -> ElemType:
    """'i16' -> ElemType; 'F16Q12' -> int16 storage with q = 12 (q in 0..bits-1)."""
    if isinstance(name, ElemType):
        return name
    if isinstance(name, np.dtype) or (isinstance(name, type) and issubclass(name, np.generic)):
        d = np.dtype(name)
        for k, v in VECTOR_TYPES.items():
            if v == d:
                return ElemType(k, v)
        raise ConstraintError("vector declaration", "type", "VPPL vectors hold i8/u8/i16/u16/i32/u32 elements", str(d))
    if not isinstance(name, str):
        raise ConstraintError("vector declaration", "type", "an element type name (i8, u8, i16, u16, i32, u32, "
                              "F16Qq, F32Qq)", name)
    s = name
    if s in VECTOR_TYPES:
        return ElemType(s, VECTOR_TYPES[s])
    if s in ALLOC_TYPES:
        return ElemType(ALLOC_TYPES[s], VECTOR_TYPES[ALLOC_TYPES[s]])
    m = _FIXED.match(s)
    if m:
        bits, q = int(m.group(1)), int(m.group(2))
        if q >= bits:
            raise ConstraintError("vector declaration", "type", f"{s}: q must be below {bits}", s)
        return ElemType(f"F{bits}Q{q}", np.dtype(np.int16 if bits == 16 else np.int32), q)
    raise ConstraintError("vector declaration", "type", f"unknown VPPL element type {s!r} "
                          "(i8, u8, i16, u16, i32, u32, F16Qq, F32Qq)", s)


def suffix_dtype(signed: bool, bits: int) -> np.dtype:
    return np.dtype(f"{'i' if signed else 'u'}{bits // 8}")


def parse_xx(sfx: str) -> tuple[bool, int]:
    """'IW' -> (True, 16); 'UB' -> (False, 8)."""
    return sfx[0] == "I", SIZE_BITS[sfx[1]]


def parse_x(sfx: str) -> int:
    """'W' -> 16."""
    return SIZE_BITS[sfx]


def wrap_int32(v: int) -> int:
    """A VPPL ``integer`` is 32-bit two's complement: keep the low 32 bits, read them as signed."""
    v = int(v) & 0xFFFFFFFF
    return v - (1 << 32) if v & 0x80000000 else v
