"""The one level-0 vector engine every vector API runs on (ascendc.md §1).

One repeat reads 8 datablocks of 32 B per operand of the widest type; E = 256 / max(sizeof) elements.
Element i of repeat r of an operand with element size s lives at byte
``base + r*repStride*32 + (i // (32/s))*blkStride*32 + (i % (32/s))*s``: that is a 3-D strided view
(R, blocks, elements per block), so each operand is one zero-copy numpy view and the whole instruction is
a handful of whole-array numpy calls. Masked-off lanes are never written.
"""
from __future__ import annotations

import enum
import functools
import warnings

import numpy as np

from ..core.errors import ConstraintError, UninitializedReadError, UninitializedReadWarning
from ..core.options import options
from ..core.view import TensorView, views_overlap
from . import cost
from .auto_sync import place_auto
from .context import FULL64, current
from .mask import active_lanes, continuous_bits
from .tensor import LocalTensor
from .args import as_int
from .rules import UINT32_MAX, UINT64_MAX, check_repeat, check_u8, check_u16


class BinaryRepeatParams:
    __slots__ = ("dstBlkStride", "src0BlkStride", "src1BlkStride", "dstRepStride", "src0RepStride",
                 "src1RepStride")

    def __init__(self, dstBlkStride=1, src0BlkStride=1, src1BlkStride=1, dstRepStride=8, src0RepStride=8,
                 src1RepStride=8):
        api = "BinaryRepeatParams"
        self.dstBlkStride = check_u8(api, "dstBlkStride", dstBlkStride)
        self.src0BlkStride = check_u8(api, "src0BlkStride", src0BlkStride)
        self.src1BlkStride = check_u8(api, "src1BlkStride", src1BlkStride)
        self.dstRepStride = check_u8(api, "dstRepStride", dstRepStride)
        self.src0RepStride = check_u8(api, "src0RepStride", src0RepStride)
        self.src1RepStride = check_u8(api, "src1RepStride", src1RepStride)

    def key(self) -> tuple:
        return (self.dstBlkStride, self.src0BlkStride, self.src1BlkStride, self.dstRepStride, self.src0RepStride,
                self.src1RepStride)


class UnaryRepeatParams:
    __slots__ = ("dstBlkStride", "srcBlkStride", "dstRepStride", "srcRepStride")

    def __init__(self, dstBlkStride=1, srcBlkStride=1, dstRepStride=8, srcRepStride=8):
        api = "UnaryRepeatParams"
        self.dstBlkStride = check_u16(api, "dstBlkStride", dstBlkStride)
        self.srcBlkStride = check_u16(api, "srcBlkStride", srcBlkStride)
        self.dstRepStride = check_u8(api, "dstRepStride", dstRepStride)
        self.srcRepStride = check_u8(api, "srcRepStride", srcRepStride)

    def key(self) -> tuple:
        return (self.dstBlkStride, self.srcBlkStride, self.dstRepStride, self.srcRepStride)


class Operand:
    """One tensor operand of an instruction with its block and repeat strides (in 32 B datablocks)."""
    __slots__ = ("name", "t", "blk", "rep", "s", "nblk", "bpb")

    def __init__(self, name: str, t, blk: int = 1, rep: int = 8):
        self.name, self.t, self.blk, self.rep = name, t, int(blk), int(rep)

    def shape_for(self, E: int) -> None:
        self.s = self.t.dtype.itemsize
        self.nblk = max(1, E * self.s // 32)
        self.bpb = E // self.nblk

    def contiguous(self) -> bool:
        return (self.blk == 1 or self.nblk == 1) and self.rep * 32 == self.nblk * self.bpb * self.s


@functools.lru_cache(maxsize=4096)
def _counter_active(R: int, E: int, N: int) -> np.ndarray:
    a = (np.arange(R * E) < N).reshape(R, E)
    a.setflags(write=False)
    return a


def _extent(op: Operand, R: int, last_cols: int, other_cols: int, lanes) -> int:
    """Bytes from the tensor start to the end of the last active element (strides are unsigned)."""
    def end(r: int, i: int) -> int:
        return r * op.rep * 32 + (i // op.bpb) * op.blk * 32 + (i % op.bpb) * op.s + op.s
    if lanes is not None:
        idx = np.flatnonzero(lanes)
        if idx.size == 0:
            return 0
        e = (idx // op.bpb) * op.blk * 32 + (idx % op.bpb) * op.s + op.s
        return (R - 1) * op.rep * 32 + int(e.max())
    # blkStride 0 aliases the blocks: then the widest in-block offset, not the last lane, ends furthest.
    best = max(end(R - 1, last_cols - 1), end(R - 1, min(op.bpb, last_cols) - 1))
    if R > 1 and other_cols:
        best = max(best, end(R - 2, other_cols - 1), end(R - 2, min(op.bpb, other_cols) - 1))
    return best


def check_footprint(api: str, op: Operand, R: int, last_cols: int, other_cols: int, lanes,
                    mode: str = "mask", params: str = "strides") -> None:
    """The CPU debug mode's "check instr failed": the repeats' footprint lies inside the LocalTensor."""
    ext = _extent(op, R, last_cols, other_cols, lanes)
    if ext > op.t.size * op.s:
        raise ConstraintError(api, op.name, f"Failed to pass {api} {mode} mode check: the footprint of repeat, "
                              f"{params} and mask ({ext} bytes) lies inside the LocalTensor "
                              f"({op.t.size * op.s} bytes) (check instr failed)", ext)


def _read(view: TensorView, active, api: str) -> np.ndarray:
    """The operand's values; never-written *active* elements read as poison (or raise)."""
    if active is None or not options().track_init:
        return view.read(api)
    a = view.array()
    bad = view.uninitialized_mask()
    if bad is None:
        return a
    bad &= np.broadcast_to(active, bad.shape)
    if not bad.any():
        return a
    n = int(np.count_nonzero(bad)) * view.dtype.itemsize
    err = UninitializedReadError(view.memory.name, view.memory.base + view.offset, n, api)
    if options().uninitialized_is_error():
        raise err
    warnings.warn(f"{err} (they read as poison)", UninitializedReadWarning, stacklevel=4)
    a = a.copy()
    a[bad] = view.poison()
    return a


def _write_in_repeat_order(v: TensorView, op: Operand, res, active) -> None:
    """The destination's repeats overlap each other: the hardware runs repeats in order, so a later
    repeat's write wins. One small view per repeat (rare: only overlapping destination strides)."""
    for r in range(v.shape[0]):
        rv = TensorView(v.memory, v.offset + r * op.rep * 32, v.shape[1:], v.strides[1:], v.dtype)
        val = res if res.ndim == 0 else res[r]
        act = None if active is None else (active[0] if active.shape[0] == 1 else active[r])
        rv.write(val, where=act)


def _nop(api: str) -> None:
    current().place("PIPE_V", api, 0)


def resolve_mask(api: str, ctx, mask, is_set_mask: bool, E: int, width_bytes: int):
    """-> (lanes or None, counter N or None). Applies isSetMask's write of the mask register."""
    if is_set_mask:
        if isinstance(mask, (list, tuple)):
            if len(mask) != 2:
                raise ConstraintError(api, "mask", "uint64_t mask[2] = {low, high}", mask)
            low, high = (as_int(api, "mask", mask[0], rule="uint64_t mask[2] of integers"),
                         as_int(api, "mask", mask[1], rule="uint64_t mask[2] of integers"))
            for v in (low, high):
                if not 0 <= v <= UINT64_MAX:
                    raise ConstraintError(api, "mask", "each word a uint64_t", mask)
            if ctx.counter_mode:
                if low > UINT32_MAX:
                    raise ConstraintError(api, "mask", "in counter mode the count mask[0] <= UINT32_MAX", low)
                high = 0
            elif width_bytes == 4 and high:
                raise ConstraintError(api, "mask", "for 32-bit operands mask[1] == 0 (64 lanes)", mask)
            elif width_bytes == 8 and (high or low > UINT32_MAX):
                raise ConstraintError(api, "mask", "for 64-bit operands mask[1] == 0 and mask[0] <= UINT32_MAX",
                                      mask)
        else:
            n = as_int(api, "mask", mask, rule="an integer mask (or uint64_t mask[2])")
            if ctx.counter_mode:
                if not 0 <= n <= UINT32_MAX:
                    raise ConstraintError(api, "mask", "in counter mode 0 <= mask <= UINT32_MAX", n)
                high, low = 0, n
            else:
                if not 0 <= n <= E:
                    raise ConstraintError(api, "mask", f"0 <= mask <= {E} (256 / sizeof of the wider operand) in "
                                          "Normal mode", n)
                high, low = continuous_bits(n)
        ctx.mask_high, ctx.mask_low = high, low
    if ctx.counter_mode:
        return None, ctx.mask_low
    if ctx.mask_high == 0 and ctx.mask_low == 0:
        if ctx.soc.mask_zero_is_error:
            raise ConstraintError(api, "mask", f"a nonzero mask in Normal mode on {ctx.soc.name}", 0)
        return False, None
    lanes = active_lanes(ctx.mask_high, ctx.mask_low, E)
    if lanes is not None and not lanes.any():      # set bits only above lane E: no lane is active
        if ctx.soc.mask_zero_is_error:
            raise ConstraintError(api, "mask", f"a mask enabling some of the {E} lanes on {ctx.soc.name}",
                                  (ctx.mask_high, ctx.mask_low))
        return False, None
    return lanes, None


def level0(api: str, kind: str, dsts, srcs, compute, E: int, mask, repeat_time, is_set_mask: bool,
           cost_dtype: str, overlap_ok=None) -> None:
    """A level-0 call (mask + repeatTime + repeat params) in Normal or Counter mode. The caller has checked
    each operand with rules.check_vector_tensor (position, 32-byte alignment)."""
    ctx = current()
    for op in dsts:
        if op.blk == 0:
            raise ConstraintError(api, op.name.replace("Local", "") + "BlkStride",
                                  "dstBlkStride = 0 is undefined behaviour", 0)
    R = check_repeat(api, repeat_time)
    width = max(op.t.dtype.itemsize for op in (*dsts, *srcs))
    lanes, N = resolve_mask(api, ctx, mask, is_set_mask, E, width)
    if N is not None:                          # counter mode: repeatTime ignored
        if N == 0:
            return _nop(api)
        R = -(-N // E)
        return _execute(api, kind, dsts, srcs, compute, E, R, None, N, cost_dtype, overlap_ok, [R])
    if R == 0 or lanes is False:
        return _nop(api)
    _execute(api, kind, dsts, srcs, compute, E, R, lanes, None, cost_dtype, overlap_ok, [R])


def count_form(api: str, kind: str, dsts, srcs, compute, E: int, count, cost_dtype: str, overlap_ok=None) -> None:
    """The "first count elements" call: counter mode with contiguous strides, then mask full, Normal mode.
    The caller has checked each operand with rules.check_vector_tensor."""
    ctx = current()
    for op in (*dsts, *srcs):
        op.blk = 1                                 # rep set below from the operand's width
    N = as_int(api, "count", count, 0, UINT32_MAX, "0 <= count <= UINT32_MAX")
    for op in (*dsts, *srcs):
        op.shape_for(E)
        op.rep = op.nblk
        if N > op.t.size:
            raise ConstraintError(api, op.name, f"Failed to pass {api} calcount mode check: count <= the "
                                  f"LocalTensor's {op.t.size} elements (check instr failed)", N)
    try:
        if N == 0:
            return _nop(api)
        R = -(-N // E)
        if ctx.soc.counter_mode:
            instrs = [R]
        else:                                      # 910A: 255-repeat chunks, then a masked tail
            full, tail = divmod(N, E)
            instrs = [cost.MAX_REPEAT] * (full // cost.MAX_REPEAT) + ([full % cost.MAX_REPEAT] if full % cost.MAX_REPEAT else [])
            instrs += [1] if tail else []
        _execute(api, kind, dsts, srcs, compute, E, R, None, N, cost_dtype, overlap_ok, instrs)
    finally:
        ctx.counter_mode = False
        ctx.mask_high = ctx.mask_low = FULL64


class _Plan:
    """Everything about one instruction except the data: views, active lanes, cost. Cached per core by
    geometry, so a kernel's loop pays validation and bookkeeping once per distinct call shape."""
    __slots__ = ("views", "actives", "layout", "nd", "ordered", "cycles", "n", "nbytes", "reads", "writes", "args",
                 "simple", "arrays")


def _plan(ctx, api, kind, dsts, srcs, E, R, lanes, N, cost_dtype, overlap_ok, instrs) -> _Plan:
    ops = (*dsts, *srcs)
    for op in ops:
        op.shape_for(E)
    if N is not None:
        last_cols, other_cols = N - (R - 1) * E, E
    else:
        last_cols = other_cols = E
    mode = "calcount" if N is not None and lanes is None else "mask"
    for op in ops:
        check_footprint(api, op, R, last_cols, other_cols, lanes, mode)
    flat = lanes is None and all(op.contiguous() for op in ops)
    if flat:
        n = N if N is not None else R * E
        views = [ctx.view(op.t.addr, (n,), None, op.t.dtype, api) for op in ops]
        actives = [None] * len(ops)
        layout = (n,)
    else:
        views = [ctx.view(op.t.addr, (R, op.nblk, op.bpb), (op.rep * 32, op.blk * 32, op.s), op.t.dtype, api)
                 for op in ops]
        act = lanes if lanes is not None else (None if N is None or N == R * E else _counter_active(R, E, N))
        actives = [None if act is None else act.reshape((-1, op.nblk, op.bpb)) for op in ops]
        layout = (R, E)
        if act is None:
            n = R * E
        else:
            n = int(np.count_nonzero(act)) * (R if act.ndim == 1 else 1)
    nd = len(dsts)
    # Overlap rules (ascendc.md §1.8): within a repeat src and dst overlap 100% or not at all.
    for i, d in enumerate(dsts):
        for j, s in enumerate(srcs):
            dv, sv = views[i], views[nd + j]
            if not dv.footprint.overlaps(sv.footprint):
                continue
            same = (d.t.addr == s.t.addr and d.s == s.s and d.blk == s.blk and d.rep == s.rep)
            if same or (overlap_ok is not None and overlap_ok(d, s)):
                continue
            if views_overlap(dv, sv):
                raise ConstraintError(api, s.name, "source and destination overlap completely or not at all, "
                                      "and no repeat reads what an earlier repeat wrote", (d.name, s.name))
    p = _Plan()
    p.views, p.actives, p.layout, p.nd, p.n = views, actives, layout, nd, n
    p.ordered = [not flat and R > 1 and op.rep * 32 < (op.nblk - 1) * op.blk * 32 + op.bpb * op.s for op in dsts]
    bf = 1
    if not flat:
        bf = cost.bank_factor([op.t.addr + k * op.blk * 32 for op in srcs for k in range(op.nblk)],
                              [op.t.addr + k * op.blk * 32 for op in dsts for k in range(op.nblk)])
    p.cycles = sum(cost.vector_cycles(kind, r, cost_dtype, bf) for r in instrs)
    p.nbytes = n * sum(op.s for op in ops)
    p.reads = [v.footprint for v in views[nd:]]
    p.writes = [v.footprint for v in views[:nd]]
    p.args = {"repeats": R, "mask": "counter" if N is not None else f"{ctx.mask_high:#x}:{ctx.mask_low:#x}"}
    p.simple = flat and nd == 1 and len(views) > 1
    if p.simple:
        _dense_parts(p)
    return p


def _dense_parts(p: _Plan) -> None:
    """What the simple path touches per call, built once: each (dense, 1-D) view's numpy array. The
    memories' data arrays are never rebound, so these stay valid for the plan's life."""
    p.arrays = [v.array() for v in p.views]


def _execute(api, kind, dsts, srcs, compute, E, R, lanes, N, cost_dtype, overlap_ok, instrs) -> None:
    ctx = current()
    key = (api, E, R, N, None if lanes is None else (ctx.mask_high, ctx.mask_low), tuple(instrs),
           tuple((op.name, op.t.addr, op.t.size, op.t.dtype.name, op.blk, op.rep) for op in dsts),
           tuple((op.name, op.t.addr, op.t.size, op.t.dtype.name, op.blk, op.rep) for op in srcs))
    plans = ctx.plans
    p = plans.get(key)
    if p is None:
        p = _plan(ctx, api, kind, dsts, srcs, E, R, lanes, N, cost_dtype, overlap_ok, instrs)
        if len(plans) > 4096:
            plans.clear()
        plans[key] = p
    _run(ctx, api, p, compute, dsts)
    ctx.fast_pending = (api, p, compute, dsts)


def _run(ctx, api, p: _Plan, compute, dsts) -> None:
    views, actives, nd, layout = p.views, p.actives, p.nd, p.layout
    if p.simple:                     # dense operands, every lane active, one destination: the common call
        # TensorView.read / write split on the plan's prebuilt arrays: the core's init check (remembered on
        # the plan's views until their memory's generation moves) and, when it fails, the view's own read,
        # which reports the never-written bytes exactly as the uncached path does: raise, or warn and give
        # poison (in a copy: a read never changes the source's memory).
        arrays = p.arrays
        track = options().track_init
        if track:
            for j in range(1, len(arrays)):
                if not views[j].is_fully_written():
                    if arrays is p.arrays:
                        arrays = list(arrays)
                    arrays[j] = views[j].read(api)
        if len(arrays) == 3:
            arrays[0][...] = compute(arrays[1], arrays[2])
        else:
            arrays[0][...] = compute(*arrays[1:])
        if track:
            views[0].mark_written()
        if ctx.check_pipe_v:         # ctx.place, inlined: this is the per-instruction hot path
            ctx._check_pipe_v(api, p.reads, p.writes)
        if ctx.auto_sync:
            place_auto(ctx, "PIPE_V", api, p.cycles, p.reads, p.writes, nbytes=p.nbytes, elements=p.n, args=p.args)
            return
        ctx.timeline.place("PIPE_V", api, p.cycles, reads=p.reads, writes=p.writes, order="sync", nbytes=p.nbytes,
                           elements=p.n, args=p.args)
        return
    vals = [_read(views[j], actives[j], api).reshape(layout) for j in range(nd, len(views))]
    out = compute(*vals)             # numpy float warnings are off while a core runs (context.push)
    if nd == 1:
        out = (out,)
    for i in range(nd):
        res = np.asarray(out[i])
        v = views[i]
        res = res if res.ndim == 0 else res.reshape(v.shape)
        if p.ordered[i]:
            _write_in_repeat_order(v, dsts[i], res, actives[i])
        else:
            v.write(res, where=actives[i])
    ctx.place("PIPE_V", api, p.cycles, reads=p.reads, writes=p.writes, nbytes=p.nbytes, elements=p.n, args=p.args)


# ---- the call cache: a repeated call (same tensors, mask, repeats, strides, mode) skips re-validation ----

_KEYABLE = (int, float, str, tuple, enum.Enum)


def call_key(ctx, api: str, tensors, args, is_set_mask: bool):
    """Everything that decides a call's checks, plan and side effects, or None (then no caching)."""
    parts = [api, is_set_mask, ctx.counter_mode, ctx.float_overflow, ctx.deq_scale]
    if not is_set_mask or ctx.counter_mode:
        parts.append((ctx.mask_high, ctx.mask_low))
    for t in tensors:
        if type(t) is not LocalTensor or (t.buffer is not None and t.buffer.state == "free"):
            return None
        parts.append(t.key)
    for a in args:
        if type(a) is int:                             # the usual mask / repeatTime / count
            parts.append(a)
        elif type(a) is bool:                          # True == 1 as a key: never cache a bool argument
            return None
        elif isinstance(a, (BinaryRepeatParams, UnaryRepeatParams)):
            parts.append(a.key())
        elif isinstance(a, list):
            parts.append(tuple(a))
        elif isinstance(a, float):
            parts.append(a.hex())                      # -0.0 and 0.0 are different scalars
        elif isinstance(a, _KEYABLE):
            parts.append(a)
        else:
            return None
    return tuple(parts)


def _freed(t) -> bool:
    b = t.buffer
    return b is not None and b.state == "free"


def call_key3(ctx, api: str, t0, t1, t2, args, is_set_mask: bool):
    """``call_key(ctx, api, (t0, t1, t2), args, is_set_mask)`` for the usual two-source call (mask set by the
    call, Normal mode, a count or ``mask, repeatTime, BinaryRepeatParams``), built without the general loop.
    The same tuple, so the two find each other's cache entries."""
    if (is_set_mask is True and ctx.counter_mode is False and type(t0) is LocalTensor and type(t1) is LocalTensor
            and type(t2) is LocalTensor and not _freed(t0) and not _freed(t1) and not _freed(t2)):
        n = len(args)
        if n == 1 and type(args[0]) is int:
            return (api, True, False, ctx.float_overflow, ctx.deq_scale, t0.key, t1.key, t2.key, args[0])
        if n == 3 and type(args[0]) is int and type(args[1]) is int and type(args[2]) is BinaryRepeatParams:
            return (api, True, False, ctx.float_overflow, ctx.deq_scale, t0.key, t1.key, t2.key, args[0], args[1],
                    args[2].key())
    return call_key(ctx, api, (t0, t1, t2), args, is_set_mask)


def cached_call(key, slow, *a) -> None:
    """Run ``slow(*a)`` (validation + plan + run) once per key; later calls replay the plan and the mask
    register / mode it left."""
    ctx = current()
    if key is not None:
        hit = ctx.fast.get(key)
        if hit is not None:
            api, p, compute, dsts, state = hit
            _run(ctx, api, p, compute, dsts)
            ctx.mask_high, ctx.mask_low, ctx.counter_mode = state
            return
    ctx.fast_pending = None
    slow(*a)
    if key is not None and ctx.fast_pending is not None:
        if len(ctx.fast) > 4096:
            ctx.fast.clear()
        ctx.fast[key] = (*ctx.fast_pending, (ctx.mask_high, ctx.mask_low, ctx.counter_mode))
    ctx.fast_pending = None
