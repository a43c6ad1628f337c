"""runtime.Run._place (the Python path: each run here turns native_tile's C path off) builds a tile in one frame (the hot path of every on-chip allocation): it must hold
exactly what the reference constructors give, ``TensorView.placed`` + ``NkiTensor.placed`` + ``alloc.hold``,
slot by slot, so a slot added to either class cannot be forgotten there."""
import numpy as np
import pytest

import npusim.nki.language as nl
from npusim.core.view import TensorView
from npusim.nki import alloc as _alloc
from npusim.nki.runtime import SBUF, PSUM, run_context
from npusim.nki.tensor import NkiTensor


def _slots(cls):
    return [s for c in cls.__mro__ for s in getattr(c, "__slots__", ()) if s != "__weakref__"]


def _value(x):
    """A slot's value as something ``==`` compares: numpy arrays by geometry and first byte."""
    if isinstance(x, np.ndarray):
        return ("array", x.shape, x.strides, x.dtype.str, x.__array_interface__["data"][0], x.base is not None)
    return x


def _reference(run, t, dtype):
    """The tile the reference constructors make at ``t``'s place, from the same plan."""
    plan = (run._sbuf_plans if t.buffer is SBUF else run._psum_plans)[(t.shape, dtype)]
    v = t.tv
    array = None
    if plan.rows is not None and v.offset % plan.strides[1] == 0:
        c = v.offset // plan.strides[1]
        array = plan.rows[:, c:c + plan.free_size]
    view = TensorView.placed(plan.mem, v.offset, plan.shape, plan.strides, plan.dt, 0, plan.shape[0], v.offset,
                             v.offset + plan.free_bytes, array)
    ref = NkiTensor.placed(view, t.buffer, t.name, run, plan.free_size, plan.nbytes, plan.sig)
    ref.scope = t.scope
    return ref


def _same(a, b, cls):
    for s in _slots(cls):
        x, y = getattr(a, s, "<unset>"), getattr(b, s, "<unset>")
        if s == "tv":
            _same(x, y, TensorView)
        else:
            assert _value(x) == _value(y), (cls.__name__, s, x, y)


@pytest.mark.parametrize("shape,dtype,buffer", [((128, 16), np.float32, nl.sbuf), ((4, 3, 5), np.float16, nl.sbuf),
                                                 ((128, 512), np.float32, nl.psum), ((7, 2), np.int8, nl.sbuf),
                                                 ((2, 3), np.float32, nl.psum)])
def test_placed_tile_matches_the_reference_constructors(shape, dtype, buffer):
    with run_context("trn2") as run:
        run._native_allocate = None
        keep = []
        for i in nl.affine_range(3):            # in a loop scope too: the tile joins its scope's blocks
            for name in ("", "named"):
                t = nl.ndarray(shape, dtype=dtype, buffer=buffer, name=name)
                keep.append(t)
                assert t.sig is not None or len(keep) == 1      # the plan holds the sig after the first
                _same(t, _reference(run, t, dtype), NkiTensor)
                block = run.scopes[-1].tiles[-1]
                assert block() is t and block.alive
                assert (block.offset, block.size, block.name) == (
                    t.tv.offset, t.tv.hi - t.tv.lo, name or f"{'sbuf' if buffer is nl.sbuf else 'psum'}[{shape}]")
                assert any(b is block for b in run.alloc[t.buffer].blocks)
        offsets = [b.offset for b in run.alloc[keep[0].buffer].blocks]
        assert offsets == sorted(offsets)


def test_place_keeps_blocks_sorted_when_a_block_is_freed_between_reserve_and_insert():
    """Making the tile may run the collector, which frees tiles dying in cycles: a block before the
    reserved index moves it (alloc.insert's case), also when the index then equals the list's length."""
    for free_first in (True, False):
        with run_context("trn2") as run:
            run._native_allocate = None
            a = run.alloc[SBUF]
            tiles = [nl.ndarray((128, 16), dtype=np.float32) for _ in range(4)]     # at 0, 64, 128, 192
            hole = tiles[1].tv.offset
            tiles[1] = tiles[3] = None          # blocks at 0 and 128: a hole at 64
            assert [b.offset for b in a.blocks] == [0, 128]

            def reserve_then_free(*args, **kw):
                if free_first:
                    tiles[0] = None             # what a collection during the tile's making would do
                return hole, 1                  # the hole, before the block at 128 (as first fit gives it)

            a.reserve = reserve_then_free
            try:
                t = nl.ndarray((128, 16), dtype=np.float32)
            finally:
                del a.reserve
            offsets = [b.offset for b in a.blocks]
            assert offsets == ([hole, 128] if free_first else [0, hole, 128])
            assert a.blocks[-2]() is t


def test_a_dead_placed_tile_frees_its_block():
    with run_context("trn2") as run:
        a = run.alloc[PSUM]
        t = nl.ndarray((128, 512), dtype=np.float32, buffer=nl.psum)
        block = a.blocks[-1]
        assert isinstance(block, _alloc.TileBlock) and block() is t
        del t
        assert not block.alive and a.blocks == []
