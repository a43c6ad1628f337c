"""``neuronxcc.nki.language`` (the legacy API, NKI "0.1", SDK <= 2.26) on npusim's engines.

Every function here is a thin layer over the current ``npusim.nki.language`` / ``isa`` calls, so the
rules, casts, costs and timeline are the same; what differs is the legacy surface:

* results are returned (``t = nl.load(x)``, ``nl.exp(t)``) as ``LegacyTensor`` tiles with operators;
* ``nl.arange`` / ``nl.mgrid`` index expressions give strided views (``index.py``);
* ``mask=``: the op runs on the whole tile, and only the masked elements are stored (the rest of a new
  tile stays unwritten: poison); the cost is the whole op's. ``load``/``store`` move only masked elements;
* ``dtype=`` on every op;
* ``nl.divide`` by a scalar is a multiply by its fp32 reciprocal, by a tile a VectorE ``reciprocal`` then a
  multiply: the engines have no divide (alu.NOT_ALU), so a quotient may differ from numpy's by 1 ulp;
* ``nl.par_dim`` marks the partition dim: first (an ordinary tile) or after block dims (``BlockTile``);
* reductions take any free axes (``nl.sum(t, axis=[2, 4])``): the view is permuted so they come last.
"""
from __future__ import annotations

from dataclasses import dataclass, fields

import ml_dtypes
import numpy as np

from ...core.dtypes import cast as _cast
from ...core.errors import ConstraintError
from .. import isa as _isa
from .. import language as _nl
from .. import language_two as _nl2
from ..actfuncs import ACT
from ..alu import NUMPY_ALIASES, OPS, AluOp
from ..args import is_int as _is_int
from ..runtime import current
from ..tensor import NkiTensor, dtype_of as _dtype_of
from . import index as _index
from .index import Grid, arange, mgrid  # noqa: F401  (nl.arange, nl.mgrid)
from .tensor import BlockTile, LegacyTensor, legacy  # noqa: F401  (LegacyTensor: the tile type)
from .movement import _apply_mask, load, load_transpose2d, store  # noqa: F401  (nl.load ...)
from .assign import MATMUL_RESULTS, LoopReduce, assign, loop_reduce, update  # noqa: F401  (t[k] = v ...)

# ---- names shared with the current API (buffers, dtypes, SPMD, loops, tile sizes) ----
sbuf, psum, hbm, private_hbm, shared_hbm = _nl.sbuf, _nl.psum, _nl.hbm, _nl.private_hbm, _nl.shared_hbm
float32, float16, bfloat16, tfloat32 = _nl.float32, _nl.float16, _nl.bfloat16, _nl.tfloat32
float8_e4m3, float8_e5m2, float8_e4m3fn = _nl.float8_e4m3, _nl.float8_e5m2, _nl.float8_e4m3fn
int8, int16, int32, uint8, uint16, uint32, bool_ = (_nl.int8, _nl.int16, _nl.int32, _nl.uint8, _nl.uint16,
                                                    _nl.uint32, _nl.bool_)
class FloatName:
    """A legacy short dtype name (``nl.fp32``): usable wherever a dtype is (numpy reads its ``dtype``
    attribute), equal to that dtype, with the finite range as ``.min`` / ``.max`` (``nl.fp32.min`` is the
    tutorials' stand-in for -inf)."""
    __slots__ = ("dtype", "min", "max")

    def __init__(self, dt):
        self.dtype = np.dtype(dt)
        info = ml_dtypes.finfo(self.dtype)
        self.min, self.max = float(info.min), float(info.max)

    def __eq__(self, other) -> bool:
        try:
            return self.dtype == np.dtype(other)
        except TypeError:
            return NotImplemented

    def __hash__(self) -> int:
        return hash(self.dtype)

    def __repr__(self) -> str:
        return f"nl.{self.dtype.name}"


fp32, fp16, bf16 = FloatName(float32), FloatName(float16), FloatName(bfloat16)
tf32 = tfloat32
fp8_e4m3, fp8_e5m2 = FloatName(float8_e4m3), FloatName(float8_e5m2)
tile_size = _nl.tile_size
program_id, num_programs, program_ndim = _nl.program_id, _nl.num_programs, _nl.program_ndim
affine_range, sequential_range, static_range = _nl.affine_range, _nl.sequential_range, _nl.static_range
ds, device_print = _nl.ds, _nl.device_print


class nc:
    """``nl.nc(n)``: n NeuronCores for one SPMD grid dimension (``kernel[nl.spmd_dim(g, nl.nc(2)), ...]``)."""
    __slots__ = ("count",)

    def __init__(self, count):
        self.count = int(count)


def spmd_dim(*dims) -> int:
    """``nl.spmd_dim(grid, nl.nc(2))``: one grid dimension of ``grid`` programs per core times the cores,
    i.e. ``program_id`` runs over the product. Two programs on trn2 / trn3 run on the two LNC2 cores'
    timelines (lnc.py), a larger product on one core's timeline."""
    n = 1
    for d in dims:
        n *= d.count if isinstance(d, nc) else int(d)
    return n


class par_dim:
    """``nl.par_dim(n)``: marks the partition dim of a tile's shape."""
    __slots__ = ("size",)

    def __init__(self, size):
        self.size = int(size)

    def __int__(self) -> int:
        return self.size

    def __index__(self) -> int:
        return self.size

    def __repr__(self) -> str:
        return f"par_dim({self.size})"


# ---- creation ----

def _layout(shape, api):
    """(tile shape with the partition dim first, number of block dims before it)."""
    if type(shape) is tuple:
        for d in shape:
            if type(d) is not int:
                break
        else:
            return shape, 0         # Python ints, no par_dim mark: the shape as it is (the usual case)
    shape = tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)
    if not all(_is_int(d) or isinstance(d, par_dim) for d in shape):          # nl.ndarray's own shape rule then checks the sizes
        raise ConstraintError(api, "shape", "a tuple of ints (one may be an nl.par_dim)", shape)
    marks = [i for i, d in enumerate(shape) if isinstance(d, par_dim)]
    if len(marks) > 1:
        raise ConstraintError(api, "shape", "at most one nl.par_dim", shape)
    if not marks or marks[0] == 0:
        return tuple(int(d) for d in shape), 0
    p = marks[0]
    return (int(shape[p]),) + tuple(int(d) for d in shape[:p]) + tuple(int(d) for d in shape[p + 1:]), p


def _blocked(t, nblocks):
    t = legacy(t)
    return BlockTile(t, nblocks) if nblocks else t


def ndarray(shape, dtype, buffer=sbuf, name="", **kwargs):
    shape, nb = _layout(shape, "nl.ndarray")
    if nb and not buffer.on_chip:
        raise ConstraintError("nl.ndarray", "shape", "nl.par_dim marks an on-chip tile", buffer)
    return _blocked(_nl.ndarray(shape, dtype, buffer=buffer, name=name), nb)


def _filled(fn, api, shape, dtype, buffer, name, *value):
    shape, nb = _layout(shape, api)
    return _blocked(fn(shape, *value, dtype, buffer=buffer, name=name) if value else
                    fn(shape, dtype, buffer=buffer, name=name), nb)


def zeros(shape, dtype, buffer=sbuf, name="", **kwargs):
    return _filled(_nl.zeros, "nl.zeros", shape, dtype, buffer, name)


def ones(shape, dtype, buffer=sbuf, name="", **kwargs):
    return _filled(_nl.ones, "nl.ones", shape, dtype, buffer, name)


def full(shape, fill_value, dtype, buffer=sbuf, name="", **kwargs):
    return _filled(_nl.full, "nl.full", shape, dtype, buffer, name, fill_value)


def _like(api, a):
    if not hasattr(a, "shape") or not hasattr(a, "buffer"):
        raise ConstraintError(api, "a", "an NKI tensor", a)


def zeros_like(a, dtype=None, buffer=None, name="", **kwargs):
    _like("nl.zeros_like", a)
    return zeros(a.shape, dtype or a.dtype, buffer or a.buffer, name)


def empty_like(a, dtype=None, buffer=None, name="", **kwargs):
    _like("nl.empty_like", a)
    return ndarray(a.shape, dtype or a.dtype, buffer or a.buffer, name)


def shared_constant(constant, dtype=None, **kwargs):
    """``nl.shared_constant(array, dtype)``: an HBM tensor holding a trace-time constant (in the NEFF on a
    device), cast to ``dtype`` through fp32 as a DMA cast would."""
    api = "nl.shared_constant"
    value = np.asarray(constant)
    dt = _dtype_of(dtype if dtype is not None else value.dtype, api)
    t = current(api).hbm_tensor(value.shape if value.ndim else (1,), dt, private_hbm, "shared_constant")
    t.write(_cast(value.astype(np.float32).reshape(t.shape), dt) if value.dtype != dt.np else value.reshape(t.shape))
    return legacy(t)


def copy(x, dtype=None, mask=None, **kwargs):
    """A copy of the tile ``x`` in SBUF (the legacy docstring: "allocated on SBUF", also for a PSUM ``x``;
    the current nl.copy stays in x's buffer), made by ScalarE ``activation(copy)`` as the current one."""
    api = "nl.copy"
    if not isinstance(x, NkiTensor) or not x.on_chip:
        raise ConstraintError(api, "x", "a tile in SBUF or PSUM", getattr(x, "buffer", type(x).__name__))
    out = legacy(current(api).allocate(x.shape, dtype or x.dtype, sbuf, "", api))
    _isa.activation(out, ACT["copy"], x)
    return _apply_mask(api, out, mask)


# ---- elementwise ----

def _across_partitions(x, y):
    """A one-partition 2-D tile meeting a wider one (``zeros((128, 1)) + sink (1, 1)``) is first broadcast
    across the partitions (``nl.broadcast_to``: a K=1 TensorE matmul), as the legacy compiler did."""
    if isinstance(x, NkiTensor) and isinstance(y, NkiTensor) and x.partitions != y.partitions:
        if x.partitions == 1 and len(x.shape) == 2:
            x = broadcast_to(x, (y.partitions, x.shape[1]))
        elif y.partitions == 1 and len(y.shape) == 2:
            y = broadcast_to(y, (x.partitions, y.shape[1]))
    return x, y


@dataclass(frozen=True, eq=False)
class LegacyAluOp(AluOp):
    """An ALU operator of the legacy nl (``nl.multiply``): the same table entry, usable as an ISA ``op=``,
    and called as a function it returns a legacy tile (``mask=``, ``dtype=``)."""

    def __call__(self, x, y=None, dtype=None, mask=None, **kwargs):
        if type(x) is not LegacyTensor or type(y) is not LegacyTensor or x.partitions != y.partitions:
            x, y = _across_partitions(x, y)     # (two legacy tiles of one partition count: nothing to do)
        out = _nl.elementwise(OPS[self.name], x, None if self.unary else y, dtype)
        if type(out) is NkiTensor:      # (legacy(out), inlined: an operator's one result)
            out.__class__ = LegacyTensor
        return out if mask is None else _apply_mask(f"nl.{self.name}", out, mask)


for _name, _op in OPS.items():
    globals()[_name] = LegacyAluOp(*(getattr(_op, f.name) for f in fields(AluOp)))


def negative(x, dtype=None, mask=None, **kwargs):
    return _apply_mask("nl.negative", legacy(_nl.negative(x, dtype)), mask)


#: numpy's int and float scalar types (a divisor of one of these takes divide's short path)
_NP_REALS = frozenset(t for t in set(np.sctypeDict.values()) if issubclass(t, (np.integer, np.floating)))


#: (type, value) of a nonzero number -> its fp32 reciprocal as divide computes it (a loop divides by the
#: same count each iteration)
_RECIPROCALS: dict = {}


def divide(x, y, dtype=None, mask=None, **kwargs):
    """``x / y``: the engines have no divide; multiply by the reciprocal (fp32 for a scalar, VectorE
    ``reciprocal`` for a tile)."""
    api = "nl.divide"
    ty = type(y)
    if type(x) is LegacyTensor and (ty is int or ty is float or ty in _NP_REALS):
        # (the usual ``tile / n``: what the tile-by-number branch below does for it)
        r = _RECIPROCALS.get((ty, y))
        if r is None:
            r = float(np.float32(1) / np.float32(y))
            if r != 0 and r - r == 0 and len(_RECIPROCALS) < 1024:
                # (a finite nonzero reciprocal only: y was not 0 (0.0 and -0.0 are one key), inf, NaN or
                # past fp32's range, none of which could warn)
                _RECIPROCALS[(ty, y)] = r
        out = _nl.elementwise(OPS["multiply"], x, r, dtype)
    elif isinstance(y, NkiTensor):
        r = current(api).allocate(y.shape, "float32", sbuf, "", api)
        _isa.reciprocal(r, y)
        if not isinstance(x, NkiTensor):
            if isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, float, np.integer, np.floating)):
                raise ConstraintError(api, "x", "an NKI tensor or a number", x)
            out = _nl.elementwise(OPS["multiply"], r, float(x), dtype or y.dtype)
        else:
            out = _nl.elementwise(OPS["multiply"], x, r, dtype or x.dtype)
    elif isinstance(x, NkiTensor):
        if isinstance(y, (bool, np.bool_)) or not isinstance(y, (int, float, np.integer, np.floating)):
            raise ConstraintError(api, "y", "an NKI tensor or a number", y)
        out = _nl.elementwise(OPS["multiply"], x, float(np.float32(1) / np.float32(y)), dtype)
    else:
        raise ConstraintError(api, "x", "at least one operand is a tile", (type(x).__name__, type(y).__name__))
    if type(out) is NkiTensor:          # (legacy(out), inlined)
        out.__class__ = LegacyTensor
    return out if mask is None else _apply_mask(api, out, mask)


true_divide = divide


def _activation(name):
    act = ACT[name]

    def f(x, dtype=None, mask=None, **kwargs):
        out = _nl.activation_call(act, x, dtype)
        if type(out) is NkiTensor:      # (legacy(out), inlined)
            out.__class__ = LegacyTensor
        return out if mask is None else _apply_mask(f"nl.{name}", out, mask)
    f.__name__ = name
    return f


for _name in ("exp", "log", "sin", "cos", "tan", "tanh", "sigmoid", "gelu", "gelu_dx", "gelu_apprx_tanh",
              "silu", "silu_dx", "softplus", "mish", "sqrt", "erf", "erf_dx", "arctan", "sign", "ceil", "floor",
              "trunc"):
    if _name in ACT:
        globals()[_name] = _activation(_name)


# ---- reductions (any free axes) ----

#: the reductions' checked axes: (ndim, axis as written) -> sorted non-negative free axes. Only axes of
#: Python ints are keys (a bool or numpy int hashes like an int: those take the check every time), and
#: only axes that passed every rule are kept.
_AXES: dict = {}


def _axes_key(nd, axis):
    if type(axis) is int:
        return nd, axis
    if type(axis) is list or type(axis) is tuple:
        for a in axis:
            if type(a) is not int:
                return None
        return nd, tuple(axis)
    return None


def _reducer(name):
    current_fn = getattr(_nl, name)
    api = f"nl.{name}"

    def f(x, axis, dtype=None, keepdims=False, mask=None, **kwargs):
        if not isinstance(x, NkiTensor):
            raise ConstraintError(api, "x", "an NKI tensor", x)
        nd = len(x.shape)
        key = _axes_key(nd, axis)
        axes = _AXES.get(key) if key is not None else None
        if axes is None:
            axes = _nl2._axes_of(api, x, axis)
            if 0 in axes:
                raise ConstraintError(api, "axis", "free axes only (the partition axis 0 is never reduced)", axis)
            if key is not None:
                if len(_AXES) >= 1024:
                    _AXES.clear()
                _AXES[key] = axes
        last = tuple(range(nd - len(axes), nd))
        if axes != last and not keepdims:
            order = [i for i in range(nd) if i not in axes] + list(axes)
            x = _index.permuted(x, order)
            axes = last
        out = current_fn(x, axes, dtype=dtype, keepdims=keepdims)
        if type(out) is NkiTensor:      # (legacy(out), inlined)
            out.__class__ = LegacyTensor
        return out if mask is None else _apply_mask(api, out, mask)
    f.__name__ = name
    return f


sum = _reducer("sum")       # noqa: A001 (vendor names)
max = _reducer("max")       # noqa: A001
min = _reducer("min")       # noqa: A001
prod = _reducer("prod")
mean = _reducer("mean")
# as ISA ops (nisa.tensor_reduce(op=nl.max)) they stand for the ALU operators, as the current ones do
for _f, _n in ((sum, "add"), (max, "maximum"), (min, "minimum"), (prod, "multiply")):
    NUMPY_ALIASES.setdefault(_f, _n)


# ---- composites ----

def matmul(x, y, transpose_x=False, mask=None, **kwargs):
    out = legacy(_nl.matmul(x, y, transpose_x=transpose_x))
    MATMUL_RESULTS.add(out.root or out)
    return _apply_mask("nl.matmul", out, mask)


def transpose(x, dtype=None, mask=None, **kwargs):
    return _apply_mask("nl.transpose", legacy(_nl.transpose(x, dtype)), mask)


def broadcast_to(src, shape):
    return legacy(_nl.broadcast_to(src, shape))


def softmax(x, axis, dtype=None, compute_dtype=None, mask=None, **kwargs):
    return _apply_mask("nl.softmax", legacy(_nl.softmax(x, axis, dtype=dtype, compute_dtype=compute_dtype)), mask)


def where(condition, x, y, dtype=None, mask=None, **kwargs):
    return _apply_mask("nl.where", legacy(_nl.where(condition, x, y, dtype)), mask)


def expand_dims(data, axis):
    return legacy(_nl.expand_dims(data, axis))


__all__ = [n for n in dir() if not n.startswith("_")]
