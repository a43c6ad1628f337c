"""Switches for the points part two's seed sections leave open: the default is the reading
docs/vppl.md (part two) argues for; the alternative is one keyword away:

    m = vppl.Machine(); m.readings_part_two = ReadingsPartTwo(pooling="average")
"""
from __future__ import annotations

from dataclasses import dataclass, field, fields


@dataclass(frozen=True)
class ReadingsPartTwo:
    pooling: str = field(default="max", metadata={
        "choices": ("max", "average"),
        "doc": "DNN_poolingLayer: 'max' (q-agnostic, which fits 'qは指定する必要はありません'); 'average' = "
               "sum of the in-image cells / their count, rounded half up"})
    shift_rounding: str = field(default="half_up", metadata={
        "choices": ("half_up", "floor"),
        "doc": "every right shift that drops fraction bits (FPBLmAvX, convolution outputs, conv32to16): "
               "'half_up' adds 2^(s-1) first (reference A7.15/A7.17); 'floor' is the bare arithmetic shift"})

    def __post_init__(self):
        for f in fields(self):
            v = getattr(self, f.name)
            if not isinstance(v, str) or v not in f.metadata["choices"]:
                from ..core.errors import ConstraintError
                raise ConstraintError("ReadingsPartTwo", f.name, f"one of {', '.join(f.metadata['choices'])}", v)


DEFAULT = ReadingsPartTwo()


def readings(m) -> ReadingsPartTwo:
    return getattr(m, "readings_part_two", DEFAULT)
