"""Cycle costs per instruction (reference nki.md §2.5 and §4; each constant cited in docs/nki.md).

``N`` is the number of elements per partition: the P axis is the parallel dim, the F axis the time dim,
so an instruction on fewer than 128 partitions costs the same as one on 128.
"""
from __future__ import annotations

import math

from .tensor import SBUF

MIN_II = 64                 # instruction initiation interval, engine cycles ([SDK@2.26] ISA docstrings)
GPSIMD_START = 150          # GpSimd instruction start (iota 150+N, affine_select GPSIMD_START+N)
GPSIMD_RSQRT_SLOWDOWN = 4   # GpSimd rsqrt: "4x lower" throughput (nki.api.shared.rst, engine selection)
STRIDE_PENALTY_BYTES = 16   # innermost F stride >= 16 B halves engine bandwidth (trn1 arch guide)
MM_INIT = 64                # matmul initiation latency (TensorE cycles)
FP32_MATMUL_FACTOR = 4      # fp32 matmul costs ~4x
PARTITIONS_PER_DMA_ENGINE = 8   # each of the 16 DMA engines serves 128/16 partitions

_HALF = ("bfloat16", "float16")


def _half(*tiles) -> bool:
    return all(t.tv.dtype.name in _HALF for t in tiles)


def _inner_contiguous(t) -> bool:
    v = t.tv
    return len(v.shape) < 2 or v.shape[-1] == 1 or v.strides[-1] == v.dtype.itemsize


def _stride_factor(*tiles) -> int:
    for t in tiles:
        v = t.tv
        if len(v.shape) >= 2 and v.shape[-1] > 1 and abs(v.strides[-1]) >= STRIDE_PENALTY_BYTES:
            return 2
    return 1


#: NC-v3+ VectorE streams 256 elements/cycle for dtypes outside the 16-bit (trn3: and fp8) class, i.e.
#: 2 per partition per cycle where NC-v2 streams 1 (trainium2_arch.rst / trainium3_arch.rst engine tables:
#: "512 bf16/fp16, 256 other"). The 16-bit class reaches 512 only in the perf modes below.
WIDE_VECTOR_BASELINE = 2
_FP8 = ("float8_e4m3", "float8_e4m3fn", "float8_e5m2")


def _fast_class(chip, *tiles) -> bool:
    """Every operand is in the Vector engine's 512-elements/cycle dtype class on this chip."""
    names = _HALF + _FP8 if chip.nc_version >= 4 else _HALF
    return all(t.tv.dtype.name in names for t in tiles)


def vector_perf_mode(chip, kind: str, srcs, dst) -> int:
    """NC-v3+ VectorE speed-up over NC-v2's one element per partition per cycle: the perf modes
    (trainium2_arch.rst) 4x/2x for one-input ops and 2x for tensor_tensor when every operand is 16-bit
    (trn3: or fp8); otherwise the 256-elements/cycle baseline, 2x for one-input ops (tensor_tensor's two
    reads then cost N, as its 16-bit 2x mode)."""
    if chip.nc_version < 3:
        return 1
    if not _fast_class(chip, *srcs, dst):
        return WIDE_VECTOR_BASELINE
    in_psum = any(t.in_psum for t in (*srcs, dst))
    if kind == "one_input":
        if not in_psum and all(_inner_contiguous(t) for t in (*srcs, dst)):
            return 4
        return 2
    if kind == "two_input" and all((t.buffer is SBUF) for t in srcs):
        return 2
    return 1


_ONE_INPUT_CACHE: dict = {}


def one_input(chip, engine: str, src, dst, slowdown: int = 1) -> float:
    """tensor_scalar, tensor_copy, activation-like ops: max(MIN_II, N) (one op or two cost the same)."""
    sv, dv = src.tv, dst.tv
    key = (chip.nc_version, engine, slowdown, sv.shape, sv.strides, sv.dtype.name, src.in_psum,
           dv.shape, dv.strides, dv.dtype.name, dst.in_psum)
    c = _ONE_INPUT_CACHE.get(key)
    if c is None:
        if len(_ONE_INPUT_CACHE) > 4096:
            _ONE_INPUT_CACHE.clear()
        c = _ONE_INPUT_CACHE[key] = _one_input(chip, engine, src, dst, slowdown)
    return c


def _one_input(chip, engine: str, src, dst, slowdown: int) -> float:
    n = src.free_size * slowdown * _stride_factor(src, dst)
    if engine == "vector":
        n = math.ceil(n / vector_perf_mode(chip, "one_input", (src,), dst))
    return float(max(MIN_II, n))


def two_input(chip, engine: str, a, b, dst) -> float:
    """tensor_tensor: max(MIN_II, 2N); N when one input is in PSUM or in VectorE's trn2 2x mode."""
    n = a.free_size * _stride_factor(a, b, dst)
    reads = 2 * n
    if (a.in_psum) != (b.in_psum):
        reads = n
    elif engine == "vector" and vector_perf_mode(chip, "two_input", (a, b), dst) == 2:
        reads = n
    return float(max(MIN_II, reads))


def memset(chip, dst, value_is_zero: bool) -> float:
    """max(MIN_II, N); a zero fill into bf16/fp16 takes N/2."""
    n = dst.free_size
    if value_is_zero and _half(dst):
        n = math.ceil(n / 2)
    return float(max(MIN_II, n))


def matmul(n_stationary: int, n_moving: int, fp32: bool) -> float:
    """nc_matmul (for the TensorE ops): max(min(64, N_stationary), N_moving), x4 for fp32."""
    c = max(min(MM_INIT, n_stationary), n_moving)
    return float(c * (FP32_MATMUL_FACTOR if fp32 else 1))


def dma_ns(chip, nbytes: int, engines: int) -> float:
    """~1.3 us fixed + bytes over the achieved bandwidth of the DMA engines used (one per 8 partitions)."""
    engines = max(1, min(chip.dma_queues, engines))
    return chip.dma_fixed_ns + nbytes / (chip.dma_bytes_per_ns * engines)
