"""``neuronxcc.nki.isa`` (legacy): ISA calls that allocate and return their result.

Each function allocates the result tile the legacy docs describe and calls the current dst-first op of
``npusim.nki.isa`` on it, so rules, numerics and costs are those of the current op. ``dtype=`` sets the
result's dtype (default: the legacy docs' default, the data's dtype; ``nc_matmul`` and ``nc_transpose``
on TensorE: fp32 / the data's dtype in PSUM), ``mask=`` stores only the masked elements (language.py).
"""
from __future__ import annotations

import numpy as np

from ...core.errors import ConstraintError, UnsupportedError
from .. import cost_two as _cost2
from .. import isa as _isa
from .. import rules as _R
from ..args import as_int as _as_int
from .. import runtime as _runtime
from ..runtime import current
from ..tensor import MemoryRegion, NkiTensor
from .assign import MATMUL_RESULTS
from . import index as _index
from .index import OutOfBoundsIndex as _OutOfBoundsIndex, _affine, permuted as _permuted
from .movement import _apply_mask, _box, _masked_box
from .tensor import BlockTile as _BlockTile, LegacyTensor as _LegacyTensor, legacy

# the enums and constants are the current ones
engine = _isa.engine
nc_version = _isa.nc_version
get_nc_version = _isa.get_nc_version
reduce_cmd = _isa.reduce_cmd
dge_mode, oob_mode = _isa.dge_mode, _isa.oob_mode
NkiValidationError = _isa.NkiValidationError
# the legacy engine names (nisa.vector_engine ...)
tensor_engine, vector_engine, scalar_engine = engine.tensor, engine.vector, engine.scalar
gpsimd_engine, unknown_engine = engine.gpsimd, engine.unknown


_TILE_TYPES = (NkiTensor, _BlockTile, _OutOfBoundsIndex)


def _tile(api, param, t):
    """A tile argument is an NKI tensor (a legacy kernel's tile, a view or an op's result): anything else
    is refused here, before a shape or dtype is read from it. (The wrappers call it for anything but a
    LegacyTensor, which passes.)"""
    if not isinstance(t, _TILE_TYPES):
        raise ConstraintError(api, param, "an NKI tensor (a tile, a view of one or an op's result)", t)


def _new(api, shape, dtype, buffer=MemoryRegion.sbuf):
    run = _runtime._current
    if run is None:
        run = current(api)          # raises: no kernel is running
    t = run.allocate(shape, dtype, buffer, "", api)
    if type(t) is NkiTensor:        # (legacy(t), inlined: one call fewer per op)
        t.__class__ = _LegacyTensor
    return t


def _result(api, out, mask):
    """``out``, or with ``mask=`` a new tile of its masked elements (the wrappers test ``mask is None``
    themselves first: most calls have no mask)."""
    return _apply_mask(api, out, mask)


def _in_sbuf(api, t):
    if isinstance(t, NkiTensor) and t.in_psum:
        staged = _new(api, t.shape, t.dtype)
        _isa.tensor_copy(staged, t)
        return staged
    return t


def nc_matmul(stationary, moving, is_stationary_onezero=False, is_moving_onezero=False, is_transpose=False,
              mask=None, **kwargs):
    """``stationary.T @ moving`` as a new fp32 PSUM tile [M, N]."""
    api = "nisa.nc_matmul"
    if type(stationary) is not _LegacyTensor:
        _tile(api, "stationary", stationary)
    if type(moving) is not _LegacyTensor:
        _tile(api, "moving", moving)
    # TensorE reads SBUF only; a PSUM operand (a legacy nc_transpose result, as in flash attention's
    # backward pass) is copied to SBUF on VectorE first, the copy the legacy compiler inserted
    stationary, moving = _in_sbuf(api, stationary), _in_sbuf(api, moving)
    if is_transpose:
        return _matmul_transpose(api, stationary, moving, mask)
    m = stationary.shape[-1] if len(stationary.shape) == 2 else stationary.free_size
    out = _new(api, (m, moving.free_size), "float32", MemoryRegion.psum)
    _isa.nc_matmul(out, stationary, moving, is_stationary_onezero=is_stationary_onezero,
                   is_moving_onezero=is_moving_onezero, is_transpose=is_transpose)
    MATMUL_RESULTS.add(out)
    return out if mask is None else _result(api, out, mask)


def _matmul_transpose(api, stationary, moving, mask):
    """``nc_matmul(data, identity, is_transpose=True)``: the PE array passes ``data`` through transposed
    ([K, M] -> [M, K] in PSUM, data's dtype). The moving tile must be the identity; the work is the
    TensorE transpose's (``nc_transpose(engine=tensor)``), bit-exact."""
    k = stationary.partitions
    ident = moving.read(api).reshape(moving.partitions, moving.free_size)
    if ident.shape != (k, k) or not np.array_equal(ident.astype(np.float32), np.eye(k, dtype=np.float32)):
        raise ConstraintError(api, "moving", "is_transpose=True multiplies by an identity (K x K) moving tile",
                              moving.shape)
    out = _new(api, (stationary.free_size, k), stationary.dtype, MemoryRegion.psum)
    _isa.nc_transpose(out, stationary, engine=_isa.engine.tensor)
    return out if mask is None else _result(api, out, mask)


def nc_transpose(data, engine=engine.unknown, mask=None, dtype=None, **kwargs):
    """``data`` [P, F] transposed to [F, P]: in PSUM on TensorE, in SBUF on VectorE (<= 32x32)."""
    api = "nisa.nc_transpose"
    if type(data) is not _LegacyTensor:
        _tile(api, "data", data)
    on_vector = engine == _isa.engine.vector       # unknown: TensorE, the legacy tutorials' PSUM result
    buffer = MemoryRegion.sbuf if on_vector else MemoryRegion.psum
    out = _new(api, (data.free_size, data.partitions), dtype or data.dtype, buffer)
    _isa.nc_transpose(out, data, engine=_isa.engine.vector if on_vector else _isa.engine.tensor)
    return out if mask is None else _result(api, out, mask)


def activation(op, data, bias=None, scale=1.0, reduce_op=None, reduce_res=None, reduce_cmd=None,
               mask=None, dtype=None, **kwargs):
    api = "nisa.activation"
    if type(data) is not _LegacyTensor:
        _tile(api, "data", data)
    out = _new(api, data.shape, dtype or data.dtype)
    if reduce_res is None and reduce_cmd is None:
        _isa.activation(out, op, data, bias=bias, scale=scale, reduce_op=reduce_op, reduce_res=None)
        return out if mask is None else _result(api, out, mask)
    if reduce_cmd is None:
        reduce_cmd = _isa.reduce_cmd.reset_reduce
    _isa.activation(out, op, data, bias=bias, scale=scale, reduce_op=reduce_op, reduce_res=reduce_res,
                    reduce_cmd=reduce_cmd)
    return out if mask is None else _result(api, out, mask)


def activation_reduce(op, data, reduce_op, reduce_res, bias=None, scale=1.0, mask=None, dtype=None, **kwargs):
    api = "nisa.activation_reduce"
    if type(data) is not _LegacyTensor:
        _tile(api, "data", data)
    out = _new(api, data.shape, dtype or data.dtype)
    _isa.activation_reduce(out, op, data, reduce_op, reduce_res, bias=bias, scale=scale)
    return out if mask is None else _result(api, out, mask)


def tensor_tensor(data1, data2, op, dtype=None, mask=None, engine=engine.unknown, **kwargs):
    api = "nisa.tensor_tensor"
    if type(data1) is not _LegacyTensor:
        _tile(api, "data1", data1)
    if type(data2) is not _LegacyTensor:
        _tile(api, "data2", data2)
    out = _new(api, data1.shape, dtype or data1.dtype)
    _isa.tensor_tensor(out, data1, data2, op, engine=engine)
    return out if mask is None else _result(api, out, mask)


def tensor_scalar(data, op0, operand0, reverse0=False, op1=None, operand1=None, reverse1=False,
                  dtype=None, mask=None, engine=engine.unknown, **kwargs):
    api = "nisa.tensor_scalar"
    if type(data) is not _LegacyTensor:
        _tile(api, "data", data)
    out = _new(api, data.shape, dtype or data.dtype)
    _isa.tensor_scalar(out, data, op0, operand0, reverse0=reverse0, op1=op1, operand1=operand1,
                       reverse1=reverse1, engine=engine)
    return out if mask is None else _result(api, out, mask)


def scalar_tensor_tensor(data, op0, operand0, op1, operand1, reverse0=False, reverse1=False,
                         dtype=None, mask=None, **kwargs):
    api = "nisa.scalar_tensor_tensor"
    if type(data) is not _LegacyTensor:
        _tile(api, "data", data)
    out = _new(api, data.shape, dtype or data.dtype)
    _isa.scalar_tensor_tensor(out, data, op0, operand0, op1, operand1, reverse0=reverse0, reverse1=reverse1)
    return out if mask is None else _result(api, out, mask)


def tensor_scalar_reduce(data, op0, operand0, reduce_op, reduce_res, reverse0=False, dtype=None, mask=None,
                         **kwargs):
    """``data op0 operand0`` as a new tile; ``reduce_res`` (a (P, 1) tile) gets its reduce_op over the free axes."""
    api = "nisa.tensor_scalar_reduce"
    if type(data) is not _LegacyTensor:
        _tile(api, "data", data)
    out = _new(api, data.shape, dtype or data.dtype)
    _isa.tensor_scalar_reduce(out, data, op0, operand0, reduce_op, reduce_res=reduce_res, reverse0=reverse0)
    return out if mask is None else _result(api, out, mask)


def tensor_copy(src, dtype=None, mask=None, engine=engine.unknown, **kwargs):
    api = "nisa.tensor_copy"
    if type(src) is not _LegacyTensor:
        _tile(api, "src", src)
    out = _new(api, src.shape, dtype or src.dtype)
    _isa.tensor_copy(out, src, engine=engine)
    return out if mask is None else _result(api, out, mask)


def tensor_reduce(op, data, axis, negate=False, keepdims=False, dtype=None, mask=None, **kwargs):
    """``op``-reduce over any free axes (permuted last, as nl.sum does) into a new tile."""
    api = "nisa.tensor_reduce"
    if type(data) is not _LegacyTensor:
        _tile(api, "data", data)
    if not isinstance(axis, (tuple, list)):
        axis = (axis,)
    nd = len(data.shape)
    axes = tuple(_as_int(api, "axis", a, -nd, nd - 1) for a in axis)
    axes = tuple(sorted(a % nd for a in axes))
    kept = [d for i, d in enumerate(data.shape) if i not in axes]
    shape = (tuple(1 if i in axes else d for i, d in enumerate(data.shape)) if keepdims
             else (tuple(kept) if len(kept) >= 2 else (data.shape[0], 1)))
    last = tuple(range(nd - len(axes), nd))
    if axes != last and not keepdims:
        data = _permuted(data, [i for i in range(nd) if i not in axes] + list(axes))
        axes = last
    out = _new(api, shape, dtype or data.dtype)
    _isa.tensor_reduce(out, op, data, axes, negate=negate, keepdims=keepdims)
    return out if mask is None else _result(api, out, mask)


def tensor_partition_reduce(op, data, dtype=None, mask=None, **kwargs):
    """``op``-reduce across partitions on GpSimd: ``[P, F]`` -> a new ``[1, F]`` tile."""
    api = "nisa.tensor_partition_reduce"
    if type(data) is not _LegacyTensor:
        _tile(api, "data", data)
    out = _new(api, (1,) + tuple(data.shape[1:]), dtype or data.dtype)
    _isa.tensor_partition_reduce(out, op, data)
    return out if mask is None else _result(api, out, mask)


def tensor_tensor_scan(data0, data1, initial, op0, op1, reverse0=False, reverse1=False, dtype=None,
                       mask=None, **kwargs):
    api = "nisa.tensor_tensor_scan"
    if type(data0) is not _LegacyTensor:
        _tile(api, "data0", data0)
    if type(data1) is not _LegacyTensor:
        _tile(api, "data1", data1)
    out = _new(api, data0.shape, dtype or data0.dtype)
    _isa.tensor_tensor_scan(out, data0, data1, initial, op0, op1, reverse0=reverse0, reverse1=reverse1)
    return out if mask is None else _result(api, out, mask)


def reciprocal(data, dtype=None, mask=None, **kwargs):
    api = "nisa.reciprocal"
    if type(data) is not _LegacyTensor:
        _tile(api, "data", data)
    out = _new(api, data.shape, dtype or data.dtype)
    _isa.reciprocal(out, data)
    return out if mask is None else _result(api, out, mask)


def bn_stats(data, dtype=None, mask=None, **kwargs):
    api = "nisa.bn_stats"
    if type(data) is not _LegacyTensor:
        _tile(api, "data", data)
    out = _new(api, (data.partitions, 6), dtype or data.dtype)
    _isa.bn_stats(out, data)
    return out if mask is None else _result(api, out, mask)


def bn_aggr(data, dtype=None, mask=None, **kwargs):
    api = "nisa.bn_aggr"
    if type(data) is not _LegacyTensor:
        _tile(api, "data", data)
    out = _new(api, (data.partitions, 2), dtype or data.dtype)
    _isa.bn_aggr(out, data)
    return out if mask is None else _result(api, out, mask)


def memset(shape, value, dtype, mask=None, engine=engine.unknown, **kwargs):
    """A new SBUF tile of ``shape`` filled with ``value``."""
    api = "nisa.memset"
    out = _new(api, shape, dtype)
    _isa.memset(out, value, engine=engine)
    return out if mask is None else _result(api, out, mask)


def iota(expr, dtype, mask=None, **kwargs):
    """A new SBUF tile holding the values of the index expression ``expr`` (an affine function of
    ``nl.arange`` / ``nl.mgrid`` indices: partition axis first), made by GpSimd ``iota``."""
    api = "nisa.iota"
    a = np.asarray(expr)
    if a.ndim < 2 or a.dtype.kind not in "iu":
        raise ConstraintError(api, "expr", "a 2-D or wider integer index expression", a.shape)
    base, coef = _affine(api, 0, a, a.ndim)
    shape = a.shape
    pattern = [[int(c), int(n)] for c, n in zip(coef[1:], shape[1:])]
    out = _new(api, shape, dtype)
    _isa.iota(out, pattern, offset=base, channel_multiplier=int(coef[0]))
    return out if mask is None else _result(api, out, mask)


def affine_select(pred, on_true_tile, on_false_value, dtype=None, mask=None, **kwargs):
    """``where(pred, on_true_tile, on_false_value)`` on GpSimd, ``pred`` a boolean expression of
    ``nl.arange`` / ``nl.mgrid`` indices (``q_pos >= k_pos``). The legacy form takes the predicate itself,
    not the current form's affine pattern, so it is evaluated here with numpy; rules and cost are the
    current op's (SBUF operands, a float32 scalar ``on_false_value``, ``GPSIMD_START + N`` cycles). A PSUM
    ``on_true_tile`` (flash attention passes its scores) is first copied to SBUF on VectorE, as GpSimd
    cannot read PSUM."""
    api = "nisa.affine_select"
    if type(on_true_tile) is not _LegacyTensor:
        _tile(api, "on_true_tile", on_true_tile)
    run = current(api)
    src = on_true_tile
    _R.tile(api, "on_true_tile", src)
    if src.in_psum:
        staged = _new(api, src.shape, src.dtype)
        _isa.tensor_copy(staged, src)
        src = staged
    p = np.asarray(pred)
    if p.dtype != np.bool_:
        raise ConstraintError(api, "pred", "a boolean expression of nl.arange / nl.mgrid indices", str(p.dtype))
    try:
        p = np.broadcast_to(p.reshape((1,) * (len(src.shape) - p.ndim) + p.shape) if p.ndim < len(src.shape)
                            else p, src.shape)
    except ValueError:
        raise ConstraintError(api, "pred", f"broadcasts to on_true_tile's shape {src.shape}", p.shape) from None
    if not _R.is_scalar(on_false_value):
        raise ConstraintError(api, "on_false_value", "a float32 scalar", type(on_false_value).__name__)
    out = _new(api, src.shape, dtype or src.dtype)
    _R.tile(api, "dst", out)
    values = np.where(p, src.read(api).astype(np.float32), np.float32(on_false_value))
    _isa.store_result(out, values)
    run.issue(api, "gpsimd", _cost2.gpsimd(out.free_size), reads=[src], writes=[out], elements=out.size,
              args={"pred": "expression"})
    return out if mask is None else _result(api, out, mask)


def dma_copy(dst, src, mask=None, **kwargs):
    """The legacy form is already dst-first; ``mask=`` (a box) moves just that box, and either side may be
    an index stepping outside its tensor when the mask leaves the outside out (as nl.load / nl.store)."""
    api = "nisa.dma_copy"
    if type(dst) is not _LegacyTensor:
        _tile(api, "dst", dst)
    if type(src) is not _LegacyTensor:
        _tile(api, "src", src)
    options = {k: kwargs[k] for k in ("dge_mode", "oob_mode") if k in kwargs} if kwargs else {}
    outside = src if isinstance(src, _index.OutOfBoundsIndex) else None
    if isinstance(dst, _index.OutOfBoundsIndex):
        outside = dst
    if outside is None:
        m = _index.mask_array(api, mask, dst.shape)
        if m is None:
            return _isa.dma_copy(dst=dst, src=src, **options)
        box = _box(m)
        if box is None:
            raise UnsupportedError(api, "a mask that is not a box", "the DMA moves one access pattern")
    else:
        box = _masked_box(api, outside, mask)
    if not box:
        return None

    def part(t):
        return t.within(box) if isinstance(t, _index.OutOfBoundsIndex) else t[box]
    return _isa.dma_copy(dst=part(dst), src=part(src), **options)


__all__ = [n for n in dir() if not n.startswith("_")]
