"""Legacy data movement: ``nl.load`` / ``nl.store`` / ``nl.load_transpose2d`` with ``mask=``, and the mask
helpers the other legacy calls share (language.py's rules table in docs/nki.md)."""
from __future__ import annotations

import numpy as np

from ...core.errors import ConstraintError, UnsupportedError
from ...core.view import TensorView
from .. import isa as _isa
from .. import language as _nl
from ..runtime import current
from ..tensor import NkiTensor
from . import index as _index
from .tensor import BlockTile, LegacyTensor, legacy

sbuf = _nl.sbuf


# ---- masks ----

def _masked_into(dst, tmp, mask) -> None:
    """Store ``tmp``'s values into ``dst`` where ``mask`` holds (both (P, ...) tiles of one shape)."""
    dst._fresh_init(dst.root or dst)       # a new allocation's init map is an earlier tensor's: clear it first
    dst.tv.write(tmp.read("mask"), where=mask)


def _apply_mask(api, out, mask):
    """``out`` was computed whole; a new tile holding only its masked elements (None: ``out`` itself)."""
    if mask is None:
        return out
    m = _index.mask_array(api, mask, out.shape)
    if m is None:
        return out
    res = legacy(current(api).allocate(out.shape, out.dtype, out.buffer, "", api))
    _masked_into(res, out, m)
    return res


# ---- data movement ----

def _as_tile_source(src):
    # a 1-D HBM view (A[c0:c1, j], strided) loads as a column: one element per partition
    ndim = len(src.shape)
    if ndim > 1:
        return src
    v = src.tv
    if ndim == 0:                   # one element (sinks[b, h]): a (1, 1) tile
        return src._derive(TensorView(v.memory, v.offset, (1, 1), (v.dtype.itemsize, v.dtype.itemsize), v.dtype,
                                      api="nl.load"))
    # (n,) as (n, 1): the same elements, so the same footprint box as v's (a size-1 dim adds no span)
    return src._derive(TensorView.placed(v.memory, v.offset, (v.shape[0], 1), (v.strides[0], v.dtype.itemsize),
                                         v.dtype, v.lane_lo, v.lane_hi, v.lo, v.hi))


def _box(m):
    """The slices of the box ``m`` is true on, or None when ``m`` is not a box (rectangular)."""
    box = []
    for axis in range(m.ndim):
        any_other = m.any(axis=tuple(a for a in range(m.ndim) if a != axis))
        idx = np.flatnonzero(any_other)
        if idx.size == 0:
            return ()
        box.append(slice(int(idx[0]), int(idx[-1]) + 1))
    box = tuple(box)
    return box if m[box].all() else None


def _masked_box(api, idx, mask):
    """For an index stepping outside its tensor: the box of the mask, which must leave out every outside
    position (else the bounds error stands)."""
    m = _index.mask_array(api, mask, idx.index_shape)
    if m is None:
        raise idx.error
    if (m & ~idx.inside()).any():
        raise idx.error
    box = _box(m)
    if box is None:
        raise UnsupportedError(api, "a mask that is not a box around an out-of-bounds index",
                               "the DMA moves one access pattern")
    return box


def _load_outside(api, idx, mask, dtype):
    box = _masked_box(api, idx, mask)
    out = legacy(current(api).allocate(idx.index_shape, dtype or idx.tensor.dtype, sbuf, "", api))
    if box:
        _isa.dma_copy(dst=out[box], src=idx.within(box))
    return out


def load(src, mask=None, dtype=None, **kwargs):
    """A new SBUF tile holding ``src`` (``dma_copy``); with ``mask``, only the masked elements: a box mask
    (``ix < n``) moves just that box, any other mask moves everything and keeps the masked elements."""
    api = "nl.load"
    if type(src) is LegacyTensor and len(src.shape) > 1 and (
            mask is None or _index.mask_array(api, mask, src.shape) is None):
        # (the usual call, and an all-true mask (``i * 128 + ix < n`` of a whole tile): what the general
        # path below does for them)
        t = _nl.load(src, dtype=dtype)
        if type(t) is NkiTensor:
            t.__class__ = LegacyTensor
        return t
    if isinstance(src, _index.OutOfBoundsIndex):
        return _load_outside(api, src, mask, dtype)
    if not isinstance(src, NkiTensor):
        raise ConstraintError(api, "src", "an HBM tensor (or a view of one)", type(src).__name__)
    src = _as_tile_source(src)
    if mask is None:
        return legacy(_nl.load(src, dtype=dtype))
    m = _index.mask_array(api, mask, src.shape)
    if m is None:
        return legacy(_nl.load(src, dtype=dtype))
    out = legacy(current(api).allocate(src.shape, dtype or src.dtype, sbuf, "", api))
    box = _box(m)
    if box is not None:
        if box:
            _isa.dma_copy(dst=out[box], src=src[box])
        return out
    tmp = _nl.load(src, dtype=dtype)
    _masked_into(out, tmp, m)
    return out


def load_transpose2d(src, dtype=None, mask=None, **kwargs):
    """``nl.load_transpose2d``: a 2-D HBM ``[A, B]`` view loaded transposed into an SBUF ``[B, A]`` tile: one
    ``dma_copy`` through the swapped access pattern (charged as a DMA of the same bytes; the element-wise
    descriptors of a transposing DMA are not modelled)."""
    api = "nl.load_transpose2d"
    if not isinstance(src, NkiTensor) or src.on_chip or len(src.shape) != 2:
        raise ConstraintError(api, "src", "a 2-D HBM tensor view", getattr(src, "shape", type(src).__name__))
    return load(_index.permuted(src, [1, 0]), mask=mask, dtype=dtype)


def store(dst, value, mask=None, **kwargs):
    """Write ``value`` into ``dst`` (``dma_copy``); with ``mask``, only the masked elements (a box)."""
    api = "nl.store"
    if type(dst) is LegacyTensor and type(value) is LegacyTensor and not value.in_psum and (
            mask is None or _index.mask_array(api, mask, dst.shape) is None):
        _nl.store(dst, value)               # (the usual call: what the general path below does for it)
        return
    if not isinstance(dst, (NkiTensor, BlockTile, _index.OutOfBoundsIndex)):
        raise ConstraintError(api, "dst", "an NKI tensor (or an index of one)", dst)
    if not isinstance(value, (NkiTensor, BlockTile)) and (isinstance(value, (bool, np.bool_)) or not isinstance(
            value, (int, float, np.integer, np.floating))):
        raise ConstraintError(api, "value", "an NKI tensor or a number", value)
    if isinstance(dst, _index.OutOfBoundsIndex):
        box = _masked_box(api, dst, mask)
        if box:
            if value.in_psum:
                staged = current(api).allocate(value.shape, value.dtype, sbuf, "", api)
                _isa.tensor_copy(staged, value)
                value = staged
            _isa.dma_copy(dst=dst.within(box), src=value[box])
        return
    if isinstance(value, BlockTile) or isinstance(dst, BlockTile):
        raise ConstraintError(api, "value", "a tile (index a block tile by its block first)", type(value).__name__)
    m = _index.mask_array(api, mask, dst.shape)
    if not isinstance(value, NkiTensor):
        from .language import full
        tile = full(dst.shape if len(dst.shape) > 1 else (dst.shape[0], 1), value, dst.dtype)
        value = tile
    if value.in_psum:
        # the DMA engines do not read PSUM (current rule); the legacy compiler staged such stores through
        # SBUF, so a VectorE copy is charged here
        staged = current(api).allocate(value.shape, value.dtype, sbuf, "", api)
        _isa.tensor_copy(staged, value)
        value = staged
    if m is None:
        _nl.store(dst, value)
        return
    box = _box(m)
    if box is None:
        raise UnsupportedError(api, "a store mask that is not a box (e.g. ix < n & iy < m)",
                               "the DMA moves one access pattern")
    if box:
        if value.shape != dst.shape:
            raise ConstraintError(api, "value", "a masked store's value has dst's shape", value.shape)
        _isa.dma_copy(dst=dst[box], src=value[box])
