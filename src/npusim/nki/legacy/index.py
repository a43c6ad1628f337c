"""Legacy index expressions: ``nl.arange``, ``nl.mgrid`` and the affine access patterns they build.

``nl.arange(128)[:, None]`` is a numpy int array; arithmetic on it (``i * 128 + ix``) and comparisons
(``ix < num_rows``, for ``mask=``) are numpy's. Indexing a tensor with such arrays gives a strided view:
each index array must be an affine function of the broadcast grid's coordinates (that is what an access
pattern can express), and each grid axis becomes one dim of the view with the stride the coefficients
give. So ``in_tile[i0, 2 * i1 + i2, 2 * i3 + i4]`` over a (C, H, W) tile is a 5-D view, no copy.
"""
from __future__ import annotations

import numpy as np

from ...core.errors import ConstraintError
from ...core.view import TensorView
from ..args import as_int

API = "NkiTensor.__getitem__"


def arange(start, stop=None, step=1) -> np.ndarray:
    """``nl.arange``: a 1-D int index; add axes with ``[:, None]`` / ``[None, :]``."""
    if stop is None and step.__class__ is int and step == 1 and (start.__class__ is int or isinstance(
            start, np.integer)) and -2 ** 31 <= start <= 2 ** 31:
        return np.arange(int(start), dtype=np.int64)     # (``nl.arange(n)``: what as_int would pass)
    start = as_int("nl.arange", "start", start, -2 ** 31, 2 ** 31)
    stop = None if stop is None else as_int("nl.arange", "stop", stop, -2 ** 31, 2 ** 31)
    step = as_int("nl.arange", "step", step, rule="a nonzero int")
    if step == 0:
        raise ConstraintError("nl.arange", "step", "a nonzero int", step)
    return np.arange(start, stop, step, dtype=np.int64) if stop is not None else np.arange(start, dtype=np.int64)


class Grid(tuple):
    """What ``nl.mgrid[...]`` returns: one open-grid index per axis; ``.p`` is the first, ``.x``, ``.y``,
    ``.z`` the free ones (``i = nl.mgrid[0:128, 0:512]; t[i.p, i.x]``), or unpack it."""

    @property
    def p(self):
        return self[0]

    @property
    def x(self):
        return self[1]

    @property
    def y(self):
        return self[2]

    @property
    def z(self):
        return self[3]


class _MGrid:
    def __getitem__(self, key) -> Grid:
        key = key if isinstance(key, tuple) else (key,)
        return Grid(a.astype(np.int64) for a in np.ogrid[key])


mgrid = _MGrid()


def has_index_arrays(key) -> bool:
    if not isinstance(key, tuple):
        return isinstance(key, np.ndarray)
    for k in key:           # (a loop, not any(genexpr): this runs for every legacy index)
        if isinstance(k, np.ndarray):
            return True
    return False


def _affine(api, d, idx: np.ndarray, ndim: int):
    """(base, coefficient per grid axis) of an index array that is affine in the grid coordinates."""
    a = idx.reshape((1,) * (ndim - idx.ndim) + idx.shape)
    base = int(a[(0,) * ndim])
    coef = []
    rec = np.full(a.shape, base, dtype=np.int64)
    for k in range(ndim):
        if a.shape[k] == 1:
            coef.append(0)
            continue
        e = [0] * ndim
        e[k] = 1
        c = int(a[tuple(e)]) - base
        coef.append(c)
        shape = [1] * ndim
        shape[k] = a.shape[k]
        rec = rec + c * np.arange(a.shape[k], dtype=np.int64).reshape(shape)
    if not np.array_equal(rec, a):
        raise ConstraintError(api, "key", "an index is an affine expression of nl.arange / nl.mgrid indices "
                              "(an access pattern)", f"index of dim {d}")
    return base, coef


class OutOfBoundsIndex:
    """``hbm[i * 128 + ix, iy]`` whose indices step outside the tensor (the last row tile of the
    tutorials' tail handling). Only ``nl.load`` / ``nl.store`` take it, with a ``mask=`` that leaves out
    every outside position; anything else raises the bounds error."""

    def __init__(self, tensor, arrays, shape, error: ConstraintError):
        self.tensor, self.arrays, self.index_shape, self.error = tensor, arrays, shape, error

    def inside(self) -> np.ndarray:
        """Which positions of the index grid lie inside the tensor."""
        ok = np.ones(self.index_shape, bool)
        for a, n in zip(self.arrays, self.tensor.shape):
            ok &= (a >= 0) & (a < n)
        return ok

    def within(self, box):
        """The in-bounds view of the grid positions in ``box`` (slices of the index grid)."""
        sub = tuple(np.broadcast_to(a, self.index_shape)[box] for a in self.arrays)
        return affine_view(self.tensor, sub)

    @property
    def shape(self):
        raise self.error

    def __getattr__(self, name):
        raise self.error


def slices_as_arrays(key, shape):
    """``(slice, int, ...)`` as index arrays, one grid axis per slice (ints drop their dim, as on HBM; an
    open bound is the dim's start or end); None for negative bounds or steps."""
    key = key if isinstance(key, tuple) else (key,)
    if len(key) != len(shape):
        return None
    slices = [k for k in key if isinstance(k, slice)]
    out, axis = [], 0
    for k, n in zip(key, shape):
        if isinstance(k, (int, np.integer)):
            out.append(int(k))
            continue
        if not isinstance(k, slice) or k.step not in (None, 1):
            return None
        start = 0 if k.start is None else int(k.start)
        stop = n if k.stop is None else int(k.stop)
        if start < 0 or stop < start:
            return None
        dims = [1] * len(slices)
        dims[axis] = stop - start
        out.append(np.arange(start, stop, dtype=np.int64).reshape(dims))
        axis += 1
    return tuple(out)


#: affine_view's plans: (on_chip, view shape, view strides, one entry per index: None for an int, else
#: (shape, bytes of index - its first element)) -> (shape, strides, per index (stride, lo span, hi span,
#: size), the view's relative footprint box). Everything the analysis reads except the indices' first elements (their bases), which only
#: move the offset and the bounds: a loop's ``i * 128 + ix`` is one plan for every i.
_PLANS: dict = {}
_PLANS_MAX = 4096           # distinct index geometries kept (a kernel has a handful; cleared when full)
_INT64 = np.dtype(np.int64)
try:        # (numpy's C count, without np.count_nonzero's Python wrapper: one per masked call)
    from numpy._core.multiarray import count_nonzero as _count_nonzero
except ImportError:         # pragma: no cover (older numpy)
    _count_nonzero = np.count_nonzero
_BOOL = np.dtype(np.bool_)


def affine_view(t, key):
    """The view ``t[key]`` for a key holding index arrays (and ints / full slices); for an HBM tensor whose
    indices step outside it, an ``OutOfBoundsIndex`` (for masked loads and stores).

    The analysis (``_analyse``) runs once per index geometry; later keys of the same geometry (the same
    index arrays up to their first element) reuse its plan when every index lies inside its dim, and
    anything else (an outside index, an int subclass, a slice) takes the analysis again, which raises
    or returns exactly what it did."""
    key = key if isinstance(key, tuple) else (key,)
    v = t.tv
    parts = [t.on_chip, v.shape, v.strides]
    bases = []
    for k in key:
        tk = type(k)
        if tk is np.ndarray and k.dtype.kind in "iu" and k.size:
            if k.dtype != _INT64:
                k = k.astype(np.int64)
            b = int(k.item(0))
            # (an index starting at 0, ``iy``, is its own pattern: no subtraction)
            parts.append((k.shape, (k - b).tobytes() if b else k.tobytes()))
            bases.append(b)
        elif tk is int:
            parts.append(None)
            bases.append(k)
        else:
            return _analyse(t, key, None)
    parts = tuple(parts)
    plan = _PLANS.get(parts)
    if plan is None:
        return _analyse(t, key, parts)
    shape, strides, dims, box = plan
    offset = v.offset
    for b, (s, lo, hi, n) in zip(bases, dims):
        if b + lo < 0 or b + hi >= n:
            return _analyse(t, key, None)       # the bounds error (or an OutOfBoundsIndex), as it was
        offset += b * s
    # Every index lies inside its dim, so the view's elements are some of t's, which passed t's own check:
    # its footprint box is the plan's, moved to this offset (what TensorView.derived's _box computes)
    mem = v.memory
    lb, item, lane_lo, lane_hi, lo, hi = box
    if (mem.lane_bytes if mem.lanes > 1 else 0) != lb or v.dtype.np.itemsize != item:
        return t._derive(TensorView.derived(v, offset, shape, strides, API))
    if lb:
        lane, byte = divmod(offset, lb)
        return t._derive(TensorView.placed(mem, offset, shape, strides, v.dtype, lane + lane_lo, lane + lane_hi,
                                           byte + lo, byte + hi))
    return t._derive(TensorView.placed(mem, offset, shape, strides, v.dtype, 0, 1, offset + lo, offset + hi))


def _relative_box(tv) -> tuple:
    """(lane bytes (0: not laned), item size, the view's footprint box relative to its first byte's lane
    and byte (laned) or to its first byte): the box of the same geometry at any other offset."""
    m = tv.memory
    item = tv.dtype.np.itemsize
    if m.lanes > 1:
        lb = m.lane_bytes
        lane, byte = divmod(tv.offset, lb)
        return lb, item, tv.lane_lo - lane, tv.lane_hi - lane, tv.lo - byte, tv.hi - byte
    return 0, item, 0, 1, tv.lo - tv.offset, tv.hi - tv.offset


def _analyse(t, key: tuple, plan_key):
    """affine_view's analysis: every rule, the view; with ``plan_key``, a successful view's plan is kept."""
    if len(key) != len(t.shape):
        raise ConstraintError(API, "key", f"one index per dim of the {len(t.shape)}-d tensor", len(key))
    arrays = []
    for d, (k, n) in enumerate(zip(key, t.shape)):
        if isinstance(k, (int, np.integer)):
            arrays.append(np.array(int(k), dtype=np.int64))
        elif isinstance(k, np.ndarray):
            if k.dtype.kind not in "iu":
                raise ConstraintError(API, "key", "integer index arrays (nl.arange / nl.mgrid)", str(k.dtype))
            arrays.append(k.astype(np.int64, copy=False))
        elif isinstance(k, slice) and k == slice(None):
            raise ConstraintError(API, "key", "index arrays are not mixed with slices (index every dim with "
                                  "nl.arange / nl.mgrid, or slice every dim)", k)
        else:
            raise ConstraintError(API, "key", "ints or index arrays", type(k).__name__)
    try:
        shape = np.broadcast_shapes(*(a.shape for a in arrays))
    except ValueError:
        raise ConstraintError(API, "key", "index arrays broadcast together",
                              [a.shape for a in arrays]) from None
    if t.on_chip and len(shape) < 2:
        raise ConstraintError(API, "key", "Indexing a NKI tensor with 1D arange is not supported "
                              "(err_1d_arange_not_supported: add an axis, nl.arange(n)[:, None])", shape)
    ndim = len(shape)
    v = t.tv
    offset = v.offset
    strides = [0] * ndim
    dims = []
    for d, (a, n, s) in enumerate(zip(arrays, v.shape, v.strides)):
        base, coef = _affine(API, d, a, ndim)
        lo_span = sum(c * (shape[k] - 1) for k, c in enumerate(coef) if c < 0)
        hi_span = sum(c * (shape[k] - 1) for k, c in enumerate(coef) if c > 0)
        lo, hi = base + lo_span, base + hi_span
        if lo < 0 or hi >= n:
            err = ConstraintError(API, "key", f"indices of dim {d} lie inside its size {n} (outside positions "
                                  "need a mask on nl.load / nl.store)", (lo, hi))
            if t.on_chip:
                raise err
            return OutOfBoundsIndex(t, arrays, shape, err)
        if any(c < 0 for c in coef):
            raise ConstraintError(API, "key", "index coefficients are >= 0 (no reversed access patterns)", coef)
        if t.on_chip and d == 0 and any(c for k, c in enumerate(coef) if k > 0):
            raise ConstraintError(API, "key", "the partition index varies along the first index axis only", coef)
        if t.on_chip and d > 0 and coef[0]:
            raise ConstraintError(API, "key", "a free-dim index does not vary along the partition axis", coef)
        if t.on_chip and d == 0 and coef[0] not in (0, 1):
            raise ConstraintError(API, "key", "partitions of an SBUF/PSUM view are contiguous (step 1)", coef[0])
        offset += base * s
        for k, c in enumerate(coef):
            strides[k] += c * s
        dims.append((s, lo_span, hi_span, n))
    if t.on_chip and strides[0] == 0:
        strides[0] = v.strides[0]       # one partition: its stride never moves
    out = t._derive(TensorView(v.memory, offset, shape, strides, v.dtype, api=API))
    if plan_key is not None:
        if len(_PLANS) >= _PLANS_MAX:
            _PLANS.clear()
        _PLANS[plan_key] = (out.tv.shape, out.tv.strides, tuple(dims), _relative_box(out.tv))
    return out


def permuted(t, order):
    """A view of ``t`` with its dims in ``order`` (an access pattern: no data moves)."""
    v = t.tv
    return t._derive(TensorView(v.memory, v.offset, [v.shape[i] for i in order], [v.strides[i] for i in order],
                                v.dtype, api="nl.transpose"))


def mask_array(api: str, mask, shape) -> np.ndarray | None:
    """``mask=`` broadcast to ``shape`` (None: everything); a bool array from index comparisons."""
    if mask is None:
        return None
    m = mask if type(mask) is np.ndarray else np.asarray(mask)
    if m.dtype is not _BOOL and m.dtype != np.bool_:
        raise ConstraintError(api, "mask", "a boolean expression of nl.arange / nl.mgrid indices", str(m.dtype))
    if _count_nonzero(m) == m.size:
        # (m.all(), by counting: no reduction machinery for the usual all-true mask)
        return None         # selects everything, whatever shape it is written over (bn_stats: its input's)
    try:
        m = np.broadcast_to(m.reshape((1,) * (len(shape) - m.ndim) + m.shape) if m.ndim < len(shape) else m,
                            shape)
    except ValueError:
        raise ConstraintError(api, "mask", f"a partial mask broadcasts to the result shape {tuple(shape)}",
                              m.shape) from None
    return m
