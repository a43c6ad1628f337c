"""Reductions: ``tensor_reduce`` (VectorE, last free axes), ``tensor_partition_reduce`` (GpSimd, across
partitions), ``tensor_scalar_reduce`` (VectorE, one ALU op plus a reduction over all free axes).

Arithmetic reductions run in float32 (numpy's pairwise order; the hardware accumulates in fp32 in
stream order, so sums may differ in the last bits); bitvec reductions work on the bit patterns.
Rules and costs: reference nki.md §2.5.
"""
from __future__ import annotations

import numpy as np

from . import accum
from . import cost_two as _cost2
from . import rules as R
from .accum import reduce_cmd
from .alu import OPS
from .cost import GPSIMD_START
from .isa import _bits_unsigned, _op, _operand, store_result as _store
from . import runtime as _runtime
from .plan import remember as _remember, sig as _sig
from .runtime import NkiInstruction, current
from .tensor import NkiTensor

NkiValidationError = R.NkiValidationError

PARTITION_REDUCE_OPS = ("add", "maximum", "minimum", "bitwise_or", "bitwise_and")
SCALAR_REDUCE_OPS = ("add", "subtract", "multiply", "maximum", "minimum")


def _axes(api, axis, ndim) -> tuple[int, ...]:
    try:
        axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
        axes = tuple(sorted(int(a) + ndim if int(a) < 0 else int(a) for a in axes))
    except (TypeError, ValueError):
        raise NkiValidationError(api, "axis", "an int or a tuple of ints", axis) from None
    if not axes or len(set(axes)) != len(axes):
        raise NkiValidationError(api, "axis", "one or more distinct free axes", axis)
    if axes[0] < 1:
        raise NkiValidationError(api, "axis", "free axes only (axis 0, the partition dim, is never reduced; "
                                 "use tensor_partition_reduce)", axis)
    if axes[-1] >= ndim:
        raise NkiValidationError(api, "axis", f"axes of a {ndim}-d tile", axis)
    if axes != tuple(range(ndim - len(axes), ndim)):
        raise NkiValidationError(api, "axis", "the last contiguous free axes (for (P,D1,D2,D3): (3,), (2,3) "
                                 "or (1,2,3))", axis)
    return axes


class _ReducePlan:
    """What one tensor_reduce geometry decided (everything but the values)."""
    __slots__ = ("a", "axes", "kept_free", "cycles", "args")

    def __init__(self, a, axes, kept_free, cycles):
        self.a, self.axes, self.kept_free, self.cycles = a, axes, kept_free, cycles
        self.args = {"op": a.name, "axis": axes}       # (copied per event)


#: (chip, op, type(op), axis, its type, negate, its type, keepdims, its type, dst sig, data sig) -> the plan of
#: an accepted call
_REDUCE_PLANS: dict = {}


def _reduce_plan(api, run, dst, data, op, axis, negate, keepdims) -> _ReducePlan:
    """Every rule of tensor_reduce after the per-view ones, in the general order."""
    R.same_partitions(api, ["dst", "data"], [dst, data])
    a = _op(api, "op", op, run.chip)
    if not a.reduce:
        raise NkiValidationError(api, "op", "a legal reduction operator (add, subtract, multiply, max, min, "
                                 "logical and/or/xor, bitwise and/or/xor)", a.name)
    axes = _axes(api, axis, len(data.shape))
    kept = data.shape[:axes[0]]
    kept_free = int(np.prod(kept[1:])) if len(kept) > 1 else 1
    if dst.free_size != kept_free:
        want = kept + (1,) * len(axes) if keepdims else kept
        raise NkiValidationError(api, "dst", f"dst holds the reduced shape {tuple(want)}", dst.shape)
    if a.is_bitvec:
        for p, t in (("data", data), ("dst", dst)):
            if not t.tv.dtype.is_int:
                raise NkiValidationError(api, p, "bitvec reductions need integer dtypes", t.tv.dtype.name)
        if negate:
            raise NkiValidationError(api, "negate", "negate applies to arithmetic reductions", negate)
    half = a.name in ("add", "maximum") and all(t.tv.dtype.name == "bfloat16" for t in (data, dst))
    return _ReducePlan(a, axes, kept_free, _cost2.reduce(data.free_size, half, data))


def tensor_reduce(dst, op, data, axis, negate=False, keepdims=False, name=None) -> NkiInstruction:
    """``dst = op-reduce(data, axis)`` on VectorE; ``negate`` multiplies the result by -1."""
    api = "nisa.tensor_reduce"
    run = _runtime._current
    if run is None:
        run = current(api)          # raises: no kernel is running
    # a view that passed its per-view rules (rules.compute_tile sets .checked) skips the call
    if not (isinstance(dst, NkiTensor) and dst.checked and dst.on_chip):
        R.tile(api, "dst", dst)
    if not (isinstance(data, NkiTensor) and data.checked and data.on_chip):
        R.tile(api, "data", data)
    try:
        key = (id(run.chip), op, type(op), axis, type(axis), negate, type(negate), keepdims, type(keepdims),
               dst.sig or _sig(dst), data.sig or _sig(data))
        plan = _REDUCE_PLANS.get(key)
    except TypeError:               # an unhashable argument (an axis list ...): the checks decide
        key = plan = None
    if plan is None:
        plan = _remember(_REDUCE_PLANS, key, _reduce_plan(api, run, dst, data, op, axis, negate, keepdims),
                         run.chip)
    a = plan.a
    x = data.read(api)
    flat = x.reshape(data.partitions, plan.kept_free, -1)
    if a.is_bitvec:
        u = _bits_unsigned(data.tv.dtype)
        r = a.fn.reduce(flat.view(u) if flat.dtype.itemsize == u.itemsize else flat.astype(u), axis=2)
        dst.write(r.astype(u).view(dst.tv.dtype.np).reshape(dst.shape) if dst.itemsize == u.itemsize
                  else r.reshape(dst.shape).astype(dst.tv.dtype.np))
    else:
        # (FP warnings: the run's np.errstate silences them, runtime.activate)
        f = flat if flat.dtype == np.float32 else flat.astype(np.float32)
        if a.name in accum.REDUCE_FNS:
            r = accum.reduce_rows(a.name, f.reshape(-1, f.shape[2])).reshape(f.shape[:2])
        else:
            r = a.fn(f[..., 0], f[..., 0]) if f.shape[2] == 1 else _fold(a, f)
        if negate:
            r = -r
        _store(dst, np.asarray(r, np.float32).reshape(dst.shape))
    # (dst and data are on-chip tiles (R.tile): the short issue path)
    return run.issue_one(api, "vector", plan.cycles, data, dst, dict(plan.args), data.size, dst.nbytes)


def _fold(a, f):
    """Logical reductions (and others numpy cannot ``.reduce``) fold with the ALU function."""
    if a.name == "logical_and":
        return np.all(f != 0, axis=2).astype(np.float32)
    if a.name == "logical_or":
        return np.any(f != 0, axis=2).astype(np.float32)
    if a.name == "logical_xor":
        return (np.count_nonzero(f, axis=2) % 2).astype(np.float32)
    r = f[..., 0]
    for i in range(1, f.shape[2]):
        r = a.fn(r, f[..., i])
    return r


def tensor_partition_reduce(dst, op, data, name=None) -> NkiInstruction:
    """Reduce across partitions on GpSimd: data [P, F] -> dst [1, F]."""
    api = "nisa.tensor_partition_reduce"
    run = current(api)
    R.tile(api, "dst", dst)
    R.tile(api, "data", data)
    a = _op(api, "op", op, run.chip)
    if a.name not in PARTITION_REDUCE_OPS:
        raise NkiValidationError(api, "op", f"one of {', '.join('nl.' + o for o in PARTITION_REDUCE_OPS)}", a.name)
    if dst.partitions != 1 or dst.free_size != data.free_size:
        raise NkiValidationError(api, "dst", f"a (1, {data.free_size}) tile", dst.shape)
    reason = R.gpsimd_memory(api, ["dst", "data"], [dst, data])
    if reason:
        raise NkiValidationError(api, "data", reason, "psum")
    x = data.read(api).reshape(data.partitions, -1)
    if a.is_bitvec:
        if not data.tv.dtype.is_int or not dst.tv.dtype.is_int:
            raise NkiValidationError(api, "data", "bitvec reductions need integer dtypes", data.tv.dtype.name)
        u = _bits_unsigned(data.tv.dtype)
        r = a.fn.reduce(x.view(u), axis=0)
        dst.write(r.view(data.tv.dtype.np).astype(dst.tv.dtype.np).reshape(dst.shape))
    else:
        r = accum.reduce_rows(a.name, np.ascontiguousarray(x.astype(np.float32).T))
        _store(dst, r.reshape(dst.shape))
    cycles = float(GPSIMD_START + data.free_size)
    return run.issue(api, "gpsimd", cycles, reads=[data], writes=[dst], elements=data.size,
                     args={"op": a.name})


def tensor_scalar_reduce(dst, data, op0, operand0, reduce_op, reduce_res=None, reverse0=False,
                         reduce_cmd=reduce_cmd.reset_reduce, reduce_init=None, reduce_res_negate=False,
                         name=None) -> NkiInstruction:
    """``dst = data <op0> operand0``; ``reduce_res = reduce_op`` over all free axes of the result (through
    VectorE's accumulator registers), on VectorE."""
    api = "nisa.tensor_scalar_reduce"
    run = current(api)
    R.tile(api, "dst", dst)
    R.tile(api, "data", data)
    R.same_partitions(api, ["dst", "data"], [dst, data])
    R.same_free_size(api, ["data", "dst"], [data, dst])
    a0 = _op(api, "op0", op0, run.chip)
    if a0.is_bitvec:
        raise NkiValidationError(api, "op0", "an arithmetic operator (bitvec operators are not supported)",
                                 a0.name)
    ro = _op(api, "reduce_op", reduce_op, run.chip)
    if ro.name not in SCALAR_REDUCE_OPS:
        raise NkiValidationError(api, "reduce_op", "nl.add, nl.subtract, nl.multiply, nl.maximum or nl.minimum",
                                 ro.name)
    if not isinstance(reduce_cmd, accum.reduce_cmd):
        raise NkiValidationError(api, "reduce_cmd", "a nisa.reduce_cmd member", reduce_cmd)
    if len(data.shape) > 4:
        raise NkiValidationError(api, "data", "at most three free dims", data.shape)
    if reduce_res is not None:
        R.tile(api, "reduce_res", reduce_res)
        if reduce_res.partitions != data.partitions or reduce_res.free_size != 1:
            raise NkiValidationError(api, "reduce_res", f"a ({data.partitions}, 1) tile", reduce_res.shape)
    reads = [data]
    v0 = None if a0.unary else _operand(api, "operand0", operand0, data, a0, reads)
    x = data.read(api)
    x = x if x.dtype == np.float32 else x.astype(np.float32)
    with np.errstate(all="ignore"):
        y = np.asarray(a0.fn(x) if a0.unary else (a0.fn(v0, x) if reverse0 else a0.fn(x, v0)), np.float32)
    _store(dst, y)
    lanes = slice(data.start_partition, data.start_partition + data.partitions)
    r = accum.reduce_rows(ro.name, y)
    if reduce_init is not None:
        init = np.float32(reduce_init) if R.is_scalar(reduce_init) else \
            _operand(api, "reduce_init", reduce_init, data, OPS["add"], reads).reshape(-1)
        with np.errstate(all="ignore"):
            r = accum.REDUCE_FNS[ro.name](init, r).astype(np.float32)
    res = accum.apply(run, "vector", reduce_cmd, ro.name, lanes, r)
    writes = [dst]
    if reduce_res is not None:
        _store(reduce_res, (-res if reduce_res_negate else res).reshape(reduce_res.shape))
        writes.append(reduce_res)
    cycles = _cost2.with_readout(data.free_size, data, dst)
    return run.issue(api, "vector", cycles, reads=reads, writes=writes, elements=dst.size,
                     args={"op0": a0.name, "reduce_op": ro.name})


__all__ = ["tensor_reduce", "tensor_partition_reduce", "tensor_scalar_reduce"]
