"""VectorE ops of part two: ``scalar_tensor_tensor``, ``tensor_tensor_scan``, ``reciprocal``,
``bn_stats`` / ``bn_aggr``, ``tensor_copy_predicated``, ``select_reduce``, ``range_select``.

Arithmetic in float32, results cast to dst's dtype (RNE). Rules and costs: reference nki.md §2.5 and
the ops' docstrings (cited per op in docs/nki.md).
"""
from __future__ import annotations

import math

import numpy as np

from . import accum
from . import cost as _cost
from . import cost_two as _cost2
from . import native_scan as _native
from . import rules as R
from . import runtime as _runtime
from .accum import reduce_cmd
from .alu import OPS
from .isa import _op, _operand, engine, store_result as _store
from .runtime import NkiInstruction, current
from .plan import remember as _remember, sig as _sig
from .tensor import MemoryRegion, NkiTensor

NkiValidationError = R.NkiValidationError

BN_STATS_FMAX = 512             # nl.tile_size.bn_stats_fmax
BN_STATS_WIDTH = 6              # [count, mean, var*count] for the even and the odd elements
FP32_MIN = float(np.finfo(np.float32).min)   # range_select's on_false_value
OPS_MAX = OPS["maximum"]
_SCAN_OPS = ("add", "subtract", "multiply", "maximum", "minimum")


def _f32(x):
    return x if x.dtype == np.float32 else x.astype(np.float32)


def _vector_engine(api, run, engine_value, tiles, names, gpsimd_ok=False) -> str:
    from .isa import choose_engine as _choose
    why = {"vector": None}
    if gpsimd_ok:
        why["gpsimd"] = R.gpsimd_memory(api, names, tiles)
    return _choose(api, run, engine_value, why, order=("vector", "gpsimd"))


# -------------------------------------------------------------------------------- scalar_tensor_tensor

def scalar_tensor_tensor(dst, data, op0, operand0, op1, operand1, reverse0=False, reverse1=False,
                         engine=engine.unknown, name=None) -> NkiInstruction:
    """``dst = (data <op0> operand0) <op1> operand1``; operand0 a scalar or (P, 1) tile, operand1 a tile
    of data's shape. VectorE (or GpSimd), arithmetic operators only."""
    api = "nisa.scalar_tensor_tensor"
    run = current(api)
    for p, t in (("dst", dst), ("data", data), ("operand1", operand1)):
        R.tile(api, p, t)
    R.same_partitions(api, ["dst", "data", "operand1"], [dst, data, operand1])
    R.same_free_size(api, ["data", "operand1"], [data, operand1])
    R.same_free_size(api, ["data", "dst"], [data, dst])
    a0, a1 = _op(api, "op0", op0, run.chip), _op(api, "op1", op1, run.chip)
    for p, a in (("op0", a0), ("op1", a1)):
        if a.is_bitvec:
            raise NkiValidationError(api, p, "an arithmetic operator", a.name)
        if a.unary:
            raise NkiValidationError(api, p, "a binary operator", a.name)
    if data.buffer is MemoryRegion.psum and operand1.buffer is MemoryRegion.psum:
        raise NkiValidationError(api, "operand1", "data and operand1 are not both in PSUM", "both in PSUM")
    reads = [data]
    v0 = _operand(api, "operand0", operand0, data, a0, reads)
    reads.append(operand1)
    eng = _vector_engine(api, run, engine, [dst, *reads], ["dst", "data", "operand0", "operand1"][:len(reads) + 1],
                         gpsimd_ok=True)
    x = _f32(data.read(api))
    y = _f32(operand1.read(api)).reshape(x.shape)
    r = a0.fn(v0, x) if reverse0 else a0.fn(x, v0)         # (FP warnings: silenced by the run's errstate)
    r = a1.fn(y, r) if reverse1 else a1.fn(r, y)
    _store(dst, np.asarray(r, np.float32))
    cycles = _cost.two_input(run.chip, eng, data, operand1, dst)
    return run.issue(api, eng, cycles, reads=reads, writes=[dst], elements=dst.size,
                     args={"op0": a0.name, "op1": a1.name})


# ----------------------------------------------------------------------------------- tensor_tensor_scan

class _ScanPlan:
    """What one tensor_tensor_scan geometry decided (``init`` only for a constant ``initial``; ``direct``:
    dst is a float32 view of data0's (P, N) shape, which the native loop writes itself)."""
    __slots__ = ("a0", "a1", "init", "cycles", "ufuncs", "native", "direct")

    def __init__(self, a0, a1, init, cycles, direct=False):
        self.a0, self.a1, self.init, self.cycles, self.direct = a0, a1, init, cycles, direct
        self.ufuncs = isinstance(a0.fn, np.ufunc) and isinstance(a1.fn, np.ufunc)
        # (op0, op1) codes of native/scan.c when it computes this pair bit for bit, else None
        c0, c1 = _native.OP_CODES.get(a0.name), _native.OP_CODES.get(a1.name)
        self.native = None if c0 is None or c1 is None else (c0, c1)

    def args(self) -> dict:
        """The event's args (a new dict per event: the trace owns it)."""
        return {"op0": self.a0.name, "op1": self.a1.name}


#: (chip, op0, type, op1, type, dst sig, data0 sig, data1 sig, initial's type, value or sig, -0 flag) -> plan
_SCAN_PLANS: dict = {}
_PLAIN = frozenset({float, int, bool})


def _initial_part(v):
    """``initial``'s part of the plan key: a tile by geometry, a constant by type, value and the sign of
    zero (0.0 == -0.0 hash alike); TypeError when it cannot be keyed (the general path decides)."""
    if isinstance(v, NkiTensor):
        return type(v), v.sig or _sig(v), None
    if type(v) in _PLAIN or isinstance(v, (np.floating, np.integer)):
        return type(v), v, v == 0 and math.copysign(1.0, v) < 0
    raise TypeError


def _scan_plan(api, run, dst, data0, data1, initial, op0, op1, reads):
    """Every rule of tensor_tensor_scan after the per-view ones, in the general order; returns the plan and
    the initial value (the general path reads a tile ``initial`` here, appending it to ``reads``)."""
    R.same_partitions(api, ["dst", "data0", "data1"], [dst, data0, data1])
    R.same_free_size(api, ["data0", "data1"], [data0, data1])
    R.same_free_size(api, ["data0", "dst"], [data0, dst])
    a0, a1 = _op(api, "op0", op0, run.chip), _op(api, "op1", op1, run.chip)
    for p, a in (("op0", a0), ("op1", a1)):
        if a.name not in _SCAN_OPS:
            raise NkiValidationError(api, p, "an arithmetic operator of add, subtract, multiply, max, min", a.name)
    if data0.buffer is MemoryRegion.psum and data1.buffer is MemoryRegion.psum:
        raise NkiValidationError(api, "data1", "data0 and data1 are not both in PSUM", "both in PSUM")
    init = _operand(api, "initial", initial, data0, a0, reads)
    plan = _ScanPlan(a0, a1, None if isinstance(initial, NkiTensor) else _init_column(init),
                     _cost2.two_pass(data0.free_size, data0, data1, dst),
                     dst.tv.dtype.name == "float32" and dst.shape == (data0.partitions, data0.free_size))
    return plan, init


def _init_column(init) -> np.ndarray:
    """The initial value as the scans take it: a scalar, or the (P, 1) tile's column, as 1-D float32
    values they broadcast to every partition with a same-dtype assignment (it copies the bits, as
    np.broadcast_to(...).astype did)."""
    return np.asarray(init, np.float32).reshape(-1)


def _numpy_scan(plan, x0, x1, prev, reverse0, reverse1) -> np.ndarray:
    """The reference scan (P, N) of float32 x0, x1 from ``prev`` (P,), column by column (vectorised over
    partitions), each step rounding to float32 as the engine does. FP warnings: silenced by the run."""
    f0, f1 = plan.a0.fn, plan.a1.fn
    p = x0.shape[0]
    if plan.ufuncs:
        # the same steps on contiguous columns (transposed copies), results written in place
        x0t, x1t = np.ascontiguousarray(x0.T), np.ascontiguousarray(x1.T)
        outt = np.empty_like(x0t)
        t = np.empty(p, np.float32)
        if reverse0 or reverse1:
            for c0, c1, o in zip(x0t, x1t, outt):
                if reverse0:
                    f0(prev, c0, t)
                else:
                    f0(c0, prev, t)
                if reverse1:
                    f1(c1, t, o)
                else:
                    f1(t, c1, o)
                prev = o
        else:           # (the out array positional: ~10% less per ufunc call than out=)
            for c0, c1, o in zip(x0t, x1t, outt):
                f0(c0, prev, t)
                f1(t, c1, o)
                prev = o
        return outt.T
    out = np.empty_like(x0)
    for i in range(x0.shape[1]):
        t = f0(prev, x0[:, i]) if reverse0 else f0(x0[:, i], prev)
        prev = f1(x1[:, i], t) if reverse1 else f1(t, x1[:, i])
        out[:, i] = prev
    return out


def tensor_tensor_scan(dst, data0, data1, initial, op0, op1, reverse0=False, reverse1=False,
                       name=None) -> NkiInstruction:
    """Scan along the free dim: ``res[:, i] = op1(op0(data0[:, i], res[:, i-1]), data1[:, i])`` with
    ``res[:, -1] = initial`` (an fp32 scalar or (P, 1) tile). Each step rounds to fp32 as the engine does,
    so the loop runs column by column (vectorised over partitions)."""
    api = "nisa.tensor_tensor_scan"
    run = _runtime._current
    if run is None:
        run = current(api)
    for p, t in (("dst", dst), ("data0", data0), ("data1", data1)):
        if not (isinstance(t, NkiTensor) and t.checked and t.on_chip):
            R.tile(api, p, t)
    reads = [data0, data1]
    try:
        key = (id(run.chip), op0, type(op0), op1, type(op1), dst.sig or _sig(dst), data0.sig or _sig(data0),
               data1.sig or _sig(data1), _initial_part(initial))
        plan = _SCAN_PLANS.get(key)
    except TypeError:
        key = plan = None
    if plan is None:
        plan, init = _scan_plan(api, run, dst, data0, data1, initial, op0, op1, reads)
        _remember(_SCAN_PLANS, key, plan, run.chip)
    elif plan.init is None:         # a (P, 1) tile: its per-view rules and read, by the general path's
        init = _operand(api, "initial", initial, data0, plan.a0, reads)      # function
    init = _init_column(init) if plan.init is None else plan.init     # (a constant's column: made once)
    p = data0.partitions
    # (P, N) float32 values (a 2-D float32 operand's read is its view's array itself: no copy)
    x0, x1 = _f32(data0.read(api)), _f32(data1.read(api))
    if x0.ndim != 2:
        x0 = x0.reshape(p, -1)
    if x1.ndim != 2:
        x1 = x1.reshape(p, -1)
    if plan.native is not None and (fn := _native.kernel()) is not None:
        # the C loop writes dst's float32 (P, N) view itself, else a new array _store casts; False back:
        # a NaN somewhere (numpy decides its payload), nothing written
        c0, c1 = plan.native
        if plan.direct:
            if fn(x0, x1, init, dst.tv.array(), c0, c1, reverse0, reverse1):
                dst.mark_written()
                return run.issue_tiles(api, "vector", plan.cycles, reads, dst, dst.size, plan.args())
        else:
            out = np.empty((p, x0.shape[1]), np.float32)
            if fn(x0, x1, init, out, c0, c1, reverse0, reverse1):
                _store(dst, out.reshape(dst.shape))
                return run.issue_tiles(api, "vector", plan.cycles, reads, dst, dst.size, plan.args())
    prev = np.empty(p, np.float32)
    prev[...] = init
    out = _numpy_scan(plan, x0, x1, prev, reverse0, reverse1)
    _store(dst, out.reshape(dst.shape))
    # (every operand is an on-chip tile (R.tile, _operand): issue's operand filtering has nothing to do)
    return run.issue_tiles(api, "vector", plan.cycles, reads, dst, dst.size, plan.args())


# ------------------------------------------------------------------------------------------- reciprocal

def reciprocal(dst, data, name=None) -> NkiInstruction:
    """``dst = 1 / data`` on VectorE (more precise than ScalarE's table): cost max(MIN_II, 8N)."""
    api = "nisa.reciprocal"
    run = current(api)
    R.tile(api, "dst", dst)
    R.tile(api, "data", data)
    R.same_partitions(api, ["dst", "data"], [dst, data])
    R.same_free_size(api, ["data", "dst"], [data, dst])
    r = np.reciprocal(_f32(data.read(api)))         # 1/0 = inf (the run's errstate: no warning)
    _store(dst, r)
    return run.issue(api, "vector", _cost2.reciprocal(data.free_size), reads=[data], writes=[dst],
                     elements=dst.size)


# ------------------------------------------------------------------------------------ bn_stats / bn_aggr

def bn_stats(dst, data, name=None) -> NkiInstruction:
    """Per partition, 6 values: [count, mean, variance*count] of the even-indexed and of the odd-indexed
    elements of data's (flattened) free dim, which holds at most 512 elements."""
    api = "nisa.bn_stats"
    run = current(api)
    R.tile(api, "dst", dst)
    R.tile(api, "data", data)
    R.same_partitions(api, ["dst", "data"], [dst, data])
    n = data.free_size
    if n > BN_STATS_FMAX:
        raise NkiValidationError(api, "data", f"free size <= {BN_STATS_FMAX} (nl.tile_size.bn_stats_fmax)", n)
    if dst.free_size != BN_STATS_WIDTH:
        raise NkiValidationError(api, "dst", f"{BN_STATS_WIDTH} elements per partition", dst.shape)
    if not dst.tv.dtype.is_float:
        raise NkiValidationError(api, "dst", "a float dst", dst.tv.dtype.name)
    x = data.read(api).reshape(data.partitions, n).astype(np.float64)
    out = np.zeros((data.partitions, BN_STATS_WIDTH), np.float64)
    for k, part in enumerate((x[:, 0::2], x[:, 1::2])):
        c = part.shape[1]
        if c:
            m = part.mean(axis=1)
            out[:, 3 * k] = c
            out[:, 3 * k + 1] = m
            out[:, 3 * k + 2] = ((part - m[:, None]) ** 2).sum(axis=1)     # variance * count
    _store(dst, out.astype(np.float32).reshape(dst.shape))
    return run.issue(api, "vector", _cost2.one_pass(n, data), reads=[data], writes=[dst], elements=data.size)


def bn_aggr(dst, data, name=None) -> NkiInstruction:
    """Combine k (count, mean, variance*count) triples per partition into [mean, variance]."""
    api = "nisa.bn_aggr"
    run = current(api)
    R.tile(api, "dst", dst)
    R.tile(api, "data", data)
    R.same_partitions(api, ["dst", "data"], [dst, data])
    n = data.free_size
    if n % 3:
        raise NkiValidationError(api, "data", "a whole number of (count, mean, variance*count) triples "
                                 "(bn_stats outputs)", n)
    if dst.free_size != 2:
        raise NkiValidationError(api, "dst", "2 elements per partition: [mean, variance]", dst.shape)
    t = data.read(api).reshape(data.partitions, n // 3, 3).astype(np.float64)
    cnt, mean, m2 = t[..., 0], t[..., 1], t[..., 2]
    total = cnt.sum(axis=1)
    mu = (cnt * mean).sum(axis=1) / total        # (a zero count: NaN, silenced by the run's errstate)
    var = (m2.sum(axis=1) + (cnt * (mean - mu[:, None]) ** 2).sum(axis=1)) / total
    _store(dst, np.stack([mu, var], axis=1).astype(np.float32).reshape(dst.shape))
    return run.issue(api, "vector", _cost2.bn_aggr(n), reads=[data], writes=[dst], elements=data.size)


# ---------------------------------------------------------------------------- predicated copies / selects

def _predicate(api, predicate, ref, allowed=("uint8", "uint16", "uint32", "int8", "int16", "int32")):
    R.tile(api, "predicate", predicate)
    R.same_partitions(api, ["predicate", "on_true"], [predicate, ref])
    R.same_free_size(api, ["predicate", "on_true"], [predicate, ref])
    if predicate.tv.dtype.name not in allowed:
        raise NkiValidationError(api, "predicate", f"an integer predicate ({', '.join(allowed)})",
                                 predicate.tv.dtype.name)


def tensor_copy_predicated(dst, src, predicate, reverse_pred=False, name=None) -> NkiInstruction:
    """Copy ``src`` into ``dst`` where ``predicate`` is nonzero (zero with ``reverse_pred``); elsewhere dst
    keeps its values. VectorE."""
    api = "nisa.tensor_copy_predicated"
    run = current(api)
    R.tile(api, "dst", dst)
    R.tile(api, "src", src)
    R.same_partitions(api, ["dst", "src"], [dst, src])
    R.same_free_size(api, ["src", "dst"], [src, dst])
    _predicate(api, predicate, src, ("uint8", "uint16", "uint32"))
    if src.buffer is MemoryRegion.psum and predicate.buffer is MemoryRegion.psum:
        raise NkiValidationError(api, "predicate", "src and predicate are not both in PSUM", "both in PSUM")
    mask = predicate.read(api).reshape(dst.shape) != 0
    if reverse_pred:
        mask = ~mask
    x = src.read(api).reshape(dst.shape)
    if src.tv.dtype != dst.tv.dtype:
        from ..core.dtypes import cast
        x = cast(_f32(x), dst.tv.dtype)
    dst._fresh_init(dst.root or dst)    # a new tile's map is an earlier tile's: clear it before marking some
    dst.tv.write(x, where=mask)
    if mask.all():
        dst.mark_written()
    cycles = _cost2.one_pass(src.free_size, src, dst)
    return run.issue(api, "vector", cycles, reads=[src, predicate, dst], writes=[dst], elements=dst.size)


def _reduce_out(api, run, reduce_res, cmd, op_name, tile_ref, values, writes):
    if not isinstance(cmd, accum.reduce_cmd):
        raise NkiValidationError(api, "reduce_cmd", "a nisa.reduce_cmd member", cmd)
    lanes = slice(tile_ref.start_partition, tile_ref.start_partition + tile_ref.partitions)
    res = accum.apply(run, "vector", cmd, op_name, lanes, accum.reduce_rows(op_name, values))
    if reduce_res is not None:
        _store(reduce_res, res.reshape(reduce_res.shape))
        writes.append(reduce_res)


def _reduce_res_check(api, reduce_res, ref):
    if reduce_res is None:
        return
    R.tile(api, "reduce_res", reduce_res)
    if reduce_res.partitions != ref.partitions or reduce_res.free_size != 1:
        raise NkiValidationError(api, "reduce_res", f"a ({ref.partitions}, 1) tile", reduce_res.shape)
    if not reduce_res.tv.dtype.is_float:
        raise NkiValidationError(api, "reduce_res", "a float dtype", reduce_res.tv.dtype.name)


def _max_only(api, run, reduce_op):
    a = _op(api, "reduce_op", reduce_op, run.chip)
    if a.name != "maximum":
        raise NkiValidationError(api, "reduce_op", "nl.maximum (the only reduction supported)", a.name)


def select_reduce(dst, predicate, on_true, on_false, reduce_res=None, reduce_cmd=reduce_cmd.idle,
                  reduce_op=None, reverse_pred=False, name=None) -> NkiInstruction:
    """``dst = where(predicate, on_true, on_false)`` with an optional max-reduction; VectorE."""
    api = "nisa.select_reduce"
    run = current(api)
    R.tile(api, "dst", dst)
    R.tile(api, "on_true", on_true)
    R.same_partitions(api, ["dst", "on_true"], [dst, on_true])
    R.same_free_size(api, ["on_true", "dst"], [on_true, dst])
    _predicate(api, predicate, on_true, ("uint8", "uint16", "int8", "int16"))
    if on_true.tv.dtype.name in ("tfloat32", "int32", "uint32"):
        raise NkiValidationError(api, "on_true", "any dtype except tfloat32, int32, uint32",
                                 on_true.tv.dtype.name)
    if on_true.buffer is MemoryRegion.psum and predicate.buffer is MemoryRegion.psum:
        raise NkiValidationError(api, "predicate", "on_true and predicate are not both in PSUM", "both in PSUM")
    _max_only(api, run, OPS_MAX if reduce_op is None else reduce_op)
    _reduce_res_check(api, reduce_res, on_true)
    reads = [on_true, predicate]
    if R.is_scalar(on_false):
        off = np.float32(on_false)
    else:
        off = _operand(api, "on_false", on_false, on_true, OPS_MAX, reads)
    mask = predicate.read(api).reshape(on_true.partitions, -1) != 0
    if reverse_pred:
        mask = ~mask
    x = _f32(on_true.read(api)).reshape(mask.shape)
    r = np.where(mask, x, np.broadcast_to(np.asarray(off, np.float32).reshape(-1, 1)
                                          if np.ndim(off) else off, mask.shape)).astype(np.float32)
    _store(dst, r.reshape(dst.shape))
    writes = [dst]
    _reduce_out(api, run, reduce_res, reduce_cmd, "maximum", on_true, r, writes)
    cycles = _cost2.one_pass(on_true.free_size, on_true, dst) + (_cost2.ACT_READ_ACCUMULATOR if reduce_res
                                                                 is not None else 0)
    return run.issue(api, "vector", cycles, reads=reads, writes=writes, elements=dst.size)


def range_select(dst, on_true_tile, comp_op0, comp_op1, bound0, bound1, reduce_cmd=reduce_cmd.idle,
                 reduce_res=None, reduce_op=None, range_start=0, on_false_value=FP32_MIN,
                 name=None) -> NkiInstruction:
    """Keep ``on_true_tile[p, i]`` where ``comp_op0(i + range_start, bound0[p])`` and ``comp_op1(i +
    range_start, bound1[p])`` hold, else ``on_false_value`` (which must be FP32_MIN); optional max-reduce.
    VectorE, NeuronCore-v3 (trn2) and newer."""
    api = "nisa.range_select"
    run = current(api)
    if run.chip.nc_version < 3:
        raise NkiValidationError(api, "target", "range_select exists from NeuronCore-v3 (trn2) on", run.chip.name)
    R.tile(api, "dst", dst)
    R.tile(api, "on_true_tile", on_true_tile)
    R.same_partitions(api, ["dst", "on_true_tile"], [dst, on_true_tile])
    R.same_free_size(api, ["on_true_tile", "dst"], [on_true_tile, dst])
    c0, c1 = _op(api, "comp_op0", comp_op0, run.chip), _op(api, "comp_op1", comp_op1, run.chip)
    for p, c in (("comp_op0", c0), ("comp_op1", c1)):
        if c.name not in ("equal", "not_equal", "greater", "greater_equal", "less", "less_equal"):
            raise NkiValidationError(api, p, "a comparison operator", c.name)
    if np.float32(on_false_value) != np.float32(FP32_MIN):    # the stub default -3.4028235e+38 rounds to it
        raise NkiValidationError(api, "on_false_value", "FP32_MIN (-3.4028235e38), the only fill supported",
                                 on_false_value)
    _max_only(api, run, OPS_MAX if reduce_op is None else reduce_op)
    _reduce_res_check(api, reduce_res, on_true_tile)
    reads = [on_true_tile]
    b0 = _operand(api, "bound0", bound0, on_true_tile, c0, reads)
    b1 = _operand(api, "bound1", bound1, on_true_tile, c1, reads)
    p = on_true_tile.partitions
    idx = (np.arange(on_true_tile.free_size, dtype=np.float32) + np.float32(range_start))[None, :]
    b0 = np.asarray(b0, np.float32).reshape(-1, 1) if np.ndim(b0) else b0
    b1 = np.asarray(b1, np.float32).reshape(-1, 1) if np.ndim(b1) else b1
    mask = (c0.fn(idx, b0) != 0) & (c1.fn(idx, b1) != 0)
    x = _f32(on_true_tile.read(api)).reshape(p, -1)
    r = np.where(mask, x, np.float32(FP32_MIN)).astype(np.float32)
    _store(dst, r.reshape(dst.shape))
    writes = [dst]
    _reduce_out(api, run, reduce_res, reduce_cmd, "maximum", on_true_tile, r, writes)
    cycles = _cost2.one_pass(on_true_tile.free_size, on_true_tile, dst) + (
        _cost2.ACT_READ_ACCUMULATOR if reduce_res is not None else 0)
    return run.issue(api, "vector", cycles, reads=reads, writes=writes, elements=dst.size)


__all__ = ["scalar_tensor_tensor", "tensor_tensor_scan", "reciprocal", "bn_stats", "bn_aggr",
           "tensor_copy_predicated", "select_reduce", "range_select"]
