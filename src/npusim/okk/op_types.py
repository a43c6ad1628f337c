"""op_type_t / mul_type_t of okk.h: the OP_TYPE / MUL_TYPE bit-field macros and their enumerators."""
from __future__ import annotations

import numpy as np


def _flags(api: str, **flags) -> list[int]:
    """Each bit-field flag is 0 or 1 (a bool is accepted: these are C flags)."""
    from ..core.errors import ConstraintError
    out = []
    for name, v in flags.items():
        if not (isinstance(v, (int, np.integer, bool, np.bool_)) and int(v) in (0, 1)):
            raise ConstraintError(api, name, f"{name} is 0 or 1", v)
        out.append(int(v))
    return out


def OP_TYPE(src_bit: int, src0_sign: int, src1_sign: int, dst_bit: int, dst_sign: int) -> int:
    """okk.h: src_bit | src0_sign << 1 | src1_sign << 2 | dst_bit << 3 | dst_sign << 4 (bit = 1: 8-bit)."""
    src_bit, src0_sign, src1_sign, dst_bit, dst_sign = _flags("OP_TYPE", src_bit=src_bit, src0_sign=src0_sign,
                                                             src1_sign=src1_sign, dst_bit=dst_bit, dst_sign=dst_sign)
    return src_bit | (src0_sign << 1) | (src1_sign << 2) | (dst_bit << 3) | (dst_sign << 4)


def MUL_TYPE(src0_sign: int, src1_sign: int, dst_sign: int) -> int:
    """okk.h: src0_sign | src1_sign << 1 | dst_sign << 2."""
    src0_sign, src1_sign, dst_sign = _flags("MUL_TYPE", src0_sign=src0_sign, src1_sign=src1_sign, dst_sign=dst_sign)
    return src0_sign | (src1_sign << 1) | (dst_sign << 2)


S8_OP_S8_TO_S8 = OP_TYPE(1, 1, 1, 1, 1)
S8_OP_S8_TO_S16 = OP_TYPE(1, 1, 1, 0, 1)
S8_OP_U8_TO_S8 = OP_TYPE(1, 1, 0, 1, 1)
S8_OP_U8_TO_S16 = OP_TYPE(1, 1, 0, 0, 1)
U8_OP_S8_TO_S8 = OP_TYPE(1, 0, 1, 1, 1)
U8_OP_S8_TO_S16 = OP_TYPE(1, 0, 1, 0, 1)
U8_OP_U8_TO_S8 = OP_TYPE(1, 0, 0, 1, 1)
U8_OP_U8_TO_S16 = OP_TYPE(1, 0, 0, 0, 1)
U8_OP_U8_TO_U8 = OP_TYPE(1, 0, 0, 1, 0)
U8_OP_U8_TO_U16 = OP_TYPE(1, 0, 0, 0, 0)
S16_OP_S16_TO_S8 = OP_TYPE(0, 1, 1, 1, 1)
S16_OP_S16_TO_S16 = OP_TYPE(0, 1, 1, 0, 1)
S16_OP_U16_TO_S8 = OP_TYPE(0, 1, 0, 1, 1)
S16_OP_U16_TO_S16 = OP_TYPE(0, 1, 0, 0, 1)
U16_OP_S16_TO_S8 = OP_TYPE(0, 0, 1, 1, 1)
U16_OP_S16_TO_S16 = OP_TYPE(0, 0, 1, 0, 1)
U16_OP_U16_TO_S8 = OP_TYPE(0, 0, 0, 1, 1)
U16_OP_U16_TO_S16 = OP_TYPE(0, 0, 0, 0, 1)
U16_OP_U16_TO_U8 = OP_TYPE(0, 0, 0, 1, 0)
U16_OP_U16_TO_U16 = OP_TYPE(0, 0, 0, 0, 0)

S16_MUL_S8_TO_S16 = MUL_TYPE(1, 1, 1)
U16_MUL_S8_TO_S16 = MUL_TYPE(0, 1, 1)
U16_MUL_U8_TO_U16 = MUL_TYPE(0, 0, 0)
S16_MUL_U8_TO_S16 = MUL_TYPE(1, 0, 1)

__all__ = [n for n in dir() if n.isupper() and not n.startswith("_")]
