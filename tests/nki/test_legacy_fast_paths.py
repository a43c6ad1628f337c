"""The legacy layer's per-call shortcuts give exactly what the full paths give: affine_view's plan cache
(one analysis per index geometry), and a changed field of the geometry misses the cache."""
import numpy as np
import pytest

import npusim.nki as current_nki
import npusim.nki.legacy as nki
import npusim.nki.legacy.language as nl
from npusim.core.errors import ConstraintError
from npusim.nki.legacy import index as _index


def run(fn, *args, target="trn2"):
    return current_nki.simulate(nki.jit(fn), target=target)(*args)


def _geometry(t):
    v = t.tv
    return v.offset, v.shape, v.strides


def test_affine_plan_is_reused_across_bases_and_a_changed_field_misses():
    """``i * 16 + ix`` for every i is one plan; another stride, shape, on-chip-ness, index step or index
    shape is another. Each view equals the one the full analysis makes (cache cleared before it)."""
    a = np.arange(64 * 24, dtype=np.float32).reshape(64, 24)
    b = np.arange(64 * 32, dtype=np.float32).reshape(64, 32)
    seen = []

    def fresh(t, key):
        saved = dict(_index._PLANS)
        _index._PLANS.clear()
        try:
            return _geometry(t[key])
        finally:
            _index._PLANS.clear()
            _index._PLANS.update(saved)

    def k(x, y):
        ix, iy = nl.arange(16)[:, None], nl.arange(8)[None, :]
        _index._PLANS.clear()
        keys = [(x, (0 * 16 + ix, iy))]
        keys += [(x, (i * 16 + ix, iy + 3)) for i in range(1, 4)]       # same geometry, other bases
        keys += [(y, (ix, iy)),                                        # other row stride
                 (x, (ix, 2 * iy)),                                    # other index step
                 (x, (ix, nl.arange(4)[None, :])),                     # other index shape
                 (x, (nl.arange(16)[:, None, None], nl.arange(2)[None, :, None] * 8 + nl.arange(8)[None, None, :]))]
        t = nl.load(x[ix, nl.arange(24)[None, :]])                        # on chip: rules of its own
        keys += [(t, (ix, iy)), (t, (ix, iy + 5))]
        for tensor, key in keys:
            before = len(_index._PLANS)
            got = _geometry(tensor[key])
            seen.append(len(_index._PLANS) - before)
            assert got == fresh(tensor, key)
        out = nl.ndarray((1, 1), nl.float32, buffer=nl.shared_hbm)
        nl.store(out, nl.zeros((1, 1), nl.float32))
        return out
    run(k, a, b)
    # first key: a miss; three more bases: hits; y, 2*iy, shorter iy, 3-D grid: misses; the tile: a miss,
    # then a hit
    assert seen[:4] == [1, 0, 0, 0]
    assert seen[4:8] == [1, 1, 1, 1]
    assert seen[8:] == [1, 0]


def test_a_cached_plan_still_raises_and_steps_outside_as_before():
    """After a plan exists, a base that puts the index outside the tensor takes the full analysis: on HBM
    an OutOfBoundsIndex (masked loads), on chip the bounds error."""
    a = np.arange(40 * 8, dtype=np.float32).reshape(40, 8)

    def k(x):
        out = nl.ndarray((40, 8), nl.float32, buffer=nl.shared_hbm)
        ix, iy = nl.arange(16)[:, None], nl.arange(8)[None, :]
        for i in range(3):                 # rows 32..47 of 40: the last one is outside, loaded under a mask
            t = nl.load(x[i * 16 + ix, iy], mask=(i * 16 + ix < 40))
            nl.store(out[i * 16 + ix, iy], t, mask=(i * 16 + ix < 40))
        assert isinstance(x[2 * 16 + ix, iy], _index.OutOfBoundsIndex)
        tile = nl.load(x[ix, iy])
        tile[ix, iy]                        # a plan on chip
        with pytest.raises(ConstraintError, match="inside its size 8"):
            tile[ix, iy + 1]
        with pytest.raises(ConstraintError, match="affine expression"):
            tile[ix, iy * iy]               # same shape, other deltas: another key, the full analysis
        return out
    np.testing.assert_array_equal(run(k, a), a)


def _two_step(block_tile, key):
    """``t[key]`` of a block tile the long way: the block's tile, then the rest of the key."""
    nb = block_tile.nblocks
    tile = block_tile.base[(slice(None),) + tuple(int(b) for b in key[:nb])]
    return nl.LegacyTensor.__getitem__(tile, key[nb:])


def _error(fn):
    with pytest.raises(ConstraintError) as info:
        fn()
    return str(info.value)


@pytest.mark.parametrize("key", [
    (1, slice(None), slice(0, 3)),
    (2, 0, slice(1, 4)),                                 # an int partition index keeps its dim
    (0, slice(32, 48), 3),
    (1, np.int32(0), slice(np.int64(2), np.int32(4))),   # numpy ints (a kernel's h_starts[i])
    (2, slice(0, 64), -1),
    (1, nl.ds(32, 8), slice(None)),
])
def test_block_tile_view_is_the_two_step_view(key):
    """``t[b, rest]`` of a par_dim block tile is one slicing of the base tile: the same geometry as the
    block's tile indexed by ``rest``, and writing through it writes the same bytes."""
    def k(x):
        t = nl.zeros((3, nl.par_dim(64), 6), dtype=nl.float32)
        assert _geometry(t[key]) == _geometry(_two_step(t, key))
        t[key] = 7.0
        out = nl.ndarray((64, 18), nl.float32, buffer=nl.shared_hbm)
        nl.store(out, t.base.reshape((64, 18)))
        return out
    want = np.zeros((64, 3, 6), np.float32)
    blocks, rest = key[:1], key[1:]
    rest = tuple(slice(r.start, r.start + r.size) if isinstance(r, type(nl.ds(0, 1))) else r for r in rest)
    p = rest[0] if not isinstance(rest[0], (int, np.integer)) else slice(int(rest[0]), int(rest[0]) + 1)
    want[(p, blocks[0]) + rest[1:]] = 7.0
    np.testing.assert_array_equal(run(k, np.zeros((1, 1), np.float32)), want.reshape(64, 18))


@pytest.mark.parametrize("key", [
    (1, slice(0, 33), slice(None)),          # past the partitions
    (1, slice(None), slice(0, 7)),           # past the free dim
    (1, slice(None), np.int32(6)),
    (3, slice(None), slice(None)),           # no block 3
    (1, slice(None), slice(None), 0),        # one index too many
    (1, slice(0, 32, 2), slice(None)),       # a step on the partitions
])
def test_block_tile_key_errors_are_the_two_step_errors(key):
    def k(x):
        t = nl.zeros((3, nl.par_dim(32), 6), dtype=nl.float32)
        assert _error(lambda: t[key]) == _error(lambda: _two_step(t, key))
    run(k, np.zeros((1, 1), np.float32))


def test_numpy_int_bounds_give_the_int_view_and_their_own_errors():
    """An HBM or SBUF view with numpy-int bounds is the view of the same Python ints; a bad one raises
    the error that names the key as written."""
    a = np.arange(40 * 8, dtype=np.float32).reshape(40, 8)

    def k(x):
        h0, h1 = np.int32(3), np.int32(11)
        assert _geometry(x[h0:h1, np.int64(2):8]) == _geometry(x[3:11, 2:8])
        assert _geometry(x[np.int64(5), 1:4]) == _geometry(x[5, 1:4])
        t = nl.load(x[0:16, 0:8])
        assert _geometry(t[np.int32(0):np.int32(16), np.int32(2)]) == _geometry(t[0:16, 2])
        msg = _error(lambda: t[0:16, np.int32(2):np.int32(9)])
        assert "np.int32(9)" in msg or "9" in msg
        assert msg == _error(lambda: nl.LegacyTensor.__bases__[0].__getitem__(t, (slice(0, 16),
                                                                                  slice(np.int32(2), np.int32(9)))))
        out = nl.ndarray((1, 1), nl.float32, buffer=nl.shared_hbm)
        nl.store(out, nl.zeros((1, 1), nl.float32))
        return out
    run(k, a)


def test_ellipsis_is_every_dim_whole():
    """``t[...]`` (``out_tile[...] = x``) is the view of full slices, as the general path makes it."""
    def k(x):
        t = nl.load(x[0:16, 0:8])
        assert _geometry(t[...]) == _geometry(nl.LegacyTensor.__bases__[0]._index(t, Ellipsis))
        assert _geometry(x[...]) == _geometry(nl.LegacyTensor.__bases__[0]._index(x, Ellipsis))
        t[...] = nl.multiply(t, 2.0)
        out = nl.ndarray((16, 8), nl.float32, buffer=nl.shared_hbm)
        nl.store(out, t)
        return out
    a = np.arange(40 * 8, dtype=np.float32).reshape(40, 8)
    np.testing.assert_array_equal(run(k, a), a[:16] * 2)


@pytest.mark.parametrize("n", [0, 1, 7, np.int32(5), np.uint8(3), np.int64(12)])
def test_arange_of_one_int_is_the_checked_arange(n):
    """``nl.arange(n)`` (its shortcut) is the int64 ``np.arange`` of the Python int, as the checked path
    (``nl.arange(0, n)``) gives it."""
    got, want = nl.arange(n), nl.arange(0, n)
    assert got.dtype == want.dtype == np.int64
    np.testing.assert_array_equal(got, np.arange(int(n)))
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("bad", [True, np.bool_(True), 2.0, 2 ** 31 + 1, -2 ** 31 - 1, "4"])
def test_arange_of_a_bad_start_raises_the_checked_error(bad):
    msg = _error(lambda: nl.arange(bad))
    assert "nl.arange" in msg and "start" in msg


def test_one_dim_column_load_has_the_checked_view_and_values():
    """``nl.load(A[c0:c1, j])`` loads a column: its (n, 1) view has the footprint box the checked
    ``TensorView.derived`` computes, and the tile holds the column."""
    from npusim.core.view import TensorView
    from npusim.nki.legacy.movement import _as_tile_source
    a = np.arange(40 * 8, dtype=np.float32).reshape(40, 8)

    def k(x):
        src = x[3:35, 5]
        v = src.tv
        got = _as_tile_source(src).tv
        want = TensorView.derived(v, v.offset, (v.shape[0], 1), (v.strides[0], v.dtype.itemsize), "nl.load")
        for f in ("memory", "offset", "shape", "strides", "dtype", "lane_lo", "lane_hi", "lo", "hi"):
            assert getattr(got, f) == getattr(want, f), f
        out = nl.ndarray((32, 1), nl.float32, buffer=nl.shared_hbm)
        nl.store(out, nl.load(src))
        return out
    np.testing.assert_array_equal(run(k, a), a[3:35, 5:6])


def _events(run_):
    return [(e.engine, e.name, e.start_ns, e.end_ns, e.nbytes, e.elements, e.source) for e in run_.trace.events]


def test_all_true_mask_on_load_and_store_is_the_unmasked_call():
    """An all-true mask (``i * 128 + ix < n`` of a whole tile) takes the unmasked short path: the same
    values and events as no mask; a partial mask still masks, a non-bool one raises as before."""
    a = np.arange(64 * 8, dtype=np.float32).reshape(64, 8)

    def kernel(masked, partial=False):
        def k(x):
            ix, iy = nl.arange(32)[:, None], nl.arange(8)[None, :]
            m = (ix < (16 if partial else 32)) if masked else None
            out = nl.ndarray((32, 8), nl.float32, buffer=nl.shared_hbm)
            t = nl.load(x[32 + ix, iy], mask=m)
            nl.store(out[ix, iy], value=nl.multiply(t, 2.0), mask=m)
            return out
        return k
    plain = run(kernel(False), a)
    plain_events = _events(current_nki.last_run())
    np.testing.assert_array_equal(run(kernel(True), a), plain)
    assert _events(current_nki.last_run()) == plain_events
    np.testing.assert_array_equal(plain, a[32:] * 2)
    from npusim.core.errors import UninitializedReadWarning
    with pytest.warns(UninitializedReadWarning):        # the rows the mask leaves out are never written
        part = run(kernel(True, partial=True), a)
    np.testing.assert_array_equal(part[:16], a[32:48] * 2)

    def bad(x):
        nl.load(x[0:8, 0:8], mask=nl.arange(8)[:, None])
    assert "boolean expression" in _error(lambda: run(bad, a))

    def bad_store(x):
        out = nl.ndarray((8, 8), nl.float32, buffer=nl.shared_hbm)
        nl.store(out[0:8, 0:8], nl.load(x[0:8, 0:8]), mask=nl.arange(8)[:, None])
    assert "boolean expression" in _error(lambda: run(bad_store, a))


def test_a_cached_plan_gives_the_checked_footprint_box():
    """A plan hit builds its view from the plan's relative footprint box: for every base, on HBM and on
    chip (laned), the box is the one TensorView.derived's check computes for that geometry."""
    from npusim.core.view import TensorView
    a = np.arange(64 * 24, dtype=np.float32).reshape(64, 24)

    def box(tv):
        return tv.offset, tv.shape, tv.strides, tv.lane_lo, tv.lane_hi, tv.lo, tv.hi

    def k(x):
        ix, iy = nl.arange(16)[:, None], nl.arange(8)[None, :]
        t = nl.load(x[0:32, 0:24])
        _index._PLANS.clear()
        for tensor, key in [(x, (i * 16 + ix, iy + 2 * i)) for i in range(4)] + \
                           [(t, (i * 16 + ix, 2 * iy + i)) for i in range(2)] + \
                           [(x, (nl.arange(16)[:, None, None], nl.arange(2)[None, :, None] * 8 + nl.arange(4)[None, None, :] + i))
                            for i in range(3)]:
            got = tensor[key].tv
            want = TensorView.derived(tensor.tv, got.offset, got.shape, got.strides, "check")
            assert box(got) == box(want)
        assert len(_index._PLANS) == 3          # one plan per geometry: the later bases were hits
        out = nl.ndarray((1, 1), nl.float32, buffer=nl.shared_hbm)
        nl.store(out, nl.zeros((1, 1), nl.float32))
        return out
    run(k, a)


def test_reduction_axes_are_checked_once_per_ndim_and_axis():
    """nl.sum's checked axes are kept per (ndim, axis as written): the same axis of another rank is
    another key, a bool (hashing like 1) or a numpy int is checked every time, and a refused axis stays
    refused."""
    from npusim.nki.legacy import language as legacy_nl
    a = np.arange(32 * 24, dtype=np.float32).reshape(32, 24)

    def k(x):
        legacy_nl._AXES.clear()
        t3 = nl.load(x[0:32, 0:24]).reshape((32, 4, 6))
        t2 = nl.load(x[0:32, 0:6])
        s1 = nl.sum(t3, axis=[-2, -1])
        s2 = nl.sum(t3, axis=[-2, -1])
        s3 = nl.sum(t2, axis=[-1])
        assert len(legacy_nl._AXES) == 2
        s4 = nl.sum(t3, axis=2)
        assert len(legacy_nl._AXES) == 3
        for bad in ([0], 0, True, [True], [1, 1], [5]):
            msg = _error(lambda: nl.sum(t3, axis=bad))
            assert "axis" in msg
            assert msg == _error(lambda: nl.sum(t3, axis=bad))
        assert len(legacy_nl._AXES) == 3
        np.testing.assert_array_equal(nl.sum(t3, axis=np.int64(2)).numpy(), s4.numpy())
        out = nl.ndarray((32, 4), nl.float32, buffer=nl.shared_hbm)
        for j, s in enumerate((s1, s2, s3)):
            nl.store(out[0:32, j:j + 1], s)
        nl.store(out[0:32, 3:4], nl.sum(s4, axis=1))
        return out
    got = run(k, a)
    want = a.reshape(32, 4, 6).sum(axis=(1, 2))
    np.testing.assert_allclose(got[:, 0], want, rtol=1e-6)
    np.testing.assert_allclose(got[:, 1], want, rtol=1e-6)
    np.testing.assert_allclose(got[:, 2], a[:, :6].sum(axis=1), rtol=1e-6)
    np.testing.assert_allclose(got[:, 3], want, rtol=1e-6)


@pytest.mark.parametrize("y", [7, 0.3, np.int32(7), np.uint8(3), np.float64(0.3), np.float32(1e-3)])
def test_tile_divided_by_a_number_is_times_its_fp32_reciprocal(y):
    """``tile / n`` (its short path for Python and numpy numbers) multiplies by fp32(1) / fp32(n)."""
    a = (np.arange(32 * 8, dtype=np.float32).reshape(32, 8) + 1) / 7

    def k(x):
        out = nl.ndarray((32, 8), nl.float32, buffer=nl.shared_hbm)
        nl.store(out, nl.load(x) / y)
        return out
    want = a * np.float32(float(np.float32(1) / np.float32(y)))
    np.testing.assert_array_equal(run(k, a), want)


@pytest.mark.parametrize("y", [True, np.bool_(False), "2", None])
def test_tile_divided_by_a_non_number_raises(y):
    def k(x):
        nl.divide(nl.load(x), y)
    assert "nl.divide" in _error(lambda: run(k, np.ones((8, 8), np.float32)))
