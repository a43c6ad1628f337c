"""The part-two ``nki.language`` functions (re-exported into nl by one line at the end of language.py):
matmul and transpose, the activation functions (``nl.exp(x)`` ...), reductions over free axes
(``nl.sum/max/min/mean``), ``softmax``, ``rms_norm``, ``broadcast_to``, ``expand_dims``, ``where``.

Each is a composite of ISA calls, so it is checked and timed like them. Results are new SBUF tiles
(reductions keep at least 2 dims: all free axes reduced gives (P, 1)).
"""
from __future__ import annotations

import numpy as np

from ..core.errors import ConstraintError
from . import alu as _alu
from . import args as _args
from . import isa as _isa
from .actfuncs import ACT, ActFunc
from .runtime import current
from .tensor import PSUM, SBUF, MemoryRegion, NkiTensor     # (SBUF, PSUM: enum access is slow)


def _tile(api, param, x) -> NkiTensor:
    if not isinstance(x, NkiTensor) or not x.on_chip:
        raise ConstraintError(api, param, "an SBUF or PSUM tile", type(x).__name__)
    return x


def _alloc(shape, dtype, buffer, api):
    return current(api).allocate(shape, dtype, buffer, "", api)


def _in_sbuf(x: NkiTensor, api: str) -> NkiTensor:
    if x.buffer is MemoryRegion.sbuf:
        return x
    t = _alloc(x.shape, x.dtype, MemoryRegion.sbuf, api)
    _isa.tensor_copy(t, x)
    return t


def transpose(x, dtype=None) -> NkiTensor:
    """``nl.transpose(x)``: a 2-D tile with partition and free dims swapped, in SBUF. Blocks up to
    32x32 go through VectorE directly; larger ones through TensorE (PSUM) and a copy back."""
    api = "nl.transpose"
    _tile(api, "x", x)
    p, f = x.partitions, x.free_size
    if p <= _isa.VECTOR_TRANSPOSE_MAX and f <= _isa.VECTOR_TRANSPOSE_MAX:
        out = _alloc((f, p), x.dtype, MemoryRegion.sbuf, api)
        _isa.nc_transpose(out, x, engine=_isa.engine.vector)
    else:
        ps = _alloc((f, p), x.dtype, MemoryRegion.psum, api)
        _isa.nc_transpose(ps, _in_sbuf(x, api), engine=_isa.engine.tensor)
        out = _alloc((f, p), dtype or x.dtype, MemoryRegion.sbuf, api)
        _isa.tensor_copy(out, ps)
        return out
    if dtype is not None and dtype != x.dtype:
        cast = _alloc((f, p), dtype, MemoryRegion.sbuf, api)
        _isa.tensor_copy(cast, out)
        return cast
    return out


def matmul(x, y, transpose_x=False) -> NkiTensor:
    """``nl.matmul(x, y, transpose_x=False)``: ``x @ y`` (or ``x.T @ y``) as a float32 PSUM tile.
    Without transpose_x, x [M, K] is first transposed to [K, M] (the contraction runs over partitions)."""
    api = "nl.matmul"
    _tile(api, "x", x)
    _tile(api, "y", y)
    xs = _in_sbuf(x, api)
    if not transpose_x:
        xs = transpose(xs)
    out = _alloc((xs.free_size, y.free_size), "float32", MemoryRegion.psum, api)
    _isa.nc_matmul(out, xs, _in_sbuf(y, api))
    return out


# ---- activation functions: nl.exp(x) is one nisa.activation into a new SBUF tile ----

def activation_call(act, x, dtype=None) -> NkiTensor:
    if not isinstance(act, ActFunc):
        raise ConstraintError("nl.activation_call", "act", "an activation function (nl.exp, nl.tanh, ...)", act)
    api = f"nl.{act.name}"
    _tile(api, "x", x)
    out = _alloc(x.shape, dtype or x.dtype, MemoryRegion.sbuf, api)
    _isa.activation(out, act, x)
    return out


exp, log, sin, cos, tanh = ACT["exp"], ACT["log"], ACT["sin"], ACT["cos"], ACT["tanh"]
sigmoid, gelu, gelu_dx, gelu_apprx_tanh = ACT["sigmoid"], ACT["gelu"], ACT["gelu_dx"], ACT["gelu_apprx_tanh"]
silu, silu_dx, softplus, mish = ACT["silu"], ACT["silu_dx"], ACT["softplus"], ACT["mish"]
sqrt, erf, arctan, sign = ACT["sqrt"], ACT["erf"], ACT["arctan"], ACT["sign"]


# ---- reductions over the last free axes (nisa.tensor_reduce) ----

def _axes_of(api, x, axis) -> tuple:
    return _args.axis(api, axis, len(x.shape))


#: (api, x.shape, axis as written (an int or a tuple of ints, with its type), keepdims) -> (axes, result
#: shape) of a reduction whose axis passed args.axis: a loop reduces the same shape the same way each time.
#: (Only accepted axes are kept, so every error still comes from args.axis, with the api in its text.)
_REDUCE_SHAPES: dict = {}


def _reduce_shape_key(api, shape, axis, keepdims):
    if type(axis) is int:
        return api, shape, axis, int, keepdims is True
    if type(axis) is list or type(axis) is tuple:
        for a in axis:
            if type(a) is not int:
                return None
        return api, shape, tuple(axis), type(axis), keepdims is True
    return None


def _reduce_shape(api, x, axis, keepdims) -> tuple:
    """(axes, result shape) of reducing ``x`` over ``axis`` (args.axis's checks)."""
    axes = _axes_of(api, x, axis)
    kept = [d for i, d in enumerate(x.shape) if i not in axes]
    if keepdims:
        shape = tuple(1 if i in axes else d for i, d in enumerate(x.shape))
    else:
        shape = tuple(kept) if len(kept) >= 2 else (x.shape[0], 1)
    return axes, shape


def _reduce(api, op, x, axis, dtype, keepdims, negate=False) -> NkiTensor:
    _tile(api, "x", x)
    shp = x.shape
    key = _reduce_shape_key(api, shp, axis, keepdims) if type(keepdims) is bool and type(shp) is tuple else None
    found = _REDUCE_SHAPES.get(key) if key is not None else None
    if found is None:
        found = _reduce_shape(api, x, axis, keepdims)
        if key is not None:
            if len(_REDUCE_SHAPES) >= 1024:
                _REDUCE_SHAPES.clear()
            _REDUCE_SHAPES[key] = found
    axes, shape = found
    out = _alloc(shape, dtype or x.dtype, MemoryRegion.sbuf, api)
    _isa.tensor_reduce(out, op, x, axes, negate=negate, keepdims=keepdims)
    return out


def sum(x, axis, dtype=None, keepdims=False) -> NkiTensor:  # noqa: A001 (vendor name)
    return _reduce("nl.sum", _alu.OPS["add"], x, axis, dtype, keepdims)


def max(x, axis, dtype=None, keepdims=False) -> NkiTensor:  # noqa: A001
    return _reduce("nl.max", _alu.OPS["maximum"], x, axis, dtype, keepdims)


def min(x, axis, dtype=None, keepdims=False) -> NkiTensor:  # noqa: A001
    return _reduce("nl.min", _alu.OPS["minimum"], x, axis, dtype, keepdims)


def prod(x, axis, dtype=None, keepdims=False) -> NkiTensor:
    return _reduce("nl.prod", _alu.OPS["multiply"], x, axis, dtype, keepdims)


def mean(x, axis, dtype=None, keepdims=False) -> NkiTensor:
    """Sum in fp32, then one multiply by 1/n (the hardware has no divide)."""
    s = _reduce("nl.mean", _alu.OPS["add"], x, axis, "float32", keepdims)
    n = int(np.prod([x.shape[a] for a in _axes_of("nl.mean", x, axis)]))
    out = _alloc(s.shape, dtype or x.dtype, MemoryRegion.sbuf, "nl.mean")
    _isa.tensor_scalar(out, s, _alu.OPS["multiply"], 1.0 / n)
    return out


# nl.max / nl.sum ... also name their ALU op where an op is expected (tensor_reduce(op=nl.max)); np.max too.
for _f, _n in ((sum, "add"), (max, "maximum"), (min, "minimum"), (prod, "multiply"), (np.max, "maximum"),
               (np.min, "minimum"), (np.sum, "add"), (np.prod, "multiply"), (np.amax, "maximum"),
               (np.amin, "minimum")):
    _alu.NUMPY_ALIASES.setdefault(_f, _n)


# ---- composites real kernels use ----

def _last_axes(api, x, axis):
    return _axes_of(api, x, axis)


def softmax(x, axis=-1, dtype=None, compute_dtype=None) -> NkiTensor:
    """exp(x - max) / sum(exp(x - max)) over the last free axes: tensor_reduce(max, negate) on VectorE,
    one activation(exp, bias=-max) with an add-reduction on ScalarE, reciprocal, one tensor_scalar."""
    api = "nl.softmax"
    _tile(api, "x", x)
    axes = _last_axes(api, x, axis)
    if axes != tuple(range(1, len(x.shape))):
        raise ConstraintError(api, "axis", "every free axis (a softmax over rows of a tile)", axis)
    p = x.partitions
    neg_max = _alloc((p, 1), "float32", MemoryRegion.sbuf, api)
    _isa.tensor_reduce(neg_max, _alu.OPS["maximum"], x, axes, negate=True, keepdims=True)
    e = _alloc(x.shape, "float32", MemoryRegion.sbuf, api)
    total = _alloc((p, 1), "float32", MemoryRegion.sbuf, api)
    _isa.activation(e, ACT["exp"], x, bias=neg_max, reduce_op=_alu.OPS["add"], reduce_res=total,
                    reduce_cmd=_isa.reduce_cmd.reset_reduce)
    inv = _alloc((p, 1), "float32", MemoryRegion.sbuf, api)
    _isa.reciprocal(inv, total)
    out = _alloc(x.shape, dtype or x.dtype, MemoryRegion.sbuf, api)
    _isa.tensor_scalar(out, e, _alu.OPS["multiply"], inv)
    return out


def rms_norm(x, w, axis, n, epsilon=1e-6, dtype=None, compute_dtype=None) -> NkiTensor:
    """x / sqrt(mean(x^2) + epsilon) * w over the free axis: activation(square) with an add-reduction,
    tensor_scalar(multiply 1/n, add epsilon), activation(rsqrt), tensor_scalar(multiply), then w."""
    api = "nl.rms_norm"
    _tile(api, "x", x)
    _tile(api, "w", w)
    _axes_of(api, x, axis)
    n = _args.as_int(api, "n", n, 1, rule="n, the element count averaged over, is a positive int")
    epsilon = _args.as_real(api, "epsilon", epsilon, finite=True)
    p = x.partitions
    sq = _alloc(x.shape, "float32", MemoryRegion.sbuf, api)
    ss = _alloc((p, 1), "float32", MemoryRegion.sbuf, api)
    _isa.activation(sq, ACT["square"], x, reduce_op=_alu.OPS["add"], reduce_res=ss,
                    reduce_cmd=_isa.reduce_cmd.reset_reduce)
    ms = _alloc((p, 1), "float32", MemoryRegion.sbuf, api)
    _isa.tensor_scalar(ms, ss, _alu.OPS["multiply"], 1.0 / n, op1=_alu.OPS["add"], operand1=float(epsilon))
    rs = _alloc((p, 1), "float32", MemoryRegion.sbuf, api)
    _isa.activation(rs, ACT["rsqrt"], ms)
    y = _alloc(x.shape, "float32", MemoryRegion.sbuf, api)
    _isa.tensor_scalar(y, x, _alu.OPS["multiply"], rs)
    wb = w if w.shape == x.shape else broadcast_to(w, x.shape)
    out = _alloc(x.shape, dtype or x.dtype, MemoryRegion.sbuf, api)
    _isa.tensor_tensor(out, y, wb, _alu.OPS["multiply"])
    return out


def broadcast_to(src, shape) -> NkiTensor:
    """``src`` broadcast to ``shape`` in a new SBUF tile. Across partitions ((1, F) -> (P, F)): a TensorE
    matmul with a ones row (K = 1), 512 columns at a time. Along the free dim ((P, 1) -> (P, F)):
    one tensor_scalar adding the column to zeros."""
    api = "nl.broadcast_to"
    _tile(api, "src", src)
    shape = _args.shape(api, shape, on_chip=True)
    if tuple(src.shape) == shape:
        return src
    if len(shape) != 2 or len(src.shape) != 2:
        raise ConstraintError(api, "shape", "2-D tiles", (src.shape, shape))
    (sp, sf), (p, f) = src.shape, shape
    if sp == 1 and sf == f:
        dt = src.tv.dtype.name
        mm_dt = "float32" if dt in ("float32", "tfloat32") or not src.tv.dtype.is_float else dt
        row = (src if src.buffer is SBUF else _in_sbuf(src, api)) if mm_dt == dt else \
            _converted(src, mm_dt, api)
        run = current(api)
        ones = run.allocate((1, p), mm_dt, SBUF, "", api)
        _isa.memset(ones, 1.0)
        out = run.allocate(shape, src.dtype, SBUF, "", api)
        step = 512
        if f <= step and (row.ind is None or not row.is_indirect()) and _alive(row):
            # one block: row[:, 0:f] and out[:, 0:f] would be views with row's and out's geometry, so the
            # ops get row and out themselves (same checks, values, events; two views fewer). A dead row
            # takes the general path, so the scope error names the variable as it always did.
            ps = run.allocate((p, f), "float32", PSUM, "", api)
            _isa.nc_matmul(ps, ones, row)
            _isa.tensor_copy(out, ps)
            return out
        for c in range(0, f, step):
            w = f - c if f - c < step else step
            ps = _alloc((p, w), "float32", MemoryRegion.psum, api)
            _isa.nc_matmul(ps, ones, row[:, c:c + w])
            _isa.tensor_copy(out[:, c:c + w], ps)
        return out
    if sf == 1 and sp == p:
        col = _converted(src, "float32", api) if src.tv.dtype.name != "float32" else src
        zeros = _alloc(shape, "float32", MemoryRegion.sbuf, api)
        _isa.memset(zeros, 0.0)
        out = _alloc(shape, src.dtype, MemoryRegion.sbuf, api)
        _isa.tensor_scalar(out, zeros, _alu.OPS["add"], col)
        return out
    raise ConstraintError(api, "shape", "a broadcast of a size-1 dim ((1, F) -> (P, F) or (P, 1) -> (P, F))",
                          (src.shape, shape))


def _alive(t) -> bool:
    """rules.in_scope would pass for ``t``."""
    scope = (t.root or t).scope
    return scope is None or not (scope.ended and scope.strict)


def _converted(x, dtype, api):
    t = _alloc(x.shape, dtype, MemoryRegion.sbuf, api)
    _isa.tensor_copy(t, x)
    return t


def expand_dims(data, axis) -> NkiTensor:
    """A view with a size-1 dim inserted at ``axis`` (a free axis: the partition dim stays first)."""
    api = "nl.expand_dims"
    _tile(api, "data", data)
    nd = len(data.shape)
    if not _args.is_int(axis):
        raise ConstraintError(api, "axis", "an int", axis)
    a = int(axis) + nd + 1 if int(axis) < 0 else int(axis)
    if not 1 <= a <= nd:
        raise ConstraintError(api, "axis", f"a free axis position in [1, {nd}]", axis)
    shape = list(data.shape)
    shape.insert(a, 1)
    return data.reshape(shape)


def where(condition, x, y, dtype=None) -> NkiTensor:
    """``x`` where ``condition`` is nonzero, else ``y`` (tiles or scalars): y is copied (or filled) into
    the result, then x copied over it through tensor_copy_predicated."""
    api = "nl.where"
    _tile(api, "condition", condition)
    for p, v in (("x", x), ("y", y)):
        if not isinstance(v, NkiTensor) and not isinstance(v, (int, float, np.integer, np.floating)):
            raise ConstraintError(api, p, "a tile or a scalar", type(v).__name__)
    shape = condition.shape
    ref = x if isinstance(x, NkiTensor) else y if isinstance(y, NkiTensor) else None
    out_dt = dtype or (ref.dtype if ref is not None else "float32")
    out = _alloc(shape, out_dt, MemoryRegion.sbuf, api)
    if isinstance(y, NkiTensor):
        _isa.tensor_copy(out, y)
    else:
        _isa.memset(out, _args.fill_value(api, "y", y, out.tv.dtype))
    if isinstance(x, NkiTensor):
        src = x
    else:
        src = _alloc(shape, out_dt, MemoryRegion.sbuf, api)
        _isa.memset(src, _args.fill_value(api, "x", x, src.tv.dtype))
    pred = condition
    if condition.tv.dtype.name not in ("uint8", "uint16", "uint32"):
        ne = _alloc(shape, "float32", MemoryRegion.sbuf, api)
        _isa.tensor_scalar(ne, condition, _alu.OPS["not_equal"], 0.0)
        pred = _alloc(shape, "uint8", MemoryRegion.sbuf, api)
        _isa.tensor_copy(pred, ne)
    _isa.tensor_copy_predicated(out, src, pred)
    return out


__all__ = ["matmul", "transpose", "activation_call", "exp", "log", "sin", "cos", "tanh", "sigmoid", "gelu",
           "gelu_dx", "gelu_apprx_tanh", "silu", "silu_dx", "softplus", "mish", "sqrt", "erf", "arctan", "sign",
           "sum", "max", "min", "prod", "mean", "softmax", "rms_norm", "broadcast_to", "expand_dims", "where"]
