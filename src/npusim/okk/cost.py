"""Sophgo's own BM1684 cost model (okkernel_cycles.md, verified against libbackend_bm1684.so).

BDC: ``N * ceil((q + C)/64) * ceil(H*W/16) * factor`` cycles, no constant term, q = start NPU (§3).
GDMA: ``trunc_f32((bytes / (min(BW, run) * P*S) + OH) * F)`` in float32 arithmetic (§4).
"""
from __future__ import annotations

import functools

import numpy as np

from . import spec

# instruction mnemonic -> per-block factor, for the fixed-factor instructions (§3 "Instruction-level")
MD_SCALAR, MD_SFU, MD_CMP, MD_LINEAR = "MD_SCALAR", "MD_SFU", "MD_CMP", "MD_LINEAR"
TABLE_LOOKUP, TENSOR_ARITH, TENSOR_GDMA = "TABLE_LOOKUP", "TENSOR_ARITH", "TENSOR_GDMA"

SCALAR_SIMPLE = 1      # MD_SCALAR ops 0-2 (mul, mac, add/sub)
SCALAR_DIV = 30        # MD_SCALAR op 3 (div)
SFU_RSQRT = 27         # MD_SFU op 3
SFU_SIMPLE = 1         # MD_SFU ops 4-6 (fp32 -> int32 conversion among them)
LOOKUP = 24            # TABLE_LOOKUP
LINEAR = 4             # MD_LINEAR
ARITH_SIMPLE, ARITH_MAC, ARITH_DIV, ARITH_COPY = 2, 5, 30, 1   # TENSOR_ARITH


def sfu_taylor(num_series: int) -> int:
    """MD_SFU op 7 (Taylor): 4n + 2."""
    return 4 * num_series + 2


def bdc_blocks(start_npu: int, n: int, c: int, h: int, w: int) -> int:
    """N * ceil((q + C)/64) * ceil(H*W/16): 64 NPUs x 16 fp32 lanes per cycle."""
    return n * (-(-(start_npu + c) // spec.NPU_NUM)) * (-(-(h * w) // 16))


# GDMA kinds: (BW bytes/cycle, P*S, OH, F) from §4's table
GDMA_PARAMS = {
    "S2L": (29.565, 2, 124, 1.1079546),
    "S2S": (29.565, 2, 124, 1.1079546),
    "L2S": (29.565, 2, 41, 1.1079546),
    "L2L": (32.0, 1, 3, 1.0),
    "set_C_system": (29.565, 2, 7, 1.1079546),
    "set_C_local": (32.0, 2, 7, 1.0),
}
GDMA_DIRECTION = {"S2L": 0, "L2S": 1, "S2S": 2, "L2L": 3, "set_C_system": 2, "set_C_local": 0}

_f32 = np.float32


@functools.lru_cache(maxsize=4096)      # float32 scalar arithmetic is ~4 us; kernels repeat their moves
def gdma_cycles(kind: str, nbytes: int, run_bytes: int) -> int:
    bw, ps, oh, f = GDMA_PARAMS[kind]
    den = _f32(min(_f32(bw), _f32(run_bytes))) * _f32(ps)
    t = (_f32(nbytes) / den + _f32(oh)) * _f32(f)
    return int(t)


def gdma_run_bytes(esize: int, shape: tuple, dst_st: tuple, src_st: tuple, dst_local: bool,
                   src_local: bool, fill: bool = False) -> int:
    """Innermost run contiguous in both layouts: W, times H if both h-strides == W, times C if both
    c-strides == H*W and neither side is local (local channels live on different NPUs), N never.
    Copies merge H when h == 1 whatever its stride; fills (set_C) only when the h-stride is W
    (found against libbackend)."""
    n, c, h, w = shape
    run = w
    if (h == 1 and not fill) or (dst_st[2] == w and src_st[2] == w):
        run *= h
        if not (dst_local or src_local) and (c == 1 or (dst_st[1] == h * w and src_st[1] == h * w)):
            run *= c
    return run * esize
