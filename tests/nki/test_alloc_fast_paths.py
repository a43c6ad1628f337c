"""The on-chip allocator's short paths (alloc.py) behave as the plain code they replace: next-fit by
bisection places blocks where a scan from the first block would, free by bisection removes what
list.remove would (and fails the same way), and a TileBlock frees its bytes as weakref.finalize would."""
import gc

import pytest
from hypothesis import given, settings, strategies as st

from npusim.core.allocator import Block
from npusim.nki.alloc import NextFitAllocator, TileBlock, hold


def _next_fit_by_scan(blocks, cursor, size, align, start, capacity):
    """The scan the bisection replaced: (offset, index) or None when it wraps around."""
    at = -(-cursor // align) * align
    index = 0
    for index, b in enumerate(blocks):
        if b.offset + b.size <= at:
            continue
        if at + size <= b.offset:
            break
        at = -(-(b.offset + b.size) // align) * align
    else:
        index = len(blocks)
    return (at, index) if at + size <= start + capacity else None


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.integers(1, 300), st.integers(0, 1000)), min_size=1, max_size=80),
       st.sampled_from([1, 4, 64]))
def test_next_fit_and_free_match_the_scans(ops, align):
    a = NextFitAllocator("t", 4096, align=align)
    live = []
    for is_alloc, size, pick in ops:
        if is_alloc or not live:
            expect = _next_fit_by_scan(list(a.blocks), a.cursor, size, align, a.start, a.capacity)
            try:
                b = a.alloc(size, f"b{len(live)}")
            except Exception:
                assert expect is None
                continue
            if expect is not None:
                assert (b.offset, a.blocks.index(b)) == expect
            live.append(b)
        else:
            b = live.pop(pick % len(live))
            after = list(a.blocks)
            after.remove(b)
            a.free(b)
            assert a.blocks == after
        assert a.peak_end == max((b.offset + b.size for b in a.blocks), default=a.start)


def test_free_of_a_block_not_there_fails_as_list_remove():
    a = NextFitAllocator("t", 1024)
    b = a.alloc(16, "x")
    a.free(b)
    with pytest.raises(ValueError):
        a.free(b)
    with pytest.raises(ValueError):
        a.free(Block(0, 8, "y"))


class _Tile:
    pass


def _held(a, tile, size, name):
    offset, index = a.reserve(size, name)
    return hold(tile, a, offset, size, name, index)


def test_tile_block_frees_as_finalize_would():
    a = NextFitAllocator("t", 1024)
    t = _Tile()
    rel = _held(a, t, 16, "x")
    assert rel.alive and a.blocks == [rel] and rel() is t
    rel.release()
    assert not rel.alive and a.blocks == []
    rel.release()                           # a second call does nothing
    t2 = _Tile()
    rel2 = _held(a, t2, 16, "y")
    del t2                                  # death frees the block
    assert not rel2.alive and a.blocks == []
    t3 = _Tile()
    t3.me = t3                              # a reference cycle: freed when the collector runs
    rel3 = _held(a, t3, 16, "z")
    del t3
    assert rel3.alive
    gc.collect()
    assert not rel3.alive and a.blocks == []


def test_tile_blocks_take_the_addresses_plain_blocks_would():
    a, b = NextFitAllocator("a", 300, align=4), NextFitAllocator("b", 300, align=4)
    tiles = [_Tile() for _ in range(6)]
    held = [_held(a, t, 40 + i, f"t{i}") for i, t in enumerate(tiles)]
    plain = [b.alloc(40 + i, f"t{i}") for i in range(6)]
    assert [(x.offset, x.size, x.name) for x in a.blocks] == [(x.offset, x.size, x.name) for x in b.blocks]
    del tiles[1], tiles[2]                  # tiles 1 and 3 die
    b.free(plain[1])
    b.free(plain[3])
    assert [(x.offset, x.size) for x in a.blocks] == [(x.offset, x.size) for x in b.blocks]
    keep = [_Tile(), _Tile()]
    assert _held(a, keep[0], 30, "w").offset == b.alloc(30, "w").offset == 264       # next fit
    assert _held(a, keep[1], 30, "v").offset == b.alloc(30, "v").offset == 0x28      # wrapped: first fit
    assert [(x.offset, x.size, x.name) for x in a.blocks] == [(x.offset, x.size, x.name) for x in b.blocks]
    with pytest.raises(ValueError):         # freed already: not there
        a.free(held[1])


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.integers(1, 700), st.integers(0, 1000)), min_size=1, max_size=60))
def test_high_water_mark_and_blocks_as_the_dataclass_makes_them(ops):
    """``high`` is the largest block end ever handed out (what Run.peak reports); the blocks alloc builds
    through the slot descriptors equal, hash and refuse assignment as Block(...) does."""
    a = NextFitAllocator("t", 4096, align=4)
    live, high = [], 0
    for is_alloc, size, pick in ops:
        if is_alloc or not live:
            try:
                b = a.alloc(size, f"b{size}")
            except Exception:
                continue
            assert b == Block(b.offset, b.size, f"b{size}") and hash(b) == hash(Block(b.offset, b.size, f"b{size}"))
            high = max(high, b.offset + b.size)
            live.append(b)
        else:
            a.free(live.pop(pick % len(live)))
        assert a.high == high
    if live:
        with pytest.raises(Exception, match="cannot assign"):
            live[0].offset = 0


def test_hold_after_blocks_before_it_were_freed_keeps_the_list_sorted():
    # between reserve and hold the tile is made: a collection there may free blocks (tiles dying in
    # reference cycles) and move the reserved index
    for freed in ([0], [2], [0, 2], []):
        a = NextFitAllocator("t", 100, align=4)
        keep = [_Tile() for _ in range(3)]
        held = [_held(a, t, 32, f"k{i}") for i, t in enumerate(keep)]      # at 0, 32, 64
        held[1].release()
        offset, index = a.reserve(16, "new")        # wraps around: first fit, between the other two
        assert (offset, index) == (32, 1)
        for i in freed:
            held[i].release()
        new = _Tile()
        b = hold(new, a, offset, 16, "new", index)
        offsets = [x.offset for x in a.blocks]
        assert offsets == sorted(offsets) and any(x is b for x in a.blocks)
        assert len(a.blocks) == 3 - len(freed)
