"""``NkiTensor.rearrange(src_pattern, dst_pattern, fixed_sizes=None)``: einops-style split, reorder and merge
of dims as one view ([SDK] NkiTensor stub: "Combines splitting, reordering, and merging dimensions into a
single named operation").

A pattern is a tuple with one entry per dim: a name, or a tuple of names (a dim split into named sub-dims
on the source side, named dims merged into one on the destination side). Sizes of split sub-dims come from
``fixed_sizes``; one per group may be left out and is inferred. The view is built from the view methods
(``reshape_dim``, ``permute``, ``flatten_dims``), so their rules hold (on chip the partition dim is not
split, moved or merged; merged dims are laid out contiguously); their errors are raised under this API.
"""
from __future__ import annotations

import numpy as np

from ..core.errors import ConstraintError

API = "NkiTensor.rearrange"


def _groups(param, pattern):
    """((name, ...), ...) of a pattern; a bare name is a group of one."""
    if not isinstance(pattern, (tuple, list)) or not pattern:
        raise ConstraintError(API, param, "a non-empty tuple of names or tuples of names", pattern)
    out = []
    for entry in pattern:
        names = (entry,) if isinstance(entry, str) else tuple(entry) if isinstance(entry, (tuple, list)) else None
        if not names or not all(isinstance(n, str) and n for n in names):
            raise ConstraintError(API, param, "entries that are names (str) or non-empty tuples of names", entry)
        out.append(names)
    flat = [n for g in out for n in g]
    if len(flat) != len(set(flat)):
        raise ConstraintError(API, param, "each name once", pattern)
    return out, flat


def _split_sizes(group, size, fixed, dim):
    known = [fixed.get(n) for n in group]
    if any(k is not None and (isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1) for k in known):
        raise ConstraintError(API, "fixed_sizes", "positive int sizes", {n: fixed[n] for n in group if n in fixed})
    missing = [i for i, k in enumerate(known) if k is None]
    if len(group) == 1:
        if known[0] is not None and known[0] != size:
            raise ConstraintError(API, "fixed_sizes", f"the size of dim {dim} ({size}) for '{group[0]}'", known[0])
        return [size]
    if len(missing) > 1:
        raise ConstraintError(API, "fixed_sizes", f"sizes for all but one of {group} (dim {dim})", fixed)
    prod = int(np.prod([k for k in known if k is not None]))
    if missing:
        if size % prod:
            raise ConstraintError(API, "fixed_sizes", f"sizes dividing dim {dim}'s size {size}", fixed)
        known[missing[0]] = size // prod
    elif prod != size:
        raise ConstraintError(API, "fixed_sizes", f"sizes whose product is dim {dim}'s size {size}", fixed)
    return [int(k) for k in known]


def rearrange(t, src_pattern, dst_pattern, fixed_sizes=None):
    """The view ``t`` rearranged from ``src_pattern`` to ``dst_pattern`` (see the module docstring)."""
    src, src_names = _groups("src_pattern", src_pattern)
    dst, dst_names = _groups("dst_pattern", dst_pattern)
    fixed = {} if fixed_sizes is None else fixed_sizes
    if not isinstance(fixed, dict):
        raise ConstraintError(API, "fixed_sizes", "a dict of name -> size", fixed_sizes)
    if len(src) != len(t.shape):
        raise ConstraintError(API, "src_pattern", f"one entry per dim of the {len(t.shape)}-d tensor", src_pattern)
    if sorted(src_names) != sorted(dst_names):
        raise ConstraintError(API, "dst_pattern", f"the names of src_pattern {sorted(src_names)}", dst_pattern)
    if set(fixed) - set(src_names):
        raise ConstraintError(API, "fixed_sizes", "names of the patterns", sorted(set(fixed) - set(src_names)))
    try:
        v = t
        for dim in reversed(range(len(src))):           # split from the last dim: earlier indices stay put
            if len(src[dim]) > 1:
                v = v.reshape_dim(dim, _split_sizes(src[dim], t.shape[dim], fixed, dim))
            else:
                _split_sizes(src[dim], t.shape[dim], fixed, dim)
        order = [src_names.index(n) for n in dst_names]
        if order != sorted(order):
            v = v.permute(order)
        pos = 0
        for g in dst:                                   # merge each destination group (left to right)
            if len(g) > 1:
                v = v.flatten_dims(pos, pos + len(g) - 1)
            pos += 1
        return v
    except ConstraintError as err:
        if err.api == API:
            raise
        raise ConstraintError(API, err.param, err.rule, err.value) from None
