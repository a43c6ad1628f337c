"""C signatures of the okk_* functions the oracle calls (from okk.h, reference okkernel.md §3).

Argument kinds: ``L`` local_addr_t (u32), ``S`` system_addr_t (u64), ``D4`` const dim4* (a 4-tuple or
None for NULL), ``i`` int, ``x32``/``x16``/``x8`` the unions, which the x86-64 SysV ABI passes like an
unsigned integer of that width (every member is an integer or a float packed in one eightbyte, so the
union is classed INTEGER), given here as the raw bits.
"""

from __future__ import annotations

_UNARY = ("L", "L", "D4")
_WORKED = ("L", "L", "L", "D4")
_STRIDED = ("L", "L", "D4", "D4", "D4")

SIGNATURES: dict[str, tuple[str, ...]] = {
    "okk_initialize": (),
    "okk_poll": (),
    "okk_parallel_start": (),
    "okk_parallel_end": (),
    # seed 000: FP32 unary functions
    "okk_bdc_rsqrt": _UNARY,
    "okk_bdc_sqrt": _UNARY,
    "okk_bdc_taylor_exp": _UNARY + ("i",),
    "okk_bdc_lookup_exp": _UNARY,
    "okk_bdc_exp": _WORKED,
    "okk_bdc_exp_tunable": _WORKED + ("i",),
    "okk_bdc_sigmoid": _WORKED,
    "okk_bdc_sigmoid_tunable": _WORKED + ("i",),
    "okk_bdc_tanh": _WORKED,
    "okk_bdc_tanh_tunable": _WORKED + ("i",),
    "okk_bdc_reciprocal": _STRIDED,
    "okk_bdc_neg": _STRIDED,
}

# seed 001: GDMA functions
for _bits, _x in ((32, "x32"), (16, "x16"), (8, "x8")):
    SIGNATURES[f"okk_gdma_{_bits}bit_cpy_S2L"] = ("L", "S", "D4", "D4", "D4")
    SIGNATURES[f"okk_gdma_{_bits}bit_cpy_L2S"] = ("S", "L", "D4", "D4", "D4")
    SIGNATURES[f"okk_gdma_{_bits}bit_cpy_L2L"] = ("L", "L", "D4", "D4", "D4")
    SIGNATURES[f"okk_gdma_{_bits}bit_cpy_S2S"] = ("S", "S", "D4", "D4", "D4")
    SIGNATURES[f"okk_gdma_{_bits}bit_set_C_system"] = ("S", _x, "D4", "D4")
    SIGNATURES[f"okk_gdma_{_bits}bit_set_C_local"] = ("L", _x, "D4", "D4")
SIGNATURES["okk_gdma_32bit_matrix_S2L"] = ("L", "S", "i", "i", "i", "i")
SIGNATURES["okk_gdma_32bit_matrix_L2S"] = ("S", "L", "i", "i", "i", "i")

from .signatures_part_two import PART_TWO  # noqa: E402  (okk part two: binary, NN, fixed-point ops)
SIGNATURES.update(PART_TWO)
