"""MX (OCP microscaling) on NeuronCore-v4: ``nisa.quantize_mx`` and ``nisa.nc_matmul_mx`` with the packed
``float8_e5m2_x4`` / ``float8_e4m3fn_x4`` (four fp8 in 32 bits) and ``float4_e2m1fn_x4`` (four fp4 in 16 bits)
element types and ``float8_e8m0fnu`` scales ([stub] docstrings; layout and golden math as nki-library's
``test/utils/mx_utils.py``).

Packing: element ``j`` of a partition holds the logical values ``4j .. 4j+3``, the first in the lowest
byte (fp8) or nibble (fp4) (npusim's choice: "packs four contiguous FP8 elements" fixes the grouping, not
the bit order). A scale covers 8 partitions x 4 values (one x4 element): for data partition ``p`` of a
tile, its scales sit on partition ``(p // 32) * 32 + (p % 32) // 8`` of the scale tile, same column (each
32-partition quadrant keeps its 4 scale rows at the quadrant's first partitions).
"""
from __future__ import annotations

import ml_dtypes
import numpy as np

from ..core import dtypes as _dt
from ..core.errors import ConstraintError
from . import cost_two as _cost2
from . import rules as R
from .runtime import NkiInstruction, current
from .tensor import MemoryRegion

float8_e5m2_x4 = _dt.DTYPES["float8_e5m2_x4"]
float8_e4m3fn_x4 = _dt.DTYPES["float8_e4m3fn_x4"]
float4_e2m1fn_x4 = _dt.DTYPES["float4_e2m1fn_x4"]
float8_e8m0fnu = ml_dtypes.float8_e8m0fnu

_ELEMENT = {"float8_e5m2_x4": ml_dtypes.float8_e5m2, "float8_e4m3fn_x4": ml_dtypes.float8_e4m3fn,
            "float4_e2m1fn_x4": ml_dtypes.float4_e2m1fn}
_EMAX = {"float8_e5m2_x4": 15, "float8_e4m3fn_x4": 8, "float4_e2m1fn_x4": 2}     # quantize_mx docstring
_SCALE_DTYPES = ("float8_e8m0fnu", "uint8")
E8M0_BIAS = 127


def unpack(raw: np.ndarray, name: str) -> np.ndarray:
    """Packed containers [..., F] -> float32 values [..., F, 4]."""
    if name == "float4_e2m1fn_x4":
        nibbles = np.stack([(raw >> (4 * k)) & 0xF for k in range(4)], axis=-1).astype(np.uint8)
        return nibbles.view(ml_dtypes.float4_e2m1fn).astype(np.float32)
    b = np.ascontiguousarray(raw, dtype=np.uint32).view(np.uint8).reshape(raw.shape + (4,))
    return b.view(_ELEMENT[name]).astype(np.float32)


def pack(values: np.ndarray, name: str) -> np.ndarray:
    """float32 values [..., F, 4] -> packed containers [..., F] (RNE, saturating to the format's max)."""
    el = _dt.dtype(_ELEMENT[name]) if name != "float4_e2m1fn_x4" else None
    if el is not None:
        q = _dt.cast(values.astype(np.float32), el, overflow="saturate")
        return np.ascontiguousarray(q).view(np.uint8).reshape(values.shape).view(np.uint32)[..., 0]
    q = np.clip(values, -6.0, 6.0).astype(ml_dtypes.float4_e2m1fn).view(np.uint8).astype(np.uint16)
    return q[..., 0] | (q[..., 1] << 4) | (q[..., 2] << 8) | (q[..., 3] << 12)


def scale_rows(p: int) -> np.ndarray:
    """The scale-tile partition of each data partition 0..p-1."""
    d = np.arange(p)
    return (d // 32) * 32 + (d % 32) // 8


def _mx_data(api, param, t, want=tuple(_ELEMENT)):
    R.tile(api, param, t)
    if t.buffer is not MemoryRegion.sbuf:
        raise ConstraintError(api, param, "a tile in SBUF", t.buffer)
    if t.tv.dtype.name not in want:
        raise ConstraintError(api, param, "one of " + ", ".join(want), t.tv.dtype.name)


def _scale_tile(api, param, t, data_p, data_f):
    R.tile(api, param, t)
    if t.buffer is not MemoryRegion.sbuf:
        raise ConstraintError(api, param, "a tile in SBUF", t.buffer)
    if t.tv.dtype.name not in _SCALE_DTYPES:
        raise ConstraintError(api, param, "float8_e8m0fnu or uint8 scales", t.tv.dtype.name)
    need = int(scale_rows(data_p)[-1]) + 1
    if t.partitions < need or t.free_size < data_f:
        raise ConstraintError(api, param, f"room for the scales: >= {need} partitions (4 per 32-partition "
                              f"quadrant) and >= {data_f} elements per partition", t.shape)


def _v4(api, run):
    if run.chip.nc_version < 4:
        raise ConstraintError(api, "target", "NeuronCore-v4 (trn3) or newer", run.chip.name)


def _partitions(api, param, p):
    if p % 32 or not 32 <= p <= 128:
        raise ConstraintError(api, param, "a partition size that is a multiple of 32, at most 128", p)


def quantize_mx(dst, src, dst_scale, name=None) -> NkiInstruction:
    """fp16/bf16 ``src`` [P, F] -> MXFP8 ``dst`` [P, F/4] (x4) and one e8m0 scale per 8 x 4 group.

    Scale: ``X = 2^(floor(log2 amax) - (Emax - 1))`` (twice OCP's, the docstring's formula; Emax 8 for
    e4m3fn, 15 for e5m2), ``2^-127`` for an all-zero group; values ``src / X`` rounded (RNE) to the fp8
    format. VectorE, ``max(64, N)`` cycles over src's N elements per partition (unpublished: assumed)."""
    api = "nisa.quantize_mx"
    run = current(api)
    _v4(api, run)
    R.tile(api, "src", src)
    if src.buffer is not MemoryRegion.sbuf:
        raise ConstraintError(api, "src", "a tile in SBUF", src.buffer)
    if src.tv.dtype.name not in ("float16", "bfloat16"):
        raise ConstraintError(api, "src", "float16 or bfloat16", src.tv.dtype.name)
    _mx_data(api, "dst", dst, ("float8_e5m2_x4", "float8_e4m3fn_x4"))
    p, f = src.partitions, src.free_size
    _partitions(api, "src", p)
    if f % 4:
        raise ConstraintError(api, "src", "a free size that is a multiple of 4", f)
    if dst.partitions != p or dst.free_size != f // 4:
        raise ConstraintError(api, "dst", f"[{p}, {f // 4}]: src's partitions, a quarter of its free size",
                              dst.shape)
    _scale_tile(api, "dst_scale", dst_scale, p, f // 4)
    x = src.read(api).astype(np.float32).reshape(p // 8, 8, f // 4, 4)
    amax = np.abs(x).max(axis=(1, 3))                                       # [P/8, F/4]
    e = np.frexp(amax)[1].astype(np.int64) - 1                              # floor(log2 amax)
    name_ = dst.tv.dtype.name
    biased = np.where(amax > 0, e - (_EMAX[name_] - 1) + E8M0_BIAS, 0)
    biased = np.clip(biased, 0, 254)
    scale = np.exp2(biased.astype(np.float64) - E8M0_BIAS)
    q = x / scale[:, None, :, None]
    dst.write(pack(q.reshape(p, f // 4, 4), name_).reshape(dst.shape))
    rows = scale_rows(p)[::8]                                               # one scale row per 8 partitions
    sv = dst_scale.tv.array().reshape(dst_scale.partitions, dst_scale.free_size)
    sv[rows, : f // 4] = biased.astype(np.uint8).view(sv.dtype) if sv.dtype != np.uint8 else biased
    where = np.zeros(sv.shape, bool)
    where[rows, : f // 4] = True
    root = dst_scale.root or dst_scale
    dst_scale._fresh_init(root)
    dst_scale.tv.mark_written(where.reshape(dst_scale.shape))
    return run.issue(api, "vector", float(max(64, f)), reads=[src], writes=[dst, dst_scale], elements=p * f)


def nc_matmul_mx(dst, stationary, moving, stationary_scale, moving_scale, tile_position=None, tile_size=None,
                 accumulate=None, name=None) -> NkiInstruction:
    """``dst[M, N] = Σ_k Σ_q S[k, m, q]·sS · Mv[k, n, q]·sM`` on TensorE: the x4 dimension joins the partition
    dim in the contraction; products and sums in fp32 into PSUM (accumulate as nc_matmul).
    Cost: a MultiplyMoving of N columns, ``max(64, N)`` cycles (4 values per PE row per cycle: the
    "8x128 MXFP8" width against "2x128" for bf16)."""
    from .isa_matmul import _accumulate_into, _check_tiling, _psum_dst, matmul_perf_mode
    api = "nisa.nc_matmul_mx"
    run = current(api)
    chip = run.chip
    _v4(api, run)
    _mx_data(api, "stationary", stationary)
    _mx_data(api, "moving", moving)
    k, m, n = stationary.partitions, stationary.free_size, moving.free_size
    if moving.partitions != k:
        raise ConstraintError(api, "moving", "stationary and moving have the same partition size",
                              (stationary.shape, moving.shape))
    _partitions(api, "stationary", k)
    if m % 2 or m > 128:
        raise ConstraintError(api, "stationary", "an even free size of at most 128", m)
    _psum_dst(api, "dst", dst, chip, allow_multi_bank=True)
    dname = dst.tv.dtype.name
    if dname not in ("float32", "bfloat16"):
        raise ConstraintError(api, "dst", "float32 or bfloat16", dname)
    nmax = 4096 if dname == "float32" else 8192
    if n > nmax:
        raise ConstraintError(api, "moving", f"a free size of at most {nmax} for a {dname} dst", n)
    if dst.partitions != m or dst.free_size != n:
        raise ConstraintError(api, "dst", f"[{m}, {n}] (stationary free size, moving free size)", dst.shape)
    _scale_tile(api, "stationary_scale", stationary_scale, k, m)
    _scale_tile(api, "moving_scale", moving_scale, k, n)
    if (tile_position is None) != (tile_size is None):
        raise ConstraintError(api, "tile_size", "tile_position and tile_size both set or both unset",
                              (tile_position, tile_size))
    if tile_size is not None:
        if len(tuple(tile_size)) != 2 or tuple(tile_size)[1] != 128 or tuple(tile_position)[1] != 0:
            raise ConstraintError(api, "tile_size", "row tiling only: (row_size, 128) at (start_row, 0)",
                                  (tile_position, tile_size))
        _check_tiling(api, chip, tile_position, tile_size, k, m, matmul_perf_mode.none)
    rows = scale_rows(k)
    ss = _scales(stationary_scale, api, k, m, rows)
    ms = _scales(moving_scale, api, k, n, rows)
    s = unpack(stationary.read(api).reshape(k, m), stationary.tv.dtype.name) * ss[:, :, None]
    mv = unpack(moving.read(api).reshape(k, n), moving.tv.dtype.name) * ms[:, :, None]
    result = np.einsum("kiq,kjq->ij", s, mv, dtype=np.float32)
    _accumulate_into(dst, result, accumulate, api, run)
    cycles = _cost2.matmul(n, False, 1.0)
    return run.issue(api, "tensor", cycles, reads=[stationary, moving, stationary_scale, moving_scale],
                     writes=[dst], elements=dst.size,
                     args={"K": k, "M": m, "N": n, "dtype": f"{stationary.tv.dtype.name}x{moving.tv.dtype.name}"})


def _scales(t, api, p, f, rows) -> np.ndarray:
    """Per data partition and x4 column, the scale factor 2^(e - 127) as float32 [p, f]."""
    raw = t.tv.array().reshape(t.partitions, t.free_size)
    root = t.root or t
    t._fresh_init(root)          # a new tile's map is an earlier tile's until cleared
    bad = t.tv.uninitialized_mask() if not root.full else None
    if bad is not None and bad.reshape(t.partitions, t.free_size)[rows, :f].any():
        t.read(api)                                       # warns or raises as any never-written read
    e = raw.view(np.uint8)[rows, :f].astype(np.float64)
    return np.exp2(e - E8M0_BIAS).astype(np.float32)


__all__ = ["quantize_mx", "nc_matmul_mx", "float8_e5m2_x4", "float8_e4m3fn_x4", "float4_e2m1fn_x4",
           "float8_e8m0fnu"]
