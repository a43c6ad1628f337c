"""Scope bookkeeping through the tiles' allocator blocks (scope.py, alloc.TileBlock): a tile itself is
reached through its block, its views through Scope.views; both lose ``checked`` when the tile dies (end
of a strict iteration) or is evicted, so the cached path of an ISA op (which skips rules.tile for a
checked view) still raises, naming the variable."""
import numpy as np
import pytest

import npusim.nki as nki
import npusim.nki.isa as nisa
import npusim.nki.language as nl
from npusim.core.errors import ConstraintError
from npusim.nki import scope


def test_a_checked_view_of_a_strict_iterations_tile_raises_after_it():
    @nki.jit
    def k(a):
        run = nki.current()
        for i in scope.iterate(run, range(2), "nl.dynamic_range", strict=True):
            t_dyn = nl.load(a)
            half = t_dyn[:, 0:2]
            nisa.tensor_scalar(half, half, nl.add, 1.0)        # checked inside the iteration
        nisa.tensor_scalar(half, half, nl.add, 1.0)
    # (the message names the first local bound to the view or its tile: t_dyn)
    with pytest.raises(ConstraintError, match="Local variable 't_dyn' is referenced outside of its parent "
                                              "scope nl.dynamic_range iteration 1"):
        nki.simulate(k)(np.ones((128, 4), np.float32))


def test_strict_end_unchecks_tiles_and_views_and_frees_their_bytes():
    seen = {}

    @nki.jit
    def k(a):
        run = nki.current()
        for i in scope.iterate(run, range(1), "nl.dynamic_range", strict=True):
            t = nl.load(a)
            v = t[:, 1:3]
            nisa.tensor_scalar(t, t, nl.add, 1.0)
            nisa.tensor_scalar(v, v, nl.add, 1.0)
            seen["inside"] = (t.checked, v.checked, len(run.alloc[nl.sbuf].blocks))
        seen["after"] = (t.checked, v.checked, len(run.alloc[nl.sbuf].blocks))
    nki.simulate(k)(np.ones((128, 4), np.float32))
    assert seen["inside"] == (True, True, 1)
    assert seen["after"] == (False, False, 0)       # the bytes went at the end of the iteration


def test_eviction_unchecks_the_tile_and_its_views_only():
    seen = {}

    @nki.jit
    def k(a):
        run = nki.current()
        tiles, views = [], []
        for i in nl.affine_range(2):
            t = nl.ndarray((128, 25600), nl.float32, buffer=nl.sbuf)     # 100 KiB of 208 KiB per partition
            nisa.memset(t, 1.0)
            v = t[:, 0:4]
            nisa.tensor_scalar(v, v, nl.add, 1.0)
            tiles.append(t)
            views.append(v)
        seen["before"] = [(x.checked, y.checked) for x, y in zip(tiles, views)]
        big = nl.ndarray((128, 20000), nl.float32, buffer=nl.sbuf)       # evicts iteration 0's tile only
        seen["after"] = [(x.checked, y.checked) for x, y in zip(tiles, views)]
        seen["evicted"] = [type(x.scope).__name__ for x in tiles]
        seen["lapsed"] = len([b for b in run.lapsed[nl.sbuf] if b.alive])
        del big
    nki.simulate(k, target="trn2")(np.zeros((1, 1), np.float32))
    assert seen["before"] == [(True, True), (True, True)]
    assert seen["after"] == [(False, False), (True, True)]
    assert seen["evicted"] == ["Evicted", "Scope"]
    assert seen["lapsed"] == 1


def test_views_list_keeps_only_views():
    s = scope.Scope("x")

    class T:
        root = None
        __weakref__ = None
    tile = T()

    class V:
        root = tile
    views = [V() for _ in range(3)]
    s.add_view(tile)
    for v in views:
        s.add_view(v)
    assert [w() for w in s.views] == views
