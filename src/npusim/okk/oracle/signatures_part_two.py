"""C signatures of the okk part-two functions (okk.h, reference okkernel.md §3), in the kinds of
:mod:`signatures`; ``P`` is a pointer to another struct (Padding, dim2, fp32_or_addr_t, x32_or_addr_t)
given as its packed bytes (see :func:`padding`, :func:`dim2`, :func:`fp32_or_addr`), or None for NULL.
``bool``/``short`` arguments travel as ``i`` (an int in a register under the SysV ABI)."""
from __future__ import annotations

import struct

_S3 = ("L", "L", "L", "D4", "D4", "D4", "D4")        # dst, src0, src1, shape, 3 strides
_SC = ("L", "L", "f", "D4", "D4", "D4")              # dst, src, float C, shape, 2 strides
_SX = ("L", "L", "x32", "D4", "D4", "D4")            # dst, src, x32 C, shape, 2 strides
_SI = ("L", "L", "i", "D4", "D4", "D4")              # dst, src, int C, shape, 2 strides
_S2 = ("L", "L", "D4", "D4", "D4")                   # dst, src, shape, 2 strides

PART_TWO: dict[str, tuple[str, ...]] = {
    "okk_bdc_relu": _S2,
    "okk_bdc_32bit_cpy": _S2,
    "okk_bdc_32bit_set_C": ("L", "x32", "D4", "D4"),
    "okk_bdc_fp32_to_int32": ("L", "L", "D4"),
    "okk_bdc_lookup_int32_to_fp32": ("L", "L", "D4"),
    "okk_bdc_int8_to_fp32": ("L", "L", "L", "D4", "i", "i"),
    "okk_bdc_4N_int8_to_fp32": ("L", "L", "L", "D4", "i", "i"),
    "okk_bdc_greater_select_value": ("L", "L", "L", "x32", "D4", "D4", "D4", "D4"),
    "okk_bdc_equal_select_value": ("L", "L", "L", "x32", "D4", "D4", "D4", "D4"),
    "okk_bdc_greater_C_select_value": ("L", "L", "f", "x32", "D4", "D4", "D4"),
    "okk_bdc_C_greater_select_value": ("L", "L", "f", "x32", "D4", "D4", "D4"),
    "okk_bdc_equal_C_select_value": ("L", "L", "f", "x32", "D4", "D4", "D4"),
    "okk_bdc_greater_select": ("L", "P", "P", "P", "P", "D4"),
    "okk_bdc_equal_select": ("L", "P", "P", "P", "P", "D4"),
    "okk_bdc_bias": ("L", "L", "L", "D4", "D4", "D4"),
    "okk_bdc_scale": ("L", "L", "L", "D4", "D4", "D4"),
    "okk_bdc_scale_bias": ("L", "L", "L", "L", "D4", "D4", "D4"),
    "okk_bdc_scale_ra": ("L", "L", "L", "D4", "D4", "D4", "i"),   # alias probe: the doc's result_add
    "okk_bdc_matmul": ("L", "L", "L", "L", "i", "i", "i", "i", "i", "i", "i"),
    "okk_bdc_conv2d": ("L", "L", "L", "L", "D4", "i", "i", "i", "D4", "D4", "i", "i", "P", "P", "P"),
    "okk_bdc_depthwise2d": ("L", "L", "L", "L", "D4", "i", "i", "i", "P", "P", "P"),
    "okk_bdc_avg_pool2d": ("L", "L", "D4", "i", "i", "P", "P"),
    "okk_bdc_max_pool2d": ("L", "L", "D4", "i", "i", "P", "P"),
    "okk_bdc_32bit_arithmetic_shift_C": _SI,
    "okk_bdc_32bit_logical_shift_C": _SI,
    "okk_bdc_32bit_C_arithmetic_shift": _SI,
    "okk_bdc_32bit_C_logical_shift": _SX,
    "okk_bdc_fixed_point_packed_16bit_arithmetic_shift": _S3,
    "okk_bdc_fixed_point_packed_16bit_logical_shift": _S3,
    "okk_bdc_fixed_point_packed_16bit_arithmetic_shift_C": _SI,
    "okk_bdc_fixed_point_packed_16bit_logical_shift_C": _SI,
    "okk_bdc_fixed_point_packed_16bit_C_arithmetic_shift": _SI,
    "okk_bdc_fixed_point_packed_16bit_C_logical_shift": _SI,
    "okk_bdc_fixed_point_packed_16bit_split_high_8bit": _S2,
    "okk_bdc_fixed_point_packed_16bit_split_low_8bit": ("L", "L", "L", "D4", "D4", "D4", "D4"),
    "okk_bdc_fixed_point_packed_16bit_mul_8bit": ("L", "L", "L", "L", "D4", "D4", "D4", "D4", "D4", "i", "i"),
    "okk_bdc_fixed_point_packed_s16_mul_u8_to_s16": ("L",) * 6 + ("D4",) * 7 + ("i",),
    "okk_bdc_fixed_point_packed_mac": _S3 + ("i", "i", "i", "i"),
    "okk_bdc_fixed_point_packed_mac_C": _SI + ("i", "i", "i", "i"),
}
for _op in ("add", "sub", "mul", "div", "max", "min", "mac"):
    PART_TWO[f"okk_bdc_{_op}"] = _S3
    PART_TWO[f"okk_bdc_{_op}_C"] = _SC
PART_TWO["okk_bdc_C_sub"] = _SC
PART_TWO["okk_bdc_C_div"] = _SC
for _op in ("and", "or", "xor"):
    PART_TWO[f"okk_bdc_32bit_{_op}"] = _S3
    PART_TWO[f"okk_bdc_32bit_{_op}_C"] = _SX
PART_TWO["okk_bdc_32bit_arithmetic_shift"] = _S3
PART_TWO["okk_bdc_32bit_logical_shift"] = _S3
for _op in ("add", "sub", "mul", "max", "min"):
    PART_TWO[f"okk_bdc_fixed_point_packed_{_op}"] = _S3 + (("i", "i") if _op in ("add", "sub", "mul") else ("i",))
    PART_TWO[f"okk_bdc_fixed_point_packed_{_op}_C"] = _SI + (("i", "i") if _op in ("add", "sub", "mul") else ("i",))
PART_TWO["okk_bdc_fixed_point_packed_C_sub"] = _SI + ("i", "i")
del PART_TWO["okk_bdc_scale_ra"]


def padding(top: int, bottom: int, left: int, right: int) -> bytes:
    return struct.pack("<4i", top, bottom, left, right)


def dim2(h: int, w: int) -> bytes:
    return struct.pack("<2i", h, w)


def fp32_or_addr(is_addr: bool, value) -> bytes:
    """{bool is_addr; union {float val; u32 addr}}: 8 bytes, the union at offset 4."""
    if is_addr:
        return struct.pack("<?3xI", True, value)
    return struct.pack("<?3xf", False, value)


def x32_or_addr(is_addr: bool, value: int) -> bytes:
    """{bool is_addr; union {x32 val; u32 addr}}: value as raw bits."""
    return struct.pack("<?3xI", bool(is_addr), value & 0xFFFFFFFF)


def pack_struct(a) -> bytes:
    """The C bytes of a struct-pointer argument: bytes as given, or an okk Padding / dim2 /
    fp32_or_addr_t / x32_or_addr_t object (so one program serves both sides)."""
    if isinstance(a, (bytes, bytearray)):
        return bytes(a)
    if hasattr(a, "top"):
        return padding(a.top, a.bottom, a.left, a.right)
    if hasattr(a, "is_addr"):
        if a.is_addr:
            return struct.pack("<?3xI", True, a.addr)
        return struct.pack("<?3xI", False, a.bits)
    return dim2(a.h, a.w)
