"""Ascend C scalar type names (``asc.half``, ``asc.float`` ...) mapped onto the core dtype table.

Each name is the core ``DType`` itself, so ``LocalTensor(asc.half)`` and ``core.cast(x, asc.half)`` agree.
"""
from __future__ import annotations

from ..core.dtypes import DTYPES, DType, dtype as _core_dtype

half = DTYPES["float16"]
float = DTYPES["float32"]          # noqa: A001 - the Ascend C name
bfloat16_t = DTYPES["bfloat16"]
int8_t = DTYPES["int8"]
uint8_t = DTYPES["uint8"]
int16_t = DTYPES["int16"]
uint16_t = DTYPES["uint16"]
int32_t = DTYPES["int32"]
uint32_t = DTYPES["uint32"]
int64_t = DTYPES["int64"]
bool_t = DTYPES["bool"]

#: core dtype name -> the Ascend C spelling, for messages.
ASC_NAME = {"float16": "half", "float32": "float", "bfloat16": "bfloat16_t", "int8": "int8_t",
            "uint8": "uint8_t", "int16": "int16_t", "uint16": "uint16_t", "int32": "int32_t",
            "uint32": "uint32_t", "int64": "int64_t", "bool": "bool"}


def as_dtype(d) -> DType:
    """An Ascend C type (or anything the core accepts: numpy dtype, name) -> core DType."""
    return _core_dtype(d)


def asc_name(d) -> str:
    d = as_dtype(d)
    return ASC_NAME.get(d.name, d.name)
