"""``nki.isa`` (``import npusim.nki.isa as nisa``): the current dst-first ISA calls.

Each op: validate every documented rule (rules.py), choose an engine, compute on whole numpy arrays
(arithmetic in float32, cast to ``dst.dtype`` with round-to-nearest-even and integer saturation),
write through ``dst`` only, and place one event via ``Run.issue`` with a cycle cost from cost.py.
"""
from __future__ import annotations

import enum
import math
import sys
from typing import NamedTuple as _NamedTuple

import numpy as np

from ..core.dtypes import cast
from ..core.options import options
from . import access as _access
from . import alu as _alu
from . import cost as _cost
from . import native_elementwise as _native
from . import rules as R
from . import runtime as _runtime
from .alu import AluOp
from .plan import remember as _remember, sig as _sig
from .runtime import NkiInstruction, current
from .tensor import NkiTensor, dtype_of

#: core/options.py itself: ``_options_mod._current`` is options() without a call (per-instruction paths)
_options_mod = sys.modules[options.__module__]

NkiValidationError = R.NkiValidationError


class engine(enum.IntEnum):
    """``nki.isa.engine`` (values as in the SDK)."""
    unknown = 0
    tensor = 1
    scalar = 2
    gpsimd = 3
    dma = 4
    vector = 5
    sync = 6


# Deprecated aliases kept by the SDK.
vector_engine, scalar_engine, gpsimd_engine = engine.vector, engine.scalar, engine.gpsimd
tensor_engine, unknown_engine = engine.tensor, engine.unknown
# (dma_engine is the sendrecv enum of the current API: isa_enums.dma_engine, imported at the end)
from .isa_enums import dge_mode, oob_mode, is_member as _is_member  # noqa: E402  (the DMA option enums)


class nc_version(enum.IntEnum):
    gen2 = 2
    gen3 = 3
    gen4 = 4


def get_nc_version() -> nc_version:
    return nc_version(current("nisa.get_nc_version").chip.nc_version)


# ------------------------------------------------------------------------------------------- helpers

def _f32(values: np.ndarray) -> np.ndarray:
    return values if values.dtype == np.float32 else values.astype(np.float32)


def store_result(dst: NkiTensor, values: np.ndarray) -> None:
    """Cast float32 results to dst's dtype (RNE; integers saturate, NaN -> 0) and write them."""
    d = dst.tv.dtype
    if d.name != "float32" or values.dtype != np.float32:
        values = cast(values, d, overflow=options().float_overflow)
    if values.shape != dst.shape:
        values = values.reshape(dst.shape)
    if _native.copy(values, dst.tv.array()):     # False: dst.write (same bytes, same marks)
        dst.mark_written()
    else:
        dst.write(values)


def _op(api: str, param: str, op, chip) -> AluOp:
    a = _alu.lookup(op)
    if a is None:
        name = getattr(op, "__name__", None) or getattr(op, "name", None) or repr(op)
        if name in _alu.NOT_ALU:
            raise NkiValidationError(api, param, f"an ALU operator: {name} is not one ({_alu.NOT_ALU[name]})", name)
        raise NkiValidationError(api, param, "an ALU operator of the NKI ISA table (nl.add, nl.bitwise_and, ...)",
                                 name)
    if chip.nc_version < a.min_nc:
        raise NkiValidationError(api, param, f"{a.name} exists from NeuronCore-v{a.min_nc} (trn3) on", chip.name)
    return a


def _bits_unsigned(dt) -> np.dtype:
    return np.dtype(f"uint{dt.itemsize * 8}")


def _operand(api: str, param: str, value, data: NkiTensor, op: AluOp, reads: list, copy: bool = True):
    """An operand as a numpy value broadcastable against data: a scalar or a (P, 1) tile. ``copy=False``
    returns an arithmetic tile's values as a view of its memory, for callers that are done with it before
    they write dst (activation computes into new arrays first)."""
    if R.is_scalar(value):
        if op.is_bitvec:
            if isinstance(value, (float, np.floating)) and not float(value).is_integer():
                raise NkiValidationError(api, param, "bitvec operands are integers (bit patterns)", value)
            u = _bits_unsigned(data.tv.dtype)
            return np.array(int(value) & ((1 << (8 * u.itemsize)) - 1), u)
        return np.float32(value)
    if not isinstance(value, NkiTensor):
        raise NkiValidationError(api, param, "a scalar constant or a tile of shape (data.shape[0], 1)",
                                 type(value).__name__)
    R.tile(api, param, value)
    if value.shape != (data.shape[0], 1):
        raise NkiValidationError(api, param, f"a tile of shape (data.shape[0], 1) = ({data.shape[0]}, 1)",
                                 value.shape)
    # The operand may start at another partition than data (a fresh (64, 1) tile for data[64:128]): the
    # arch guide allows cross-half moves at <= 64 partitions, and R.tile checked its own start partition.
    reads.append(value)
    v = value.read(api)
    bshape = (data.shape[0],) + (1,) * (len(data.shape) - 1)
    if op.is_bitvec:
        if not value.tv.dtype.is_int:
            raise NkiValidationError(api, param, "bitvec operand tiles have an integer dtype", value.tv.dtype.name)
        u = _bits_unsigned(data.tv.dtype)
        mask = (1 << (8 * u.itemsize)) - 1
        return (v.astype(np.int64) & mask).astype(u).reshape(bshape)
    if value.tv.dtype.name != "float32":
        raise NkiValidationError(api, param, "arithmetic operand tiles are float32", value.tv.dtype.name)
    if not copy:
        return v.reshape(bshape)                        # float32 (checked above)
    return np.array(v, np.float32).reshape(bshape)     # a copy: dst may overlap the operand


def _apply(op: AluOp, x, v, reverse: bool, out=None):
    """One ALU step; with ``out`` (a float32 array of x's shape) the result lands there."""
    fn = op.fn
    if out is not None and isinstance(fn, np.ufunc):
        if op.unary:
            return fn(x, out=out)
        return fn(v, x, out=out) if reverse else fn(x, v, out=out)
    r = fn(x) if op.unary else (fn(v, x) if reverse else fn(x, v))
    if out is not None:
        np.copyto(out, r, casting="unsafe")
        return out
    return r


# ------------------------------------------------------------------- engine choice (tensor_scalar: its own file)

def choose_engine(api: str, run, engine_value, why: dict[str, str | None], order=("vector", "scalar", "gpsimd")) -> str:
    name = R.engine_arg(api, engine_value, engine)
    if name == "unknown":
        allowed = [e for e in order if e in why and why[e] is None]
        if not allowed:
            raise NkiValidationError(api, "engine", "some engine can run this operation",
                                     "; ".join(f"{e}: {r}" for e, r in why.items()))
        return allowed[0]     # the compiler's preference: Vector, then Scalar, then GpSimd
    if name not in why:
        raise NkiValidationError(api, "engine", f"one of {', '.join('engine.' + e for e in why)}",
                                 f"engine.{name}")
    if why[name] is not None:
        raise NkiValidationError(api, "engine", why[name], f"engine.{name}")
    return name


# ----------------------------------------------------------------------------------------- tensor_tensor

_INT32 = ("int32", "uint32")

# How a tensor_tensor plan computes: bit patterns, exact int64 math (GpSimd int32), float32 straight into
# dst, or float32 then the cast into dst's dtype.
_TT_BITVEC, _TT_INT, _TT_DIRECT, _TT_CAST = "bitvec", "int", "direct", "cast"


class _TensorTensorPlan:
    """What one tensor_tensor geometry decided (everything but the values)."""
    __slots__ = ("a", "engine", "path", "cycles", "elements", "f32_in")

    def __init__(self, a, eng, path, cycles, elements, f32_in):
        self.a, self.engine, self.path, self.cycles, self.elements = a, eng, path, cycles, elements
        self.f32_in = f32_in        # both inputs read as float32 arrays (no conversion)


#: (chip, op, type(op), engine, type(engine), dst sig, data1 sig, data2 sig) -> the plan of a call that
#: passed every rule
_TT_PLANS: dict = {}


def _tensor_tensor_plan(api, run, dst, data1, data2, op, engine_value) -> _TensorTensorPlan:
    """Every geometry rule of tensor_tensor after the per-view ones, in the general order."""
    chip = run.chip
    R.same_partitions(api, ["dst", "data1", "data2"], [dst, data1, data2])
    R.same_free_size(api, ["data1", "data2"], [data1, data2])
    R.same_free_size(api, ["data1", "dst"], [data1, dst])
    if data1.in_psum and data2.in_psum:
        raise NkiValidationError(api, "data2", "data1 and data2 are not both in PSUM", "both in PSUM")
    a = _op(api, "op", op, chip)
    if a.unary:
        raise NkiValidationError(api, "op", "a binary operator", a.name)
    tiles, names = [dst, data1, data2], ["dst", "data1", "data2"]
    all_int32 = all(t.tv.dtype.name in _INT32 for t in tiles)
    if a.is_bitvec:
        for p, t in zip(names, tiles):
            if not t.tv.dtype.is_int:
                raise NkiValidationError(api, p, "bitvec operators need integer dtypes", t.tv.dtype.name)
        if len({t.itemsize for t in tiles}) > 1:
            raise NkiValidationError(api, "dst", "bitvec operands and dst have the same width",
                                     [t.tv.dtype.name for t in tiles])
    psum_reason = R.gpsimd_memory(api, names, tiles)
    why = {"vector": None if "vector" in a.engines else f"the Vector engine has no {a.name}",
           "gpsimd": psum_reason or (None if ("gpsimd" in a.engines or all_int32) and not a.is_bitvec
                                     else f"GpSimd runs tensor_tensor only for add, multiply, power and "
                                          f"all-int32 operands ({a.name})")}
    eng_name = R.engine_arg(api, engine_value, engine)
    if eng_name == "unknown" and why["gpsimd"] is None and (a.name == "power" or all_int32):
        eng = "gpsimd"       # the compiler's default: power, and exact 32-bit integer math, on GpSimd
    else:
        eng = choose_engine(api, run, engine_value, why, order=("vector", "gpsimd"))
    if a.is_bitvec:
        path = _TT_BITVEC
    elif eng == "gpsimd" and all_int32 and a.name in ("add", "subtract", "multiply", "maximum", "minimum"):
        path = _TT_INT
    elif dst.tv.dtype.name == "float32" and dst.shape == data1.shape and isinstance(a.fn, np.ufunc):
        path = _TT_DIRECT
    else:
        path = _TT_CAST
    return _TensorTensorPlan(a, eng, path, _cost.two_input(chip, eng, data1, data2, dst),
                             dst.partitions * dst.free_size,
                             data1.tv.dtype.name == "float32" and data2.tv.dtype.name == "float32")


def tensor_tensor(dst, data1, data2, op, engine=engine.unknown, name=None) -> NkiInstruction:
    """``dst = data1 <op> data2`` elementwise (no broadcasting; not both inputs in PSUM)."""
    api = "nisa.tensor_tensor"
    run = _runtime._current
    if run is None:
        run = current(api)          # raises: no kernel is running
    # inputs first, as the official simulator reports them; a view that passed its per-view rules
    # (rules.compute_tile sets .checked; a legacy tile is an NkiTensor too) skips the call
    if not (isinstance(data1, NkiTensor) and data1.checked and data1.on_chip):
        R.tile(api, "data1", data1)
    if not (isinstance(data2, NkiTensor) and data2.checked and data2.on_chip):
        R.tile(api, "data2", data2)
    if not (isinstance(dst, NkiTensor) and dst.checked and dst.on_chip):
        R.tile(api, "dst", dst)
    try:
        key = (id(run.chip), op, type(op), engine, type(engine), dst.sig or _sig(dst),
               data1.sig or _sig(data1), data2.sig or _sig(data2))
        plan = _TT_PLANS.get(key)
    except TypeError:               # an unhashable op or engine: the checks report it
        key = plan = None
    if plan is None:
        plan = _remember(_TT_PLANS, key, _tensor_tensor_plan(api, run, dst, data1, data2, op, engine),
                         run.chip)
    a = plan.a
    x1, x2 = data1.read(api), data2.read(api)
    if x2.shape != x1.shape:
        x2 = x2.reshape(x1.shape)
    path = plan.path
    if path is _TT_DIRECT:
        if plan.f32_in:
            if not _native.binary(a.fn, x1, x2, out := dst.tv.array()):   # False: numpy computes it
                a.fn(x1, x2, out=out)
        else:
            a.fn(_f32(x1), _f32(x2), out=dst.tv.array())
        dst.mark_written()
    elif path is _TT_BITVEC:
        u = _bits_unsigned(data1.tv.dtype)
        r = a.fn(x1.view(u), x2.astype(np.int64).astype(u) if x2.dtype != x1.dtype else x2.view(u))
        dst.write(np.asarray(r, u).view(dst.tv.dtype.np).reshape(dst.shape))
    elif path is _TT_INT:
        r = a.fn(x1.astype(np.int64), x2.astype(np.int64))
        dst.write(cast(r, dst.tv.dtype).reshape(dst.shape))
    else:
        store_result(dst, _f32(np.asarray(a.fn(_f32(x1), _f32(x2)))))
    # (every operand is an on-chip tile (R.tile): issue's operand filtering has nothing to do)
    return run.issue_tiles(api, plan.engine, plan.cycles, (data1, data2), dst, plan.elements, {"op": a.name})


# ------------------------------------------------------------------------------------------ tensor_copy

class _CopyPlan:
    """What one tensor_copy geometry decided."""
    __slots__ = ("engine", "raw", "cycles", "elements")

    def __init__(self, eng, raw, cycles, elements):
        self.engine, self.raw, self.cycles, self.elements = eng, raw, cycles, elements


#: (chip, engine, type(engine), dtype, type(dtype), dst sig, src sig) -> the plan of an accepted call
_COPY_PLANS: dict = {}


def _tensor_copy_plan(api, run, dst, src, engine_value, dtype) -> _CopyPlan:
    """Every rule of tensor_copy after the per-view ones, in the general order."""
    chip = run.chip
    R.same_partitions(api, ["dst", "src"], [dst, src])
    R.same_free_size(api, ["src", "dst"], [src, dst])
    if dtype is not None:
        dtype_of(dtype, api, "dtype")
    why = {"vector": None,
           "scalar": None if chip.nc_version >= 3 else "tensor_copy on the Scalar engine is not supported on "
                                                        "NeuronCore-v2 (use activation(op=nl.copy))",
           "gpsimd": R.gpsimd_memory(api, ["dst", "src"], [dst, src])}
    eng = choose_engine(api, run, engine_value, why)
    return _CopyPlan(eng, src.tv.dtype == dst.tv.dtype and eng != "scalar", _cost.one_input(chip, eng, src, dst),
                     dst.partitions * dst.free_size)


def tensor_copy(dst, src, engine=engine.unknown, name=None, dtype=None) -> NkiInstruction:
    """Copy ``src`` to ``dst``; bit-exact on Vector/GpSimd when dtypes match, else through float32.
    ``dtype=`` is not in the current signature; the official matmul tutorials still pass it, with a dst of
    another dtype (fp32 ``res_sb``, ``dtype=result.dtype`` bf16), so it is accepted, checked to be an NKI
    dtype, and has no effect: dst's dtype decides the result."""
    api = "nisa.tensor_copy"
    run = _runtime._current
    if run is None:
        run = current(api)
    if not (isinstance(dst, NkiTensor) and dst.checked and dst.on_chip):
        R.tile(api, "dst", dst)
    if not (isinstance(src, NkiTensor) and src.checked and src.on_chip):
        R.tile(api, "src", src)
    try:
        key = (id(run.chip), engine, type(engine), dtype, type(dtype), dst.sig or _sig(dst),
               src.sig or _sig(src))
        plan = _COPY_PLANS.get(key)
    except TypeError:
        key = plan = None
    if plan is None:
        plan = _remember(_COPY_PLANS, key, _tensor_copy_plan(api, run, dst, src, engine, dtype), run.chip)
    x = src.read(api)
    if plan.raw and _native.copy(x, dst.tv.array()):     # False: dst.write below (same bytes, same marks)
        dst.mark_written()
    elif plan.raw:
        dst.write(x.reshape(dst.shape) if x.shape != dst.shape else x)
    else:
        store_result(dst, _f32(x))
    # (one on-chip read and write (R.tile): the short issue path)
    return run.issue_one(api, plan.engine, plan.cycles, src, dst, None, plan.elements, dst.nbytes)


# ----------------------------------------------------------------------------------------------- memset

class _MemsetPlan:
    __slots__ = ("engine", "fill", "cycles", "elements")

    def __init__(self, eng, fill, cycles, elements):
        self.engine, self.fill, self.cycles, self.elements = eng, fill, cycles, elements


#: (chip, engine, type(engine), dst sig, type(value), value, value is -0, float_overflow) -> plan
_MEMSET_PLANS: dict = {}
_PLAIN_SCALARS = frozenset({float, int, bool})


def _memset_plan(api, run, dst, value, engine_value) -> _MemsetPlan:
    """Every rule of memset after the per-view ones, in the general order."""
    d = dst.tv.dtype
    if not R.is_scalar(value):
        raise NkiValidationError(api, "value", "a scalar constant", type(value).__name__)
    if d.is_int or d.kind == "b":
        if isinstance(value, (float, np.floating)):
            raise NkiValidationError(api, "value", f"value matches the dst dtype (an int for {d.name}, "
                                     "e.g. 2 not 2.0)", value)
        if not d.min <= int(value) <= d.max:
            raise NkiValidationError(api, "value", f"value fits {d.name} [{int(d.min)}, {int(d.max)}]", value)
        fill = np.array(int(value)).astype(d.np)
    else:
        fill = cast(np.array(value, np.float64), d, overflow=options().float_overflow)
    why = {"vector": None, "gpsimd": R.gpsimd_memory(api, ["dst"], [dst])}
    eng = choose_engine(api, run, engine_value, why, order=("vector", "gpsimd"))
    return _MemsetPlan(eng, fill, _cost.memset(run.chip, dst, value == 0), dst.partitions * dst.free_size)


def memset(dst, value, engine=engine.unknown, name=None) -> NkiInstruction:
    """Fill ``dst`` with ``value`` (which matches dst's dtype: an int for integer tiles)."""
    api = "nisa.memset"
    run = _runtime._current
    if run is None:
        run = current(api)
    if not (isinstance(dst, NkiTensor) and dst.checked and dst.on_chip):
        R.tile(api, "dst", dst)
    key = plan = None
    if type(value) in _PLAIN_SCALARS or isinstance(value, (np.floating, np.integer, np.bool_)):
        # type and the sign of zero are part of a constant's identity (0.0 == -0.0 == False hash alike)
        try:
            key = (id(run.chip), engine, type(engine), dst.sig or _sig(dst), type(value), value,
                   value == 0 and math.copysign(1.0, value) < 0, _options_mod._current.float_overflow)
            plan = _MEMSET_PLANS.get(key)
        except TypeError:
            key = plan = None
    if plan is None:
        plan = _remember(_MEMSET_PLANS, key, _memset_plan(api, run, dst, value, engine), run.chip)
    if _native.fill(dst.tv.array(), plan.fill):     # False: dst.write (same bytes, same marks)
        dst.mark_written()
    else:
        dst.write(plan.fill)
    return run.issue_tiles(api, plan.engine, plan.cycles, (), dst, plan.elements, None)     # (dst: on-chip)


# --------------------------------------------------------------------------------------------- dma_copy

class _DmaPlan(_NamedTuple):
    """What one direct dma_copy geometry decided (its checks passed): whether the dtypes match, the DMA
    engines of its data phase, its cost (ns, the data phase's ns) and its element count."""
    same_dtype: bool
    groups: tuple
    ns: float
    data_ns: float
    elements: int


#: (chip, dst sig, src sig, dst start partition, src start partition) -> the _DmaPlan of an accepted direct
#: (not indirect) dma_copy without options. The sigs name each side's shape, strides, dtype and buffer
#: (on chip or not); an HBM side's start partition is 0.
_DMA_PLANS: dict = {}


def _dma_copy_checks(api, run, dst, src, oob_mode, dge_mode) -> None:
    """Every rule of dma_copy after the operand type and scope checks, in the general order."""
    for p, v, cls in (("oob_mode", oob_mode, globals()["oob_mode"]), ("dge_mode", dge_mode, globals()["dge_mode"])):
        if v is not None and not _is_member(cls, v):
            raise NkiValidationError(api, p, f"an nki.isa.{p} member (or None)", v)
    oob_mode = None if oob_mode is None else globals()["oob_mode"](oob_mode)   # a plain int -> its member
    if src.in_psum:
        raise NkiValidationError(api, "src", "dma_copy does not read PSUM (since NKI 0.3: copy to SBUF first)",
                                 "psum")
    if dst.in_psum:
        raise NkiValidationError(api, "dst", "dma_copy moves HBM<->SBUF, SBUF<->SBUF or HBM<->HBM", "psum")
    for p, t in (("dst", dst), ("src", src)):
        if t.on_chip and t.partitions > run.chip.partitions:
            raise NkiValidationError(api, p, "partition dim <= 128", t.shape,
                                     f"dma_copy {p} partition dimension {t.partitions} exceeds maximum 128")
    if dst.size != src.size:
        raise NkiValidationError(api, "dst", "dst and src hold the same number of elements",
                                 f"dst {dst.shape} ({dst.size}), src {src.shape} ({src.size})",
                                 "dma_copy requires src and dst to have the same number of elements, "
                                 f"got src={src.size}, dst={dst.size}")


def _dma_plan(api, run, dst, src) -> _DmaPlan:
    """The checks of a direct dma_copy without options, then what they decided."""
    _dma_copy_checks(api, run, dst, src, None, None)
    chip = run.chip
    groups = tuple(_dma_groups(chip, dst, src))      # (a tuple: DmaEngines keys its classes on it)
    ns = _cost.dma_ns(chip, max(dst.tv.nbytes, src.tv.nbytes), len(groups))
    return _DmaPlan(src.tv.dtype == dst.tv.dtype, groups, ns, ns - chip.dma_fixed_ns, dst.partitions * dst.free_size)


def dma_copy(dst, src, priority=None, oob_mode=None, dge_mode=None, engine=engine.unknown,
             name=None) -> NkiInstruction:
    """Copy HBM<->SBUF, SBUF<->SBUF or HBM<->HBM; element counts match; casts go src -> fp32 -> dst."""
    api = "nisa.dma_copy"
    run = _runtime._current
    if run is None:
        run = current(api)
    # R.tile(api, p, t, on_chip=False) for dst then src: called only when it raises (not a tensor, or
    # a dead tile), so the common case costs no call
    if not (type(dst) is NkiTensor or isinstance(dst, NkiTensor)):
        R.tile(api, "dst", dst, on_chip=False)
    scope = (dst.root or dst).scope
    if scope is not None and scope.ended and scope.strict:
        R.tile(api, "dst", dst, on_chip=False)
    if not (type(src) is NkiTensor or isinstance(src, NkiTensor)):
        R.tile(api, "src", src, on_chip=False)
    if oob_mode is None and dge_mode is None and (dst.ind is None or not dst.is_indirect()):
        return _dma_copy_into(run, dst, src)
    scope = (src.root or src).scope
    if scope is not None and scope.ended and scope.strict:
        R.tile(api, "src", src, on_chip=False)
    return _dma_copy_general(api, run, dst, src, oob_mode, dge_mode)


def _dma_copy_into(run, dst, src) -> NkiInstruction:
    """``dma_copy(dst, src)`` without options once dst passed its checks (a tensor, alive, not indirect)
    and src is a tensor: nl.load calls it for the tile it just allocated. The rest of dma_copy's checks
    in its order: src alive, then (through the plan of this geometry) the rules."""
    api = "nisa.dma_copy"
    scope = (src.root or src).scope
    if scope is not None and scope.ended and scope.strict:
        R.tile(api, "src", src, on_chip=False)
    if src.ind is not None and src.is_indirect():
        return _dma_copy_general(api, run, dst, src, None, None)
    key = (id(run.chip), dst.sig or _sig(dst), src.sig or _sig(src), dst.start_partition, src.start_partition)
    plan = _DMA_PLANS.get(key)
    if plan is None:
        plan = _remember(_DMA_PLANS, key, _dma_plan(api, run, dst, src), run.chip)
    same_dtype, groups, ns, data_ns, elements = plan
    x = src.read(api)
    if same_dtype and _native.copy(x, dst.tv.array()):     # False: dst.write below
        dst.mark_written()
    elif same_dtype:
        dst.write(x.reshape(dst.shape) if x.shape != dst.shape else x)
    else:
        store_result(dst, _f32(x).reshape(dst.shape))
    return run.issue_dma(api, None, ns, src, dst, elements, groups, data_ns)     # (None: dma_queue())


def _dma_copy_general(api, run, dst, src, oob_mode, dge_mode) -> NkiInstruction:
    """dma_copy with options or an indirect side: every check, then the copy (access.py resolves the
    addresses an indirect pattern reads from SBUF now)."""
    _dma_copy_checks(api, run, dst, src, oob_mode, dge_mode)
    if not (src.is_indirect() or dst.is_indirect()):
        x = src.read(api)
        if src.tv.dtype == dst.tv.dtype:
            dst.write(x.reshape(dst.shape) if x.shape != dst.shape else x)
        else:
            store_result(dst, _f32(x).reshape(dst.shape))
        reads, writes = [src], [dst]
    else:       # scalar_offset / vector_offset access patterns: addresses read from SBUF now (access.py)
        reads, writes = _access.dma_move(api, dst, src, oob_mode, lambda v, d: cast(_f32(v), d,
                                         overflow=options().float_overflow))
    return dma_issue(api, run, dst, src, reads, writes)


def _dma_groups(chip, dst, src) -> list:
    """The DMA engines a transfer's data phase uses: those of the SBUF side's partitions, else all."""
    per = _cost.PARTITIONS_PER_DMA_ENGINE
    groups = set()
    for t in (dst, src):
        if t.on_chip:
            groups.update(range(t.start_partition // per, (t.start_partition + t.partitions - 1) // per + 1))
    return sorted(g for g in groups if g < chip.dma_queues) or list(range(chip.dma_queues))


def dma_issue(api: str, run, dst, src, reads, writes, elements=None, nbytes=None,
              not_before_ns: float = 0.0) -> NkiInstruction:
    """Place one DMA transfer on the timeline (dma_copy, dma_transpose): the first free of the 16 queues,
    the fixed latency overlapping, the data phase on the DMA engines of the partitions it touches."""
    # The 16 DMA engines each serve 8 partitions: an SBUF side uses the engines of its partitions,
    # HBM<->HBM uses all (dma.py). The data phase needs those engines to itself; the fixed latency
    # overlaps across queues.
    chip = run.chip
    groups = _dma_groups(chip, dst, src)
    nbytes = max(dst.tv.nbytes, src.tv.nbytes) if nbytes is None else nbytes    # dma_compute: all its sources
    ns = _cost.dma_ns(chip, nbytes, len(groups))
    if elements is None:
        elements = dst.partitions * dst.free_size
    return _dma_place(api, run, reads, writes, groups, ns, ns - chip.dma_fixed_ns, elements, not_before_ns)


def _dma_place(api, run, reads, writes, groups, ns, data_ns, elements, not_before_ns=0.0) -> NkiInstruction:
    """``not_before_ns``: data from another core (lnc.py) that arrives no earlier."""
    fixed = run.chip.dma_fixed_ns
    q = run.dma_queue()
    ready = run.ready_ns(q, reads=reads, writes=writes)
    if not_before_ns > ready:
        ready = not_before_ns
    data_start = run.dma_engines.earliest(groups, ready + fixed, data_ns)
    ins = run.issue(api, q, ns, reads=reads, writes=writes, elements=elements, not_before_ns=data_start - fixed)
    run.dma_engines.reserve(groups, ins.event.end_ns - data_ns, data_ns)
    return ins


# ---- part two (TensorE, activation, reductions, GpSimd ...): see part_two.py ----
from .part_two import *  # noqa: E402,F401,F403
from .isa_matmul import VECTOR_TRANSPOSE_MAX  # noqa: E402,F401
from .isa_tensor_scalar import tensor_scalar  # noqa: E402,F401
from .isa_three import (dma_transpose, max8, nc_find_index8, nc_match_replace8,  # noqa: E402,F401
                        nc_stream_shuffle)
from .isa_enums import dma_engine  # noqa: E402,F401
from .lnc import core_barrier, sendrecv  # noqa: E402,F401
from .mx import nc_matmul_mx, quantize_mx  # noqa: E402,F401
from .registers import (VirtualRegister, register_alloc, register_load, register_move,  # noqa: E402,F401
                        register_store)
from .isa_four import dma_compute, exponential, local_gather, nonzero_with_count  # noqa: E402,F401
from . import isa_constants as constants  # noqa: E402,F401  (nki.isa.constants)
from .isa_five import *  # noqa: E402,F401,F403  (part five: isa_five.__all__)
