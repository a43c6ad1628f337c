"""Cycle costs of the part-two ops (reference nki.md §2.5 and §4.1; every constant cited in docs).

``N`` is elements per partition (the free size): the partition axis is parallel, the free axis is time.
"""
from __future__ import annotations

import math

from .cost import GPSIMD_START, MIN_II, _stride_factor

MM_INIT_LATENCY = 64        # TensorE MultiplyMoving initiation interval floor (nki_perf_guide: MM_II)
FP32_MATMUL_FACTOR = 4      # fp32 matmul "about 4x" (arch guide; nc_matmul docstring)
LS_SPEEDUP = 4              # LoadStationary "up to 4x faster" than an MM of the same free size
ACT_READ_ACCUMULATOR = 64   # activation_reduce / tensor_scalar_reduce read-out: + MIN_II
BN_AGGR_PER_TUPLE = 13      # bn_aggr: max(MIN_II, 13 * (N / 3))
RECIPROCAL_PER_ELEM = 8     # VectorE reciprocal: max(MIN_II, 8N)


def matmul(n_moving: int, fp32: bool, factor: float = 1.0) -> float:
    """MultiplyMoving: max(N_moving, 64) TensorE cycles, x4 for fp32 operands (the event's cost;
    LoadStationary is placed separately, in the background)."""
    c = max(n_moving, MM_INIT_LATENCY) * (FP32_MATMUL_FACTOR if fp32 else 1)
    return float(c * factor)


def load_stationary(m: int, fp32: bool) -> float:
    """LoadStationary of a [K, M] stationary: M/4 cycles ("up to 4x faster" than an MM of the same free
    size; nki_perf_guide: LS_II ~= 128/4 = 32), x4 for fp32 like the MM. Overlapped with the previous
    MultiplyMoving (see isa_matmul.nc_matmul, LoadStationary)."""
    return float(math.ceil(m / LS_SPEEDUP) * (FP32_MATMUL_FACTOR if fp32 else 1))


def tensor_transpose(p: int, f: int) -> float:
    """TensorE transpose: max(P, min(64, F))."""
    return float(max(p, min(MM_INIT_LATENCY, f)))


def one_pass(n: int, *tiles) -> float:
    """A Vector/Scalar pass over N elements per partition: max(MIN_II, N) (stride penalty included)."""
    return float(max(MIN_II, n * _stride_factor(*tiles)))


_NARROW = ("bfloat16", "float16", "float8_e4m3", "float8_e4m3fn", "float8_e5m2")


def scalar_pass(chip, n: int, src, dst) -> float:
    """ScalarE one pass: max(MIN_II, N); trn3's ScalarE streams 256 bf16/fp16/fp8 elements per cycle
    against 128 for other types (§4.1 engine table), so N/2 there when input and output are narrow."""
    n = n * _stride_factor(src, dst)
    if chip.nc_version >= 4 and src.tv.dtype.name in _NARROW and dst.tv.dtype.name in _NARROW:
        n = math.ceil(n / 2)
    return float(max(MIN_II, n))


def with_readout(n: int, *tiles) -> float:
    """An op plus an accumulator read-out: max(MIN_II, N) + MIN_II."""
    return one_pass(n, *tiles) + ACT_READ_ACCUMULATOR


def two_pass(n: int, *tiles) -> float:
    """Two streamed inputs: max(MIN_II, 2N)."""
    return float(max(MIN_II, 2 * n * _stride_factor(*tiles)))


def gpsimd(n: int) -> float:
    """iota / affine_select: GPSIMD_START + N."""
    return float(GPSIMD_START + n)


def reduce(n: int, half_fast: bool, *tiles) -> float:
    """tensor_reduce: N, or N/2 for bf16 in/out with add/max; at least MIN_II."""
    n = n * _stride_factor(*tiles)
    if half_fast:
        n = math.ceil(n / 2)
    return float(max(MIN_II, n))


def bn_aggr(n: int) -> float:
    return float(max(MIN_II, BN_AGGR_PER_TUPLE * math.ceil(n / 3)))


def reciprocal(n: int) -> float:
    return float(max(MIN_II, RECIPROCAL_PER_ELEM * n))
