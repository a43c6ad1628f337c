"""``nisa.tensor_scalar``: ``dst = (data <op0> operand0) <op1> operand1``, re-exported by isa.py.

The op of tiled loops, so its per-call overhead matters (issue 5: under 20 us per instruction on tiny
tiles). Everything but the values depends only on the argument geometry (ops, scalar constants, the
operands' layouts and dtypes, engine): the first call of a geometry validates every rule and keeps a
``_Plan`` (ops, engine, cost, the compute path, event fields); a repeat only computes and places its
event (a (P, 1) tile operand: its per-view rules and its read run per call, as in the general path).
"""
from __future__ import annotations

import math

import numpy as np

from . import cost as _cost
from . import native_elementwise as _native
from . import rules as R
from . import runtime as _runtime
from .alu import AluOp
from .plan import sig as _sig     # (one id space for every op: the id is cached on the view)
from .isa import (NkiValidationError, _apply, _bits_unsigned, _f32, _op, _operand, choose_engine, engine,
                  store_result)
from .runtime import NkiInstruction, current
from .tensor import NkiTensor

#: Tiles up to this many bytes compute in a scratch tile: on tiny tiles numpy's per-row overhead on the
#: partition-strided views dominates, and two plain strided copies beat two strided ufunc passes. Larger
#: tiles compute straight into dst: two memory passes instead of four ((128, 8192) fp32 was 2.8x numpy
#: through the scratch tile, 1.8x direct).
_SCRATCH_MAX = 16 * 1024

#: shape -> a contiguous float32 work tile (reused: results are copied out before the next call)
_SCRATCH: dict = {}


def _scratch(shape) -> np.ndarray:
    a = _SCRATCH.get(shape)
    if a is None:
        if len(_SCRATCH) > 64:
            _SCRATCH.clear()
        a = _SCRATCH[shape] = np.empty(shape, np.float32)
    return a


def _zero_d(v):
    # numpy dispatches a ufunc on a 0-d float32 array ~0.25 us faster than on a float32 scalar (same
    # loop, same bits)
    return np.array(v) if isinstance(v, np.float32) else v


def _unary_operand_ok(value) -> bool:
    return value is None or (R.is_scalar(value) and float(value) == 0)


def _tensor_scalar_engines(chip, a0: AluOp, a1: AluOp | None, tiles, names) -> dict[str, str | None]:
    """engine -> None when it may run this tensor_scalar, else the reason it may not."""
    ops = [a for a in (a0, a1) if a is not None]
    why: dict[str, str | None] = {}
    bad = [a.name for a in ops if "vector" not in a.engines]
    why["vector"] = f"the Vector engine has no {bad[0]}" if bad else None
    if a0.is_bitvec:
        why["scalar"] = why["gpsimd"] = "bitvec operators run on the Vector engine only"
        return why
    if chip.nc_version == 2:
        why["scalar"] = "add and multiply on the Scalar engine exist from NeuronCore-v3 on (trn1 has none)"
    elif chip.nc_version == 3:
        combo = (a0.name, a1.name if a1 else None)
        ok = combo in (("multiply", "add"), ("multiply", None), ("add", None))
        why["scalar"] = None if ok else ("the trn2 Scalar engine runs only (multiply, add), (multiply, None), "
                                         f"(add, None); got {combo}")
    else:
        bad = [a.name for a in ops if "scalar" not in a.engines]
        why["scalar"] = f"the Scalar engine has no {bad[0]}" if bad else None
    if a0.name != "rsqrt" or a1 is not None:
        why["gpsimd"] = "tensor_scalar runs on GpSimd only for rsqrt (op0=nl.rsqrt, op1=None)"
    else:
        why["gpsimd"] = R.gpsimd_memory("", names, tiles)
    return why


_ENGINE_CACHE: dict = {}


def _checks(api, run, dst, data, op0, operand0, op1, operand1, engine):
    """Every geometry rule of tensor_scalar; returns (op0, op1, engine, reads, operand values)."""
    chip = run.chip
    R.same_partitions(api, ["dst", "data"], [dst, data])
    R.same_free_size(api, ["data", "dst"], [data, dst])
    a0 = _op(api, "op0", op0, chip)
    a1 = None
    if op1 is None:
        if operand1 is not None:
            raise NkiValidationError(api, "operand1", "op1 and operand1 are None (the defaults) when unused",
                                     operand1)
    else:
        a1 = _op(api, "op1", op1, chip)
        if a1.cls != a0.cls:
            raise NkiValidationError(api, "op1", "op0 and op1 are of the same type (both bitvec or both "
                                     "arithmetic)", f"{a0.name} ({a0.cls}), {a1.name} ({a1.cls})")
    for a, p, val in ((a0, "operand0", operand0), (a1, "operand1", operand1)):
        if a is None:
            continue
        if a.unary and not _unary_operand_ok(val):
            raise NkiValidationError(api, p, f"a unary operator ({a.name}) takes None or 0 as its operand", val)
        if not a.unary and val is None:
            raise NkiValidationError(api, p, f"a binary operator ({a.name}) needs an operand", None)
    if a0.is_bitvec:
        for p, t in (("data", data), ("dst", dst)):
            if not t.tv.dtype.is_int:
                raise NkiValidationError(api, p, "bitvec operators need integer input/output dtypes",
                                         t.tv.dtype.name)
        if data.itemsize != dst.itemsize:
            raise NkiValidationError(api, "dst", "bitvec results are bit patterns: dst has data's width",
                                     f"{data.tv.dtype.name} -> {dst.tv.dtype.name}")
    reads = [data]
    v0 = None if a0.unary else _operand(api, "operand0", operand0, data, a0, reads)
    v1 = None if (a1 is None or a1.unary) else _operand(api, "operand1", operand1, data, a1, reads)
    tiles = [dst, *reads]
    names = ["dst", "data", "operand0", "operand1"][:len(tiles)]
    key = (chip.nc_version, a0, a1, tuple(t.in_psum for t in tiles))
    why = _ENGINE_CACHE.get(key)
    if why is None:
        why = _ENGINE_CACHE[key] = _tensor_scalar_engines(chip, a0, a1, tiles, names)
    return a0, a1, choose_engine(api, run, engine, why), reads, v0, v1


# How a plan computes: bit patterns (bitvec ops), float32 straight into dst (large tiles), float32 through a
# contiguous scratch tile (small ones), or the general float32-then-cast path.
BITVEC, DIRECT, SCRATCH, CAST = "bitvec", "direct", "scratch", "cast"


class _Plan:
    """What one tensor_scalar geometry decided: everything but the values."""
    __slots__ = ("a0", "a1", "engine", "v0", "v1", "u0", "u1", "cycles", "path", "tmp", "copy_in", "args",
                 "elements", "nbytes", "tiles")

    def __init__(self, run, dst, data, a0, a1, eng, v0, v1, tiles=False):
        self.a0, self.a1, self.engine = a0, a1, eng
        # the operands' values (a tile operand's: read per call instead, ``tiles``)
        self.v0, self.v1 = _zero_d(v0), _zero_d(v1)
        self.tiles = tiles
        # the binary ufunc of each step, called inline on the hot path (None: through _apply)
        self.u0 = a0.fn if isinstance(a0.fn, np.ufunc) and not a0.unary else None
        self.u1 = a1.fn if a1 is not None and isinstance(a1.fn, np.ufunc) and not a1.unary else None
        slow = _cost.GPSIMD_RSQRT_SLOWDOWN if eng == "gpsimd" else 1
        self.cycles = _cost.one_input(run.chip, eng, data, dst, slowdown=slow)
        f32_same = dst.tv.dtype.name == "float32" and dst.shape == data.shape
        if a0.is_bitvec:
            self.path = BITVEC
        elif f32_same and dst.nbytes > _SCRATCH_MAX:
            self.path = DIRECT
        elif f32_same:
            self.path = SCRATCH
        else:
            self.path = CAST
        self.tmp = _scratch(data.shape) if self.path is SCRATCH else None
        self.copy_in = data.tv.dtype.np == np.float32     # data.read() is a float32 array
        self.args = (a0.name, a1.name if a1 else None)
        self.elements = dst.partitions * dst.free_size
        self.nbytes = dst.nbytes


def _const(v) -> bool:
    """A scalar constant (or None) that can be part of a plan-cache key."""
    return v is None or type(v) in (float, int) or isinstance(v, (np.floating, np.integer))


_PLAIN = frozenset({float, int, type(None)})


def _operand_part(v) -> tuple:
    """An operand's part of a plan key when some operand is a tile: a tile by its type and geometry (sig:
    shape, strides, dtype, buffer), a constant by type, value and the sign of zero; TypeError for anything
    else (the general path decides)."""
    if isinstance(v, NkiTensor):
        return type(v), v.sig or _sig(v), None
    if _const(v):
        return type(v), v, v == 0 and math.copysign(1.0, v) < 0
    raise TypeError

#: (nc version, op0, op1, operand0, operand1, engine, engine type, dst sig, data sig) -> the _Plan of a
#: call that passed every rule
_PLANS: dict = {}


def tensor_scalar(dst, data, op0, operand0, reverse0=False, op1=None, operand1=None, reverse1=False,
                  engine=engine.unknown, name=None) -> NkiInstruction:
    """``dst = (data <op0> operand0) <op1> operand1`` with scalar or (P, 1) vector operands."""
    api = "nisa.tensor_scalar"
    run = _runtime._current
    if run is None:
        run = current(api)          # raises: no kernel is running
    # per-view checks, cached on the view (rules.compute_tile); a view that passed them skips the call
    if not (isinstance(dst, NkiTensor) and dst.checked and dst.on_chip):
        R.tile(api, "dst", dst)
    if not (isinstance(data, NkiTensor) and data.checked and data.on_chip):
        R.tile(api, "data", data)
    # Every other rule depends only on the argument geometry: a repeat of a geometry that passed skips
    # them (the hot path of tiled loops). A tile operand is keyed by its geometry and read per call.
    key = plan = None
    if ((type(operand0) in _PLAIN or _const(operand0))       # (plain Python scalars skip a call)
            and (type(operand1) in _PLAIN or _const(operand1))):
        # type and the sign of zero are part of a constant's identity: -0.0 == 0.0 and 1 == 1.0 == True
        # hash alike but are different operands
        key = (run.chip.nc_version, op0, op1, type(operand0), operand0,
               operand0 == 0 and math.copysign(1.0, operand0) < 0, type(operand1), operand1,
               operand1 == 0 and math.copysign(1.0, operand1) < 0, engine, type(engine),
               dst.sig or _sig(dst), data.sig or _sig(data))
        try:
            plan = _PLANS.get(key)
        except TypeError:           # an unhashable op: the checks report it
            key = None
    else:
        # a (P, 1) tile operand: the plan is keyed on its geometry; its values are read per call
        try:
            key = (run.chip.nc_version, op0, op1, _operand_part(operand0), _operand_part(operand1), engine,
                   type(engine), dst.sig or _sig(dst), data.sig or _sig(data))
            plan = _PLANS.get(key)
        except TypeError:           # an operand or op that cannot be keyed: the checks decide
            key = None
    reads = None
    if plan is None:
        a0, a1, eng, reads, v0, v1 = _checks(api, run, dst, data, op0, operand0, op1, operand1, engine)
        plan = _Plan(run, dst, data, a0, a1, eng, v0, v1, tiles=len(reads) > 1)
        if key is not None:
            if len(_PLANS) > 4096:
                _PLANS.clear()
            _PLANS[key] = plan
    elif plan.tiles:
        # a repeat with tile operands: their per-view rules and reads, by the general path's function
        reads = [data]
        if isinstance(operand0, NkiTensor):
            v0 = _operand(api, "operand0", operand0, data, plan.a0, reads)
        if isinstance(operand1, NkiTensor):
            v1 = _operand(api, "operand1", operand1, data, plan.a1, reads)
    if not plan.tiles or not isinstance(operand0, NkiTensor):
        v0 = plan.v0
    if not plan.tiles or not isinstance(operand1, NkiTensor):
        v1 = plan.v1
    a1 = plan.a1
    x = data.read(api)
    path = plan.path
    if path is SCRATCH:
        # A small float32 tile: compute in a contiguous scratch tile, then one copy into dst's bytes. A
        # ufunc pass over the partition-strided SBUF view costs ~4x one over contiguous memory (and more
        # when in and out share the SBUF buffer: numpy's overlap analysis), so the strided memory is
        # touched exactly twice: one read of data, one write of dst. (Slice assignment, not np.copyto:
        # the same copy without the dispatch wrapper.)
        tmp = plan.tmp
        if plan.copy_in:
            if not _native.copy(x, tmp):
                tmp[...] = x
            x = tmp
        else:
            x = x.astype(np.float32)
        u = plan.u0
        if u is not None and not reverse0:
            u(x, v0, out=tmp)           # the run's errstate silences FP warnings
        else:
            _apply(plan.a0, x, v0, reverse0, tmp)
        if a1 is not None:
            u = plan.u1
            if u is not None and not reverse1:
                u(tmp, v1, out=tmp)
            else:
                _apply(a1, tmp, v1, reverse1, tmp)
        if not _native.copy(tmp, out := dst.tv.array()):
            out[...] = tmp
        dst.mark_written()
    elif path is DIRECT:
        # a large float32 tile: compute straight into dst's bytes (memory passes dominate)
        out = dst.tv.array()
        _apply(plan.a0, _f32(x), v0, reverse0, out)
        if a1 is not None:
            _apply(a1, out, v1, reverse1, out)
        dst.mark_written()
    elif path is BITVEC:
        u = _bits_unsigned(data.tv.dtype)
        r = _apply(plan.a0, x.view(u), v0, reverse0)
        if a1 is not None:
            r = _apply(a1, r, v1, reverse1)
        dst.write(np.asarray(r, u).view(dst.tv.dtype.np).reshape(dst.shape))
    else:
        r = _apply(plan.a0, _f32(x), v0, reverse0)
        if a1 is not None:
            r = _apply(a1, _f32(r), v1, reverse1)
        store_result(dst, _f32(np.asarray(r)))
    n0, n1 = plan.args
    args = {"op0": n0, "op1": n1}
    if reads is None or len(reads) == 1:   # dst and data are on-chip tiles (R.tile): the short issue path
        return run.issue_one(api, plan.engine, plan.cycles, data, dst, args, plan.elements, plan.nbytes)
    # (tile operands: on-chip tiles too (_operand's R.tile))
    return run.issue_tiles(api, plan.engine, plan.cycles, reads, dst, plan.elements, args)
