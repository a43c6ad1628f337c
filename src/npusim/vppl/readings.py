"""Switches for the points the seed leaves ambiguous: the default is the reading docs/vppl.md argues
for; the alternatives stay one keyword away (``Machine(readings=Readings(mul="q15"))``)."""
from __future__ import annotations

from dataclasses import dataclass, field, fields


@dataclass(frozen=True)
class Readings:
    mul: str = field(default="saturate", metadata={
        "choices": ("saturate", "q15"),
        "doc": "mul$I*/e_mul$I*: 'saturate' = integer product clamped to the element range (reference A7.4 "
               "(a)); 'q15' = fractional product (a*b) >> (bits-1), arithmetic shift, saturated (A7.4 (b))"})
    compare: str = field(default="strict", metadata={
        "choices": ("strict", "inclusive"),
        "doc": "countOver/countUnder: 'strict' counts > / < ('上回った' / '下回った'); 'inclusive' counts >= / <="})
    narrow: str = field(default="saturate", metadata={
        "choices": ("saturate", "wrap"),
        "doc": "convert$ narrowing (IW2IB): 'saturate' clips to the destination range (DSP norm, A7.13); "
               "'wrap' keeps the low bits"})
    abs: str = field(default="wrap", metadata={
        "choices": ("wrap", "saturate"),
        "doc": "abs$X of the most negative value: 'wrap' leaves it (two's complement); 'saturate' gives max"})

    filter_sub: str = field(default="start", metadata={
        "choices": ("start", "centre"),
        "doc": "filter_sub: where vector*filter adds into the target, which is two registers longer: 'start' = "
               "elements [0, n), the last two registers are work space; 'centre' = one register of margin on "
               "each side (elements [R, R+n), R = one register), as a 3-tap filter's halo would be"})

    def __post_init__(self):
        for f in fields(self):
            v = getattr(self, f.name)
            if not isinstance(v, str) or v not in f.metadata["choices"]:
                from ..core.errors import ConstraintError
                raise ConstraintError("Readings", f.name, f"one of {', '.join(f.metadata['choices'])}", v)


DEFAULT = Readings()
