"""ScalarE: ``nisa.activation`` and ``nisa.activation_reduce``.

``dst = op(data * scale + bias)`` in float32, cast to dst's dtype (reference nki.md §2.5, activation
docstring). ``scale``: a float scalar or a (P, 1) float32 tile; ``bias``: a (P, 1) fp32/fp16/bf16 tile, or a
scalar from NeuronCore-v3 (trn2) on. Optional add-reduction of the activated values into ScalarE's 128
``reduce_regs`` (accum.py). GpSimd runs activation on NeuronCore-v4 (trn3) only, without the
accumulator. Cost ``max(MIN_II, N)`` whatever scale/bias; ``+ MIN_II`` when the registers are read out
into ``reduce_res``.
"""
from __future__ import annotations

import math
import warnings

import numpy as np

from ..core.options import options
from . import accum
from . import actfuncs
from . import cost_two as _cost2
from . import native_elementwise as _native
from . import rules as R
from . import runtime as _runtime
from .accum import reduce_cmd
from .alu import OPS
from .isa import _operand, choose_engine as _choose, engine, store_result as _store
from .runtime import NkiInstruction, current
from .plan import remember as _remember, sig as _sig
from .tensor import NkiTensor

NkiValidationError = R.NkiValidationError
_ADD = OPS["add"]


def _act_op(api, op) -> actfuncs.ActFunc:
    a = actfuncs.lookup(op)
    if a is None:
        name = getattr(op, "name", None) or getattr(op, "__name__", None) or repr(op)
        raise NkiValidationError(api, "op", "an activation function of the table (nl.exp, nl.tanh, nl.gelu, "
                                 "nl.copy ...)", name)
    return a


def check_range(api: str, act: actfuncs.ActFunc, x: np.ndarray) -> None:
    bad = act.out_of_range(x)
    if bad is None:
        return
    n = int(np.count_nonzero(bad))
    first = float(x[bad].flat[0])
    what = f"|x| in [{act.lo:g}, {act.hi:g}]" if act.magnitude else f"x in [{act.lo:g}, {act.hi:g}]"
    if options().strict:
        raise NkiValidationError(api, "data", f"{act.name} inputs lie in its documented valid range {what}",
                                 f"{n} outside, e.g. {first:g}")
    warnings.warn(f"{api}: {n} input(s) of {act.name} lie outside its documented valid range {what} "
                  f"(e.g. {first:g}); the hardware's approximation is not valid there",
                  actfuncs.ActivationRangeWarning, stacklevel=3)


#: [doc] nki.errors ``err_activation_bias_invalid_type``: "Bias parameter of activation or
#: activation_reduce must be a vector of type float32, float16, or bfloat16" (its example: a bf16 bias is ok)
BIAS_DTYPES = ("float32", "float16", "bfloat16")
BIAS_DTYPE_MESSAGE = ("Bias parameter of activation or activation_reduce must be a vector of type float32, "
                      "float16, or bfloat16")


def _low_precision_bias(api, bias, data, reads):
    """A (P, 1) fp16 / bf16 bias tile, read as fp32 (exact), with the operand rules of an fp32 one."""
    R.tile(api, "bias", bias)
    if bias.shape != (data.shape[0], 1):
        raise NkiValidationError(api, "bias", f"a tile of shape (data.shape[0], 1) = ({data.shape[0]}, 1)",
                                 bias.shape)
    reads.append(bias)
    return np.array(bias.read(api), np.float32).reshape((data.shape[0],) + (1,) * (len(data.shape) - 1))


class _ActPlan:
    """What one activation geometry decided (no reduction: reduce_cmd idle, no reduce_op/reduce_res)."""
    __slots__ = ("act", "engine", "sc", "bi", "cycles", "args")

    def __init__(self, act, eng, sc, bi, cycles, args):
        self.act, self.engine, self.sc, self.bi, self.cycles, self.args = act, eng, sc, bi, cycles, args


#: (chip, op, type(op), engine, type(engine), dst sig, data sig, scale part, bias part) -> the plan of an
#: accepted call without reduction
_ACT_PLANS: dict = {}
_PLAIN = frozenset({float, int, bool})
_NO_OPERAND = (None, None, None)      # an absent scale/bias's part of the key


def _operand_part(v):
    """A scale/bias argument's part of the plan key: a tile by geometry, a constant by type, value and the
    sign of zero (0.0 == -0.0 hash alike); None when it cannot be keyed (the general path decides)."""
    if v is None:
        return _NO_OPERAND
    if isinstance(v, NkiTensor):
        return type(v), v.sig or _sig(v), None
    if type(v) in _PLAIN or isinstance(v, (np.floating, np.integer)):
        return type(v), v, v == 0 and math.copysign(1.0, v) < 0
    raise TypeError


def _activation_checks(api, run, dst, data, op, scale, bias, reduce_op, reduce_res, cmd, engine_value, reads):
    """Every rule of activation after dst's and data's per-view ones, in the general order; reads a tile
    scale/bias (appending it to ``reads``). Returns (act, reducing, sc, bi, engine)."""
    chip = run.chip
    R.same_partitions(api, ["dst", "data"], [dst, data])
    R.same_free_size(api, ["data", "dst"], [data, dst])
    act = _act_op(api, op)
    if not isinstance(cmd, accum.reduce_cmd):
        raise NkiValidationError(api, "reduce_cmd", "a nisa.reduce_cmd member", cmd)
    reducing = cmd in (accum.reduce_cmd.reduce, accum.reduce_cmd.reset_reduce)
    if reduce_op is not None:
        from .alu import lookup
        ro = lookup(reduce_op)
        if ro is None or ro.name != "add":
            raise NkiValidationError(api, "reduce_op", "nl.add (ScalarE's reduce registers only sum; use "
                                     "tensor_reduce for max/min)", getattr(ro, "name", reduce_op))
    elif reducing or reduce_res is not None:
        raise NkiValidationError(api, "reduce_op", "nl.add when reduce_cmd reduces or reduce_res is given",
                                 None)
    if reduce_res is not None:
        R.tile(api, "reduce_res", reduce_res)
        if reduce_res.shape[0] != data.partitions or reduce_res.free_size != 1:
            raise NkiValidationError(api, "reduce_res", f"a ({data.partitions}, 1) tile (one value per "
                                     "partition)", reduce_res.shape)
    if R.is_scalar(scale):
        sc = np.float32(scale)
    else:
        sc = _operand(api, "scale", scale, data, _ADD, reads, copy=False)
    if bias is None:
        bi = None
    elif R.is_scalar(bias):
        if chip.nc_version < 3:
            raise NkiValidationError(api, "bias", "a (P, 1) tile: scalar bias exists from NeuronCore-v3 "
                                     "(trn2) on", bias)
        bi = np.float32(bias)
    else:
        if isinstance(bias, NkiTensor) and bias.tv.dtype.name not in BIAS_DTYPES:
            raise NkiValidationError(api, "bias", "a (P, 1) tile of float32, float16 or bfloat16",
                                     bias.tv.dtype.name, BIAS_DTYPE_MESSAGE)
        if isinstance(bias, NkiTensor) and bias.tv.dtype.name != "float32":
            bi = _low_precision_bias(api, bias, data, reads)
        else:
            bi = _operand(api, "bias", bias, data, _ADD, reads, copy=False)
    tiles = [dst, *reads] + ([reduce_res] if reduce_res is not None else [])
    names = ["dst", "data", "scale", "bias", "reduce_res"][:len(tiles)]
    why = {"scalar": None,
           "gpsimd": ("activation on GpSimd exists from NeuronCore-v4 (trn3) on" if chip.nc_version < 4 else
                      "the reduce registers are ScalarE's" if (reducing or reduce_res is not None) else
                      R.gpsimd_memory(api, names, tiles))}
    return act, reducing, sc, bi, _choose(api, run, engine_value, why, order=("scalar", "gpsimd"))


def activation(dst, op, data, bias=None, scale=1.0, reduce_op=None, reduce_res=None,
               reduce_cmd=reduce_cmd.idle, engine=engine.unknown, name=None, _api="nisa.activation",
               _readout=None) -> NkiInstruction:
    """``dst = op(data * scale + bias)`` on ScalarE, optionally add-reducing into the reduce registers."""
    api = _api
    run = _runtime._current
    if run is None:
        run = current(api)
    if not (isinstance(dst, NkiTensor) and dst.checked and dst.on_chip):
        R.tile(api, "dst", dst)
    if not (isinstance(data, NkiTensor) and data.checked and data.on_chip):
        R.tile(api, "data", data)
    cmd = reduce_cmd
    key = plan = None
    if reduce_op is None and reduce_res is None and cmd is accum.reduce_cmd.idle:
        try:
            key = (id(run.chip), op, type(op), engine, type(engine), dst.sig or _sig(dst),
                   data.sig or _sig(data), _operand_part(scale),
                   _NO_OPERAND if bias is None else _operand_part(bias), api)
            plan = _ACT_PLANS.get(key)
        except TypeError:
            key = plan = None
    reads = [data]
    if plan is None:
        act, reducing, sc, bi, eng = _activation_checks(api, run, dst, data, op, scale, bias, reduce_op,
                                                        reduce_res, cmd, engine, reads)
    else:
        # a repeat of an accepted geometry: a tile scale's and bias's per-view rules and reads, by the
        # general path's functions (so a warning points where it did)
        act, reducing, eng = plan.act, False, plan.engine
        sc = plan.sc
        if sc is None:
            sc = _operand(api, "scale", scale, data, _ADD, reads, copy=False)
        bi = plan.bi
        if bi is None and bias is not None:
            bi = (_low_precision_bias(api, bias, data, reads) if bias.tv.dtype.name != "float32" else
                  _operand(api, "bias", bias, data, _ADD, reads, copy=False))

    x = data.read(api)
    x = x if x.dtype == np.float32 else x.astype(np.float32)
    mul = None if isinstance(sc, np.float32) and sc == 1.0 else sc
    if mul is not None or bi is not None:
        # x * scale + bias into a new array: the C loop (one float32 operation per step, as numpy), or
        # numpy when it declines (a NaN input, a 3-D tile ...). FP warnings: the run's np.errstate
        # silences them (runtime.activate)
        y = _native.affine(x, mul, bi)
        if y is not None:
            x = y
        else:
            if mul is not None:
                x = x * mul
            if bi is not None:
                x = x + bi
    if act.lo is not None:          # (a function without a documented range has nothing to check)
        check_range(api, act, x)
    y = np.asarray(act.fn(x), np.float32)
    _store(dst, y)
    writes = [dst]
    # (idle without reduce_res leaves the registers as they are: nothing to do; registers never set read
    # as the identity whenever they are first used)
    if reducing or reduce_res is not None or cmd is not accum.reduce_cmd.idle:
        lanes = slice(data.start_partition, data.start_partition + data.partitions)
        sums = accum.reduce_rows("add", y) if (reducing or (reduce_res is not None and cmd is accum.reduce_cmd.idle)) \
            else None
        res = accum.apply(run, "scalar", cmd, "add", lanes, sums)
        if reduce_res is not None:
            _store(reduce_res, res.reshape(reduce_res.shape))
            writes.append(reduce_res)
    if plan is None:
        chip = run.chip
        n = data.free_size
        cycles = (_cost2.scalar_pass(chip, n, data, dst) if eng == "scalar" else _cost2.one_pass(n, data, dst))
        if reduce_res is not None:
            cycles += _cost2.ACT_READ_ACCUMULATOR
        args = {"op": act.name, "reduce_cmd": cmd.value}
        if key is not None:
            _remember(_ACT_PLANS, key, _ActPlan(act, eng, None if isinstance(scale, NkiTensor) else sc,
                                                bi if R.is_scalar(bias) else None, cycles, args), chip)
    else:
        cycles, args = plan.cycles, plan.args
    if len(writes) == 1:    # (every operand is an on-chip tile (R.tile, _operand): nothing to filter)
        return run.issue_tiles(api, eng, cycles, reads, dst, dst.partitions * dst.free_size, dict(args))
    return run.issue(api, eng, cycles, reads=reads, writes=writes, elements=dst.partitions * dst.free_size,
                     args=dict(args))


def activation_reduce(dst, op, data, reduce_op, reduce_res, bias=None, scale=1.0, name=None) -> NkiInstruction:
    """``activation(..., reduce_cmd=reset_reduce)`` with the sum written to ``reduce_res``."""
    api = "nisa.activation_reduce"
    if reduce_res is None:
        raise NkiValidationError(api, "reduce_res", "a (P, 1) tile for the reduction", None)
    return activation(dst, op, data, bias=bias, scale=scale, reduce_op=reduce_op, reduce_res=reduce_res,
                      reduce_cmd=accum.reduce_cmd.reset_reduce, engine=globals()["engine"].scalar, _api=api)


__all__ = ["activation", "activation_reduce", "reduce_cmd"]
