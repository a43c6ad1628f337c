"""LocalTensor's per-geometry plan (layout._PLANS): a tensor built from a cached plan is the tensor the
core's TensorView constructor builds (same pieces, offsets, geometry, dtype and footprint boxes), a
changed key field misses, and a failing call stores nothing and fails again the same way."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from npusim.core.errors import ConstraintError
from npusim.okk import Device, dim4
from npusim.okk import layout
from npusim.okk.layout import LANE, LocalTensor


def _reference(mem, addr, shape, strides, dtype, esize):
    """The pieces as the core constructor builds them (layout._pieces, no plan)."""
    q, r = divmod(addr, LANE)
    if strides is None:
        strides = layout.aligned_stride(None, q, shape, esize)
    s = (strides.n, strides.c, strides.h, strides.w)
    bst = (s[0] * esize, s[1] * esize, LANE, s[2] * esize, s[3] * esize)
    return layout._pieces(mem, "api", q, r, shape.tuple(), bst, np.dtype(dtype))


def _same(t, ref):
    assert len(t.pieces) == len(ref)
    for (lo, hi, v), (rlo, rhi, rv) in zip(t.pieces, ref):
        assert (lo, hi) == (rlo, rhi)
        assert (v.offset, v.shape, v.strides, v.dtype) == (rv.offset, rv.shape, rv.strides, rv.dtype)
        assert all(type(x) is int for x in v.shape + v.strides + (v.offset,))
        f, g = v.footprint, rv.footprint
        assert (f.memory, f.lane_lo, f.lane_hi, f.lo, f.hi) == (g.memory, g.lane_lo, g.lane_hi, g.lo, g.hi)
        assert f.view is v
        assert np.shares_memory(v.array(), rv.array()) and v.array().shape == rv.array().shape


_dim = st.integers(1, 5)


@settings(max_examples=150, deadline=None)
@given(q=st.integers(0, 63), r=st.integers(0, 4096).map(lambda x: x * 4), n=_dim, c=st.integers(1, 140), h=_dim,
       w=_dim, strided=st.booleans(), sn=st.integers(-600, 600), sc=st.integers(-300, 300),
       sh=st.integers(-20, 20), esize=st.sampled_from([4, 2, 1]))
def test_planned_tensor_equals_core_views(q, r, n, c, h, w, strided, sn, sc, sh, esize):
    dev = Device(global_mem_bytes=1 << 20)
    dtype = {4: np.uint32, 2: np.uint16, 1: np.uint8}[esize]
    shape = dim4(n, c, h, w)
    strides = dim4(sn, sc, sh, 1) if strided else None
    addr = q * LANE + r
    layout._PLANS.clear()
    try:
        first = LocalTensor(dev.local, "api", "dst_addr", addr, shape, strides, dtype, esize)
    except ConstraintError as e:
        assert not layout._PLANS                         # a failing call stores nothing
        with pytest.raises(ConstraintError) as again:
            LocalTensor(dev.local, "api", "dst_addr", addr, shape, strides, dtype, esize)
        assert str(again.value) == str(e)
        return
    assert len(layout._PLANS) == 1
    _same(first, _reference(dev.local, addr, shape, strides, dtype, esize))
    second = LocalTensor(dev.local, "api", "dst_addr", addr, shape, strides, dtype, esize)   # a hit
    assert len(layout._PLANS) == 1
    _same(second, _reference(dev.local, addr, shape, strides, dtype, esize))
    assert second.strides == first.strides and second.shape == first.shape


def test_changed_key_field_misses():
    dev = Device(global_mem_bytes=1 << 20)
    layout._PLANS.clear()
    base = dict(addr=3 * LANE + 256, shape=dim4(2, 70, 3, 5), strides=None, dtype=np.uint32, esize=4)
    LocalTensor(dev.local, "api", "dst_addr", base["addr"], base["shape"], None, np.uint32, 4)
    changes = [dict(addr=4 * LANE + 256), dict(shape=dim4(2, 71, 3, 5)), dict(shape=dim4(3, 70, 3, 5)),
               dict(shape=dim4(2, 70, 4, 5)), dict(shape=dim4(2, 70, 3, 6)), dict(strides=dim4(2000, 15, 5, 1)),
               dict(dtype=np.float32), dict(dtype=np.uint16, esize=2)]
    for i, ch in enumerate(changes):
        a = {**base, **ch}
        t = LocalTensor(dev.local, "api", "dst_addr", a["addr"], a["shape"], a["strides"], a["dtype"], a["esize"])
        assert len(layout._PLANS) == 2 + i, ch
        _same(t, _reference(dev.local, a["addr"], a["shape"], a["strides"], a["dtype"], a["esize"]))
    # the same geometry at another in-NPU offset is a hit, shifted
    n0 = len(layout._PLANS)
    t = LocalTensor(dev.local, "api", "dst_addr", base["addr"] + 512, base["shape"], None, np.uint32, 4)
    assert len(layout._PLANS) == n0
    _same(t, _reference(dev.local, base["addr"] + 512, base["shape"], None, np.uint32, 4))


def test_out_of_lane_error_repeats_after_a_hit():
    dev = Device(global_mem_bytes=1 << 20)
    layout._PLANS.clear()
    shape = dim4(1, 3, 1, 64)
    LocalTensor(dev.local, "api", "dst_addr", 0, shape, None, np.uint32, 4)       # plan cached
    msgs = []
    for _ in range(2):
        with pytest.raises(ConstraintError, match="lies inside the local memory") as e:
            LocalTensor(dev.local, "api", "dst_addr", LANE - 128, shape, None, np.uint32, 4)
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1] and "reaches bytes" in msgs[0]


@settings(max_examples=100, deadline=None)
@given(off=st.integers(0, 1 << 14), n=_dim, c=_dim, h=_dim, w=_dim, strided=st.booleans(),
       sn=st.integers(-900, 900), sc=st.integers(-200, 200), sh=st.integers(-30, 30), sw=st.integers(-2, 2),
       esize=st.sampled_from([4, 2, 1]))
def test_planned_system_tensor_equals_core_view(off, n, c, h, w, strided, sn, sc, sh, sw, esize):
    from npusim.core.view import TensorView
    from npusim.okk.layout import SystemTensor
    dev = Device(global_mem_bytes=1 << 16)
    dtype = {4: np.uint32, 2: np.uint16, 1: np.uint8}[esize]
    shape, strides = dim4(n, c, h, w), (dim4(sn, sc, sh, sw) if strided else None)
    addr = dev.system.base + off
    layout._SYSTEM_PLANS.clear()
    try:
        t = SystemTensor(dev, "api", "src_addr", addr, shape, strides, dtype, esize)
    except ConstraintError as e:
        assert not layout._SYSTEM_PLANS
        with pytest.raises(ConstraintError) as again:
            SystemTensor(dev, "api", "src_addr", addr, shape, strides, dtype, esize)
        assert str(again.value) == str(e)
        return
    s = strides or layout.continuous_stride(None, shape)
    for _ in range(2):          # built, then from the cached plan
        ref = TensorView(dev.system, off, shape.tuple(), tuple(x * esize for x in (s.n, s.c, s.h, s.w)), dtype)
        v = t.view
        assert (v.offset, v.shape, v.strides, v.dtype) == (ref.offset, ref.shape, ref.strides, ref.dtype)
        f, g = v.footprint, ref.footprint
        assert (f.memory, f.lane_lo, f.lane_hi, f.lo, f.hi, f.view) == (g.memory, g.lane_lo, g.lane_hi, g.lo, g.hi, v)
        assert t.footprints == [f]
        t = SystemTensor(dev, "api", "src_addr", addr, shape, strides, dtype, esize)
        assert len(layout._SYSTEM_PLANS) == 1


@pytest.mark.parametrize("shape, param, rule", [
    (dim4(0, 1, 1, 1), "shape->n", "shape sizes are positive"),
    (dim4(1, -2, 1, 1), "shape->c", "shape sizes are positive"),
    (dim4(1, 1, 0, 1), "shape->h", "shape sizes are positive"),
    (dim4(1, 1, 1, 0), "shape->w", "shape sizes are positive"),
    (dim4(1, 1, 1, 65536), "shape->w", "at most 65535"),
])
def test_shape_gdma_refusals_after_its_fast_path(shape, param, rule):
    """rules.shape_gdma returns early only when every check passes; each refusal still names its field."""
    from npusim.okk import rules
    rules.shape_gdma("okk_gdma_32bit_cpy_S2L", dim4(1, 64, 1, 65535))
    rules.shape_gdma("okk_gdma_32bit_cpy_S2L", dim4(np.int64(2), 3, 4, 5))       # numpy ints: the loop
    with pytest.raises(ConstraintError, match=rule) as e:
        rules.shape_gdma("okk_gdma_32bit_cpy_S2L", shape)
    assert e.value.param == param
