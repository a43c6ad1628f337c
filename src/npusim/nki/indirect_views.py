"""The current API's run-time index views: ``NkiTensor.vector_select`` and ``select`` with a tensor index.

Both build the indirect access pattern ``.ap()`` builds (access.py: an ``Indirect`` resolved by the DMA),
without writing the pattern by hand ([SDK] NkiTensor stub and ``nki/deep-dives/nki-aps.rst``, "Dynamic
Access"):

- ``t.vector_select(0, offsets)``: partition ``p`` of the result reads row ``offsets[p]`` of ``t`` (HBM only;
  ``offsets`` an SBUF ``(num_partitions, 1)`` tensor); the result has ``offsets.shape[0]`` rows.
- ``t.select(dim, idx)`` with ``idx`` a one-element SBUF tensor or a register: ``t[..., idx, ...]`` at the
  index it holds when the instruction runs (on chip: not the partition dim).

Each is "an indirect view": only one dynamic select per tensor; the view methods still work on its other
dims (access.py rebuilds the pattern over the new view), never on a ``vector_select``'s dim 0 (the
NkiTensor stub's "After vector_select" rules). Only the DMA resolves it.
"""
from __future__ import annotations

import numpy as np

from ..core.errors import ConstraintError
from ..core.view import TensorView
from .access import STATIC, Indirect, RegisterIndex, element_offset, get_pattern


def _already_indirect(t, api):
    if t.ind is not None and t.ind is not STATIC:
        raise ConstraintError(api, "self", "one dynamic select per tensor (the view is already indirect: "
                              "check is_indirect())", t)


def _index_tile(api, param, index, rule):
    from .tensor import NkiTensor
    if not isinstance(index, NkiTensor) or not index.on_chip or index.in_psum:
        raise ConstraintError(api, param, rule, getattr(index, "buffer", type(index).__name__))
    if index.ind is not None and index.ind is not STATIC:
        raise ConstraintError(api, param, "a static view (not itself an indirect access pattern)", index)
    if index.tv.dtype.kind not in "iu":
        raise ConstraintError(api, param, "an integer tensor", index.tv.dtype)


def _root(t):
    return t.root or t


def vector_select(t, dim, vector_offset):
    """``t.vector_select(dim, vector_offset)``: a gather of rows of an HBM tensor, one per partition."""
    from .tensor import NkiTensor
    api = "NkiTensor.vector_select"
    _already_indirect(t, api)
    if isinstance(dim, (bool, np.bool_)) or dim != 0:
        raise ConstraintError(api, "dim", "0 (vector_select addresses dim 0)", dim)
    if t.on_chip:
        raise ConstraintError(api, "self", "an HBM tensor (vector_select is only supported on HBM)", t.buffer)
    _index_tile(api, "vector_offset", vector_offset, "an SBUF tensor with one index per partition")
    if len(vector_offset.shape) != 2 or vector_offset.shape[1] != 1:
        raise ConstraintError(api, "vector_offset", "shape (num_partitions, 1)", vector_offset.shape)
    rows = vector_offset.shape[0]
    pattern = [(int(s), int(n)) for s, n in get_pattern(t)]
    pattern[0] = (pattern[0][0], rows)
    if len(pattern) > 5:
        raise ConstraintError(api, "self", "at most 5 dims (an access pattern's limit)", t.shape)
    v = t.tv
    # the placeholder view every rule of the DMA reads (shape, dtype, bytes): row 0 repeated
    view = TensorView(v.memory, v.offset, (rows,) + tuple(v.shape[1:]), (0,) + tuple(v.strides[1:]), v.dtype,
                      api=api)
    root = _root(t)
    out = NkiTensor(view, root.buffer, root.name, root, root.run)
    out.ind = Indirect(root, tuple(pattern), element_offset(t), 0, int(pattern[0][0]), vector_offset, True,
                       v.dtype, views=True)
    return out


def dynamic_select(t, dim, index):
    """``t.select(dim, index)`` with a one-element SBUF index tensor: the dim is dropped, its position read
    from ``index`` when the instruction (a DMA) runs."""
    from .tensor import NkiTensor
    api = "NkiTensor.select"
    _already_indirect(t, api)
    nd = len(t.shape)
    if isinstance(dim, (bool, np.bool_)) or not isinstance(dim, (int, np.integer)) or not -nd <= dim < nd:
        raise ConstraintError(api, "dim", f"a dim of the {nd}-d tensor", dim)
    dim = int(dim) % nd
    if t.on_chip and dim == 0:
        raise ConstraintError(api, "dim", "not the partition dim (dim 0) of an SBUF/PSUM tensor for a dynamic "
                              "select", dim)
    if t.on_chip and nd <= 2:
        raise ConstraintError(api, "dim", "an SBUF/PSUM tensor keeps its partition dim and at least 2 dims", dim)
    from .registers import VirtualRegister
    if isinstance(index, VirtualRegister):
        index = RegisterIndex(index)        # its value is read when the DMA runs
    else:
        _index_tile(api, "index", index, "an int, a one-element SBUF tensor or a register holding the index")
        if index.size != 1:
            raise ConstraintError(api, "index", "one element (a scalar index)", index.shape)
    pattern = [(int(s), int(n)) for s, n in get_pattern(t)]
    stride = pattern.pop(dim)[0]
    v = t.tv
    shape, strides = list(v.shape), list(v.strides)
    del shape[dim], strides[dim]
    view = TensorView(v.memory, v.offset, shape, strides, v.dtype, api=api)      # at index 0: the placeholder
    root = _root(t)
    out = NkiTensor(view, root.buffer, root.name, root, root.run)
    out.ind = Indirect(root, tuple(pattern), element_offset(t), dim, stride, index, False, v.dtype, views=True)
    return out
