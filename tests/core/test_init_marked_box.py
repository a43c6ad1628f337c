"""``Memory.marked``: the box that bounds the init bytes that may be 1, so a clear zeroes only inside it.

A tracked memory and an untracked twin (its raw ``init`` taken, so every clear zeroes its whole range, as
before the box existed) receive the same random marks and clears through every API that touches init
bytes; their init maps and generations stay equal at every step, and every 1 of the tracked map lies
inside its box.
"""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from npusim.core import Memory, TensorView
from npusim.core.memory import NOTHING_MARKED

LANES, LANE_BYTES = 4, 64


def _pair(laned: bool):
    shape = (LANE_BYTES, LANES) if laned else (LANES * LANE_BYTES, 1)
    tracked, plain = Memory("t", *shape), Memory("p", *shape)
    plain.init                  # taking the raw map ends the tracking
    assert tracked.marked is NOTHING_MARKED and plain.marked is None
    return tracked, plain


def _ones_inside_box(m: Memory) -> bool:
    lanes = m._init.reshape(m.lanes, m.lane_bytes)
    if m.marked is NOTHING_MARKED:
        return not lanes.any()
    l0, l1, b0, b1 = m.marked
    outside = lanes.copy()
    outside[l0:l1, b0:b1] = 0
    return not outside.any()


def _view(m: Memory, laned: bool, a: int, b: int, n: int, backwards: bool) -> TensorView:
    """A float32 view: laned, lanes [a % 4 ...) x n elements from byte 4 * b; else n elements from a."""
    if laned:
        lane, parts = a % LANES, 1 + (b % (LANES - a % LANES))
        n = min(n, (LANE_BYTES - 4 * (b % 16)) // 4)
        start = lane * LANE_BYTES + 4 * (b % 16)
        if backwards:
            return TensorView(m, start + 4 * (n - 1), (parts, n), (LANE_BYTES, -4), "float32")
        return TensorView(m, start, (parts, n), (LANE_BYTES, 4), "float32")
    start = 4 * (a % 60)
    n = min(n, (m.size - start) // 4)
    if backwards:
        return TensorView(m, start + 4 * (n - 1), (n,), (-4,), "float32")
    return TensorView(m, start, (n,), (4,), "float32")


_op = st.tuples(st.sampled_from(["write", "write_where", "mark", "write_bytes", "fill", "fill_unmarked", "forget",
                                 "forget_all", "forget_lanes"]),
                st.integers(0, 255), st.integers(0, 255), st.integers(1, 16), st.booleans())


@settings(max_examples=200, deadline=None)
@given(laned=st.booleans(), ops=st.lists(_op, min_size=1, max_size=12))
def test_a_tracked_memory_clears_exactly_what_an_untracked_one_clears(laned, ops):
    tracked, plain = _pair(laned)
    for kind, a, b, n, flag in ops:
        for m in (tracked, plain):
            if kind in ("write", "write_where", "mark"):
                v = _view(m, laned, a, b, n, flag)
                if kind == "write":
                    v.write(np.ones(v.shape, np.float32))
                elif kind == "write_where":
                    v.write(np.ones(v.shape, np.float32), where=(np.arange(v.size) % 2 == 0).reshape(v.shape))
                else:
                    v.mark_written()
            elif kind == "write_bytes":
                m.write_bytes(a, bytes(range(min(n, m.size - a))))
            elif kind in ("fill", "fill_unmarked"):
                m.fill(a, min(n * 3, m.size - a), 7, mark_written=kind == "fill")
            elif kind == "forget":
                m.forget(a, min(n * 5, m.size - a))
            elif kind == "forget_all":
                m.forget()
            else:
                l0 = a % m.lanes
                b0 = b % m.lane_bytes
                m.forget_lanes(l0, l0 + 1 + (n % (m.lanes - l0)), b0, min(m.lane_bytes, b0 + n * 4))
        assert np.array_equal(tracked._init, plain._init), kind
        assert tracked.generation == plain.generation
        assert _ones_inside_box(tracked), (kind, tracked.marked)
    assert plain.marked is None                 # once taken, never tracked again


def test_a_clear_of_an_unmarked_memory_writes_nothing():
    m = Memory("sbuf", 4096, lanes=128)
    m._init.flags.writeable = False             # any write to the init map would raise
    g = m.generation
    m.forget_lanes(0, 128, 0, 4096)             # NKI's end-of-launch clear
    m.forget(0, 4096)
    m.fill(0, 8, 3, mark_written=False)
    assert m.generation == g + 3                # cached "all written" flags still drop


def test_a_clear_zeroes_only_inside_the_marked_box_and_a_covering_clear_empties_it():
    m = Memory("sbuf", 64, lanes=8)
    TensorView(m, 2 * 64 + 8, (3, 2), (64, 4), "float32").mark_written()
    assert m.marked == (2, 5, 8, 16)
    m._init.reshape(8, 64)[:, 32:] = 1           # (by hand, unseen: a clear outside the box skips it)
    m.forget_lanes(0, 8, 24, 64)
    assert m._init.reshape(8, 64)[:, 32:].all()
    m.forget_lanes(0, 8, 0, 20)                  # covers the box: nothing may be 1 any more
    assert m.marked is NOTHING_MARKED
    assert not m._init.reshape(8, 64)[:, :32].any()


def test_taking_the_raw_map_ends_tracking_for_good():
    m = Memory("sbuf", 64, lanes=4)
    raw = m.init
    assert m.marked is None
    m.forget()
    raw[:] = 1                                    # a holder of the raw map writes after the clear
    m.forget_lanes(0, 4, 0, 64)
    assert not m._init.any()
    v = TensorView(m, 0, (4, 2), (64, 4), "float32")
    v.init_box()
    assert m.marked is None


@pytest.mark.parametrize("laned", [True, False])
def test_flat_box_holds_the_range(laned):
    m = Memory("m", 64, lanes=4) if laned else Memory("m", 256)
    for off in range(0, 256, 7):
        for nbytes in (1, 5, 64, 100):
            if off + nbytes > 256:
                continue
            l0, l1, b0, b1 = m.flat_box(off, nbytes)
            lanes = np.zeros((m.lanes, m.lane_bytes), bool)
            lanes.reshape(-1)[off:off + nbytes] = True
            inside = np.zeros_like(lanes)
            inside[l0:l1, b0:b1] = True
            assert not (lanes & ~inside).any()
    assert m.flat_box(3, 0) is NOTHING_MARKED
