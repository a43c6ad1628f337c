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
