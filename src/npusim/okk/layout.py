"""Local and system tensors: the five stride helpers and the channel-to-NPU scatter (reference §2).

Element (n, c, h, w) of a local tensor at ``addr`` (Q = addr >> 19, R = addr & 0x7FFFF) with element
strides (Ns, Cs, Hs, Ws) lives in NPU ``(Q + c) % 64`` at byte
``R + esize * (n*Ns + ((Q + c) // 64)*Cs + h*Hs + w*Ws)``. A LocalTensor is that map as at most three
core TensorViews (a partial first row of NPUs, the full rows, a partial last row), each of shape
(N, rows, npus, H, W); reading joins them into one (N, C, H, W) array. Stride 0 broadcasts.
"""
from __future__ import annotations

import numpy as np

from ..core.errors import ConstraintError
from ..core.options import options
from ..core import dtypes as _dtypes
from ..core.view import TensorView
from . import args, initmap, spec
from .types import dim4

X = spec.NPU_NUM
LANE = spec.LOCAL_MEM_SIZE


def _div_up(a: int, b: int) -> int:
    return -(-a // b)


def _align(a: int, b: int) -> int:
    return _div_up(a, b) * b


def _out(stride: dim4 | None, n: int, c: int, h: int, w: int) -> dim4:
    if stride is None:
        return dim4(n, c, h, w)
    stride.n, stride.c, stride.h, stride.w = n, c, h, w
    return stride


def aligned_stride(stride: dim4 | None, start_idx: int, shape: dim4, esize: int) -> dim4:
    """okk_128_byte_aligned_stride_for_{32,16,8}bit: C stride = ALIGN(h*w, 128 / esize)."""
    cs = _align(shape.h * shape.w, 128 // esize)
    return _out(stride, _div_up(start_idx + shape.c, X) * cs, cs, shape.w, 1)


def compact_stride(stride: dim4 | None, start_idx: int, shape: dim4) -> dim4:
    hw = shape.h * shape.w
    return _out(stride, _div_up(start_idx + shape.c, X) * hw, hw, shape.w, 1)


def continuous_stride(stride: dim4 | None, shape: dim4) -> dim4:
    return _out(stride, shape.c * shape.h * shape.w, shape.h * shape.w, shape.w, 1)


def _span(shape: tuple, strides: tuple) -> tuple[int, int]:
    """Lowest and highest element offset a strided box reaches."""
    lo = hi = 0
    for n, s in zip(shape, strides):
        d = s * (n - 1)
        if d < 0:
            lo += d
        else:
            hi += d
    return lo, hi


_PLANS: dict = {}       # (q, n, c, h, w, strides, dtype, esize) -> _plan(...): kernels repeat geometries


def _pieces(mem, api, q, r, shape, bst, dtype) -> list:
    """The core views of a local tensor: channels c' = q + c in rows of 64 NPUs, split into runs of a
    partial first row, the full rows, a partial last row."""
    n, c, h, w = shape
    pieces = []
    for c_lo, row, lane, nl, nrows in _row_runs(q, c):
        view = TensorView(mem, lane * LANE + r + row * bst[1], (n, nrows, nl, h, w), bst, dtype, api=api)
        pieces.append((c_lo, c_lo + nrows * nl, view))
    return pieces


def _row_runs(q: int, c: int):
    """(first channel, NPU row, first lane, lanes, rows) of each run channels q .. q + c - 1 split into:
    a partial first row, the full rows, a partial last row."""
    c_lo = 0
    while c_lo < c:
        row, lane = divmod(q + c_lo, X)
        if lane or c - c_lo < X:
            nl, nrows = min(X - lane, c - c_lo), 1
        else:
            nl, nrows = X, (c - c_lo) // X
        yield c_lo, row, lane, nl, nrows
        c_lo += nrows * nl


def _plan(q: int, shape: dim4, strides: dim4 | None, dtype: np.dtype, esize: int) -> tuple:
    """Everything about a local tensor's layout that does not depend on its in-NPU offset r: element
    strides, element span, the core dtype and, per piece (as _pieces splits it), its channel range,
    first lane, lane count, byte offset from lane * LANE + r, shape, byte strides and in-lane byte span
    (_span over its in-lane dims: TensorView._footprint's box, which skips size-1 and stride-0 dims,
    whose span is 0 anyway). None for the pieces when a dim is not positive."""
    n, c, h, w = shape.n, shape.c, shape.h, shape.w
    if strides is None:
        strides = aligned_stride(None, q, shape, esize)
    st = (strides.n, strides.c, strides.h, strides.w)
    lo, hi = _span((n, _div_up(q + c, X), h, w), st)
    dt = _dtypes.dtype(dtype)
    bst = tuple(int(x) for x in (st[0] * esize, st[1] * esize, LANE, st[2] * esize, st[3] * esize))
    n, c, h, w = int(n), int(c), int(h), int(w)     # (the core view's geometry is Python ints)
    if min(n, c, h, w) <= 0:
        return st, lo, hi, dt, dt.np.itemsize, None
    plan = []
    for c_lo, row, lane, nl, nrows in _row_runs(q, c):
        plo, phi = _span((n, nrows, h, w), (bst[0], bst[1], bst[3], bst[4]))
        plan.append((c_lo, c_lo + nrows * nl, lane, nl, row * bst[1], (n, nrows, nl, h, w), bst, plo, phi))
    return st, lo, hi, dt, dt.np.itemsize, plan


class LocalTensor:
    """A (N, C, H, W) tensor in the 64 NPU local memories, as the hardware addresses it."""
    __slots__ = ("addr", "shape", "strides", "dtype", "pieces", "footprints", "memory")

    def __init__(self, mem, api: str, param: str, addr: int, shape: dim4, strides: dim4 | None,
                 dtype, esize: int):
        addr = args.local_addr(api, param, addr)
        strides = args.stride_arg(api, param.replace("_addr", "_stride"), strides)
        n, c, h, w = shape.n, shape.c, shape.h, shape.w
        q, r = divmod(addr, LANE)
        self.dtype = np.dtype(dtype)
        key = (q, n, c, h, w, None if strides is None else (strides.n, strides.c, strides.h, strides.w),
               self.dtype, esize)
        plan = _PLANS.get(key)
        if plan is None:
            plan = _plan(q, shape, strides, self.dtype, esize)
        st, lo, hi, dt, item, pieces_plan = plan
        lo, hi = r + lo * esize, r + hi * esize + esize
        if lo < 0 or hi > LANE:
            raise ConstraintError(api, param, "the tensor lies inside the local memory of each NPU it "
                                  f"touches (bytes [0, {LANE:#x}) per NPU)",
                                  f"{param}={addr:#x} shape={shape.tuple()} stride={st} reaches bytes "
                                  f"[{lo:#x}, {hi:#x})")
        if len(_PLANS) >= 4096:
            _PLANS.clear()
        _PLANS[key] = plan          # (after the check: a failing call stores nothing)
        self.addr, self.shape, self.strides = addr, (n, c, h, w), st
        if pieces_plan is None:     # a size-0 dim: the core view works its footprint out itself
            bst = (st[0] * esize, st[1] * esize, LANE, st[2] * esize, st[3] * esize)
            pieces = _pieces(mem, api, q, r, (n, c, h, w), bst, self.dtype)
        else:
            # the bounds check above proves every piece inside its lanes, so each core view is placed
            # with the footprint box the plan holds (TensorView._footprint's, shifted by r)
            pieces = [(c_lo, c_hi, TensorView.placed(mem, lane * LANE + r + off, shp, bst, dt, lane, lane + nl,
                                                     r + off + plo, r + off + phi + item))
                      for c_lo, c_hi, lane, nl, off, shp, bst, plo, phi in pieces_plan]
        self.pieces = pieces
        self.footprints = [p[2].footprint for p in pieces]
        self.memory = mem

    def init_boxes(self) -> list:
        """The init bytes of each piece as one merged uint8 box (the core's TensorView.init_box)."""
        return [v.init_box() for _, _, v in self.pieces]

    def values(self) -> np.ndarray:
        """read() without the init check (the caller checked with initmap.is_written)."""
        if len(self.pieces) == 1:
            return self.pieces[0][2].array().reshape(self.shape)
        out = np.empty(self.shape, self.dtype)
        self.values_into(out)
        return out

    def values_into(self, out: np.ndarray) -> None:
        """Copy the values into ``out`` (N, C, H, W) in one pass: each piece lands in its channel range
        split into (rows, NPUs) as a view of ``out`` (merging a piece's rows and NPUs into channels
        first, then concatenating, copied twice)."""
        n, c, h, w = self.shape
        for lo, hi, v in self.pieces:
            np.reshape(out[:, lo:hi], v.shape, copy=False)[...] = v.array()

    def store(self, values: np.ndarray) -> None:
        """write() without marking the init map (the caller marks with initmap.mark_tensor)."""
        if getattr(values, "shape", None) != self.shape:
            values = np.broadcast_to(values, self.shape)
        for lo, hi, v in self.pieces:
            part = values if len(self.pieces) == 1 else values[:, lo:hi]
            v.array()[...] = part.reshape(v.shape)

    def read(self) -> np.ndarray:
        """The values as an (N, C, H, W) array (a view when the tensor sits in one row of NPUs)."""
        if options().track_init and initmap.is_written(self):
            return self.values()        # nothing to report or poison: the core's read() would do no more
        n, c, h, w = self.shape
        parts = [v.read().reshape(n, hi - lo, h, w) for lo, hi, v in self.pieces]
        return parts[0] if len(parts) == 1 else np.concatenate(parts, axis=1)

    def write(self, values: np.ndarray) -> None:
        """The core's TensorView.write per piece, with the init map marked in one fill (initmap)."""
        self.store(values)
        if options().track_init:
            initmap.mark_tensor(self)


_SYSTEM_PLANS: dict = {}    # (n, c, h, w, strides, dtype, esize) -> _system_plan(...)


def _system_plan(shape: dim4, strides: dim4 | None, dtype, esize: int) -> tuple:
    """A system tensor's geometry without its address: shape, element strides, element span and, when
    its elements are ``esize`` bytes and no dim is 0, the core view's (shape, byte strides, DType, byte
    box relative to its offset) as TensorView._footprint computes them for an unlaned memory."""
    if strides is None:
        strides = continuous_stride(None, shape)
    sh = shape.tuple()
    st = (strides.n, strides.c, strides.h, strides.w)
    lo, hi = _span(sh, st)
    dt = _dtypes.dtype(dtype)
    if dt.np.itemsize != esize or min(sh) <= 0:
        return sh, st, lo, hi, None
    vsh, bst = tuple(map(int, sh)), tuple(int(s * esize) for s in st)
    vlo, vhi = _span(vsh, bst)
    return sh, st, lo, hi, (vsh, bst, dt, vlo, vhi + esize)


class SystemTensor:
    """A (N, C, H, W) tensor in system memory with element strides (continuous when None)."""
    __slots__ = ("view", "footprints", "shape", "memory")

    def __init__(self, dev, api: str, param: str, addr: int, shape: dim4, strides: dim4 | None,
                 dtype, esize: int):
        addr = args.system_addr(api, param, addr)
        strides = args.stride_arg(api, param.replace("_addr", "_stride"), strides)
        key = (shape.n, shape.c, shape.h, shape.w,
               None if strides is None else (strides.n, strides.c, strides.h, strides.w), dtype, esize)
        plan = _SYSTEM_PLANS.get(key)
        if plan is None:
            plan = _system_plan(shape, strides, dtype, esize)
        sh, st, lo, hi, view_plan = plan
        mem, off = dev.system_memory(addr, api=api, param=param)
        lo, hi = off + lo * esize, off + hi * esize + esize
        if lo < 0 or hi > mem.size:
            raise ConstraintError(api, param, f"the tensor lies inside {mem.name} "
                                  f"[{mem.base:#x}, {mem.base + mem.size:#x})",
                                  f"{param}={addr:#x} shape={sh} stride={st} reaches "
                                  f"[{mem.base + lo:#x}, {mem.base + hi:#x})")
        if len(_SYSTEM_PLANS) >= 4096:
            _SYSTEM_PLANS.clear()
        _SYSTEM_PLANS[key] = plan   # (after the check: a failing call stores nothing)
        self.shape = sh
        if view_plan is None or mem.lanes > 1:
            self.view = TensorView(mem, off, sh, tuple(s * esize for s in st), dtype, api=api)
        else:   # the check above is the core view's bounds check: place it with its footprint box
            vsh, bst, dt, vlo, vhi = view_plan
            self.view = TensorView.placed(mem, off, vsh, bst, dt, 0, 1, off + vlo, off + vhi)
        self.footprints = [self.view.footprint]
        self.memory = mem

    def init_boxes(self) -> list:
        return [self.view.init_box()]

    def values(self) -> np.ndarray:
        return self.view.array()

    def store(self, values: np.ndarray) -> None:
        self.view.array()[...] = values

    def read(self) -> np.ndarray:
        if options().track_init and initmap.is_written(self):
            return self.values()
        return self.view.read()

    def write(self, values: np.ndarray) -> None:
        self.store(values)
        if options().track_init:
            initmap.mark_tensor(self)



def copy_tensor(dst, src) -> None:
    """``dst.write(src.read())``. A written local tensor over several NPU rows going to system memory
    is copied piece by piece straight into the system view (each piece's channel range split into
    (rows, NPUs)): one pass, where gathering it first (values) and storing it again were two."""
    if (type(src) is LocalTensor and type(dst) is SystemTensor and len(src.pieces) > 1
            and options().track_init and initmap.is_written(src)):
        out = dst.view.array()
        for lo, hi, v in src.pieces:
            np.reshape(out[:, lo:hi], v.shape, copy=False)[...] = v.array()
        initmap.mark_tensor(dst)
        return
    dst.write(src.read())
