"""ReduceSum / ReduceMax / ReduceMin, the level-0 ("tensor 高维切分") prototypes:

    ReduceSum(dst, src, sharedTmpBuffer, mask, repeatTime, srcRepStride)
    ReduceMax(dst, src, sharedTmpBuffer, mask, repeatTime, srcRepStride, calIndex=False)   (ReduceMin alike)

Repeat r reads the E = 256 / sizeof(T) elements at ``src + r * srcRepStride * 32`` bytes (blocks
contiguous); the mask (continuous or bit, always set by the call) picks the lanes that take part. Vendor
pages ReduceSum.md / ReduceMax.md / ReduceMin.md; the choices where they are silent are in
docs/ascendc.md. Runs on the level-0 engine's geometry (``repeat.Operand``, ``check_footprint``, ``resolve_mask``).
"""
from __future__ import annotations

import numpy as np

from ..core.errors import ConstraintError
from . import cost
from .context import current
from .reduce_repeat import write_spr
from .repeat import Operand, _read, check_footprint, resolve_mask
from .vector_binary import to
from .args import as_int

INT32_MAX = (1 << 31) - 1
HALF_INDEX_MAX = 65535          # "当输入类型是half的时候，只支持获取最大不超过65535的索引值"


def _align(n: int, per_block: int) -> int:
    return -(-n // per_block) * per_block


def tmp_elements(kind: str, R: int, E: int, per_block: int, cal_index: bool) -> int:
    """sharedTmpBuffer elements the vendor formula asks for (关键特性说明): ReduceSum 方式二 keeps the first
    pass's R sums; ReduceMax/Min keep (value, index) pairs, every pass's output when the index is wanted."""
    if kind == "sum":
        return _align(R, per_block)
    out = 2 * R
    need = _align(out, per_block)
    if not cal_index:
        return need
    while True:                 # the vendor formula always has a second pass (ReduceMax.md example 4)
        out = -(-out // E) * 2
        need += _align(out, per_block)
        if out <= 2:
            return need


def _tree_sum(ctx, x: np.ndarray, dtype) -> np.ndarray:
    """Per-row binary tree (ReduceDataBlock.md 关键特性说明: neighbours added pairwise, level by level), every
    addition rounded to T. x: (rows, E) float32 with E a power of two -> (rows,) float32."""
    while x.shape[1] > 1:
        x = to(ctx, x[:, 0::2] + x[:, 1::2], dtype).astype(np.float32)
    return x[:, 0]


def _sum_passes(R: int, E: int) -> list[int]:
    """Repeats of each VCADD pass: R, then ceil(prev / E) until one value is left."""
    out, r = [R], R
    while r > 1:
        r = -(-r // E)
        out.append(r)
    return out


def _extreme_passes(R: int, E: int) -> list[int]:
    """Repeats of each VCMAX/VCMIN pass: R, then over the (value, index) pairs until one pair is left."""
    out, n = [R], 2 * R
    while n > 2:
        r = -(-n // E)
        out.append(r)
        n = 2 * r
    return out


def level0(api: str, kind: str, dst, src, tmp, mask, repeatTime, srcRepStride, cal_index: bool = False) -> None:
    """kind: "sum", "max" or "min". The caller has checked positions, alignment and dtypes."""
    ctx = current()
    R = as_int(api, "repeatTime", repeatTime, 0, INT32_MAX, "0 <= repeatTime <= INT32_MAX (int32_t)")
    rep = as_int(api, "srcRepStride", srcRepStride, 0, 65535, "0 <= srcRepStride <= 2^16 - 1")
    s = src.dtype.itemsize
    E, per_block = 256 // s, 32 // s
    if ctx.counter_mode:
        raise ConstraintError(api, "mask", f"{api}'s level-0 form runs in Normal mode (SetMaskNorm)", "counter")
    lanes, _ = resolve_mask(api, ctx, mask, True, E, s)
    if R == 0 or lanes is False:                 # NOP: nothing computed, dst untouched
        return ctx.place("PIPE_V", api, 0)
    if cal_index and s == 2 and R * E - 1 > HALF_INDEX_MAX:
        raise ConstraintError(api, "repeatTime", f"with calIndex on half the indices fit in uint16_t "
                              f"(repeatTime * {E} <= {HALF_INDEX_MAX + 1})", R)
    op = Operand("src", src, 1, rep)
    op.shape_for(E)
    check_footprint(api, op, R, E, E, lanes, params="srcRepStride")
    need = tmp_elements(kind, R, E, per_block, cal_index)
    if tmp.size < need:
        raise ConstraintError(api, "sharedTmpBuffer", f"at least {need} elements for repeatTime {R} (the "
                              f"{api} sharedTmpBuffer formula)", tmp.size)
    n_out = 2 if cal_index else 1
    if dst.size < n_out:
        raise ConstraintError(api, "dst", f"room for {n_out} element(s) (value{', index' if cal_index else ''})",
                              dst.size)
    sv = ctx.view(src.addr, (R, op.nblk, op.bpb), (rep * 32, 32, s), src.dtype, api)
    active = None if lanes is None else np.broadcast_to(lanes, (R, E))
    x = _read(sv, None if active is None else active.reshape(R, op.nblk, op.bpb), api).reshape(R, E)
    dv = ctx.view(dst.addr, (1,), None, dst.dtype, api)
    writes = [dv.footprint, ctx.view(tmp.addr, (need,), None, tmp.dtype, api).footprint]
    if kind == "sum":
        v = np.where(active, x, 0).astype(np.float32) if active is not None else x.astype(np.float32)
        v = _tree_sum(ctx, v, src.dtype)                        # pass 1: one sum per repeat
        while v.size > 1:                                       # 方式二: the sums again, E at a time
            pad = np.zeros(_align(v.size, E), np.float32)
            pad[:v.size] = v
            v = _tree_sum(ctx, pad.reshape(-1, E), src.dtype)
        dv.write(v[:1].astype(dst.dtype.np))
        passes = _sum_passes(R, E)
        cycles = sum(cost.vector_cycles("reduce_sum", r, src.dtype.name) for r in passes)
    else:
        # Masked-off lanes never win: fill them with the identity, keep the first index among equals.
        fill = -np.inf if kind == "max" else np.inf
        flat = (np.where(active, x.astype(np.float64), fill) if active is not None else x).reshape(-1)
        i = int(np.argmax(flat) if kind == "max" else np.argmin(flat))
        dv.write(x.reshape(-1)[i:i + 1])
        writes.append(write_spr(ctx, src.dtype, x.reshape(-1)[i:i + 1], i, api))    # GetReduceRepeatMaxMinSpr
        if cal_index:
            it = {2: np.uint16, 4: np.uint32}[dst.dtype.itemsize]
            iv = ctx.view(dst.addr + dst.dtype.itemsize, (1,), None, np.dtype(it), api)
            iv.write(np.array([i], it))
            writes.append(iv.footprint)
        passes = _extreme_passes(R, E)
        cycles = sum(cost.vector_cycles("reduce_maxmin", r, src.dtype.name) for r in passes)
    n = R * E if lanes is None else R * int(np.count_nonzero(lanes))
    ctx.place("PIPE_V", api, cycles, reads=[sv.footprint], writes=writes, nbytes=n * s, elements=n,
              args={"repeats": R, "passes": len(passes), "mask": f"{ctx.mask_high:#x}:{ctx.mask_low:#x}"})
