"""Init tracking on byte boxes: the memory's generation, the view's "known fully written" flag, and the
one-min check agreeing with a per-byte reference on arbitrary strided views."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from npusim import configure
from npusim.core import Memory, OutOfBoundsError, TensorView
from npusim.core.errors import UninitializedReadError
from npusim.core.view import byte_box, word_box


def _element_bytes(v: TensorView) -> np.ndarray:
    """Every byte offset the view touches, computed from shape and strides in plain index arithmetic."""
    idx = np.indices(v.shape).reshape(len(v.shape), -1).T if v.shape else np.zeros((1, 0), int)
    starts = v.offset + idx @ np.array(v.strides, dtype=np.int64).reshape(-1)
    return (starts[:, None] + np.arange(v.dtype.itemsize)).ravel()


def test_generation_moves_on_forget_and_unmarked_fill_only():
    m = Memory("m", 256)
    g = m.generation
    m.write_bytes(0, b"abcd")
    m.fill(8, 8, 7)
    assert m.generation == g                    # 0 -> 1 only: nothing to invalidate
    m.fill(8, 8, 0, mark_written=False)
    assert m.generation == g + 1
    m.forget(0, 4)
    assert m.generation == g + 2
    m.forget()
    assert m.generation == g + 3


def test_forget_lanes_clears_a_box_and_moves_the_generation():
    m = Memory("lm", 16, lanes=4)
    m.init[:] = 1
    g = m.generation
    m.forget_lanes(1, 3, 4, 10)
    lanes = m.init.reshape(4, 16)
    assert m.generation == g + 1
    assert not lanes[1:3, 4:10].any()
    assert lanes[0].all() and lanes[3].all() and lanes[1:3, :4].all() and lanes[1:3, 10:].all()
    with pytest.raises(OutOfBoundsError):
        m.forget_lanes(0, 5, 0, 1)
    with pytest.raises(OutOfBoundsError):
        m.forget_lanes(0, 1, 0, 17)


@pytest.mark.parametrize("clear", ["forget", "fill_unmarked", "forget_lanes"])
def test_known_written_flag_is_dropped_when_init_bytes_are_cleared(clear):
    m = Memory("m", 64, lanes=2)
    v = TensorView(m, 0, (2, 4), (64, 4), "float32")
    v.write(np.arange(8, dtype=np.float32).reshape(2, 4))
    assert v.is_fully_written() and v._written_gen == m.generation
    if clear == "forget":
        m.forget(64 + 4, 1)                      # one byte of element [1, 1]
    elif clear == "fill_unmarked":
        m.fill(64 + 4, 1, 0, mark_written=False)
    else:
        m.forget_lanes(1, 2, 4, 5)
    assert not v.is_fully_written()
    with configure(uninitialized="error"), pytest.raises(UninitializedReadError):
        v.read("test")
    mask = v.uninitialized_mask()
    assert mask.tolist() == [[False] * 4, [False, True, False, False]]


def test_partial_writes_are_not_taken_for_whole_ones():
    m = Memory("m", 64)
    v = TensorView(m, 0, (4, 2), (16, 4), "float32")            # gaps between rows
    v.write(np.ones((4, 2), np.float32), where=np.array([[1, 1], [1, 1], [1, 0], [1, 1]], bool))
    assert not v.is_fully_written() and v._written_gen is None
    row = TensorView(m, 32, (2,), None, "float32")
    row.write(np.zeros(2, np.float32))                          # completes row 2 through another view
    assert v.is_fully_written()
    m.write_bytes(0, b"\0")                                     # 0 -> 1 writes keep the flag
    assert v._written_gen == m.generation


def test_whole_mark_on_a_known_written_view_does_not_touch_the_init_map():
    m = Memory("m", 32)
    v = TensorView(m, 0, (8,), None, "float32")
    v.mark_written()
    m.init[4] = 0          # a hand-made clear that (wrongly) bypasses forget: proves no second fill
    v.mark_written()
    assert m.init[4] == 0
    m.forget(0, 0)         # any forget moves the generation, so the next mark fills again
    v.mark_written()
    assert m.init[4] == 1


def test_byte_box_merges_contiguous_axes_and_drops_size_one():
    assert byte_box((8, 64, 64), (16384, 256, 4), 4) == ((8 * 64 * 64 * 4,), (1,))
    assert byte_box((2, 1, 3), (100, 7, 4), 4) == ((2, 12), (100, 1))
    assert byte_box((3,), (-8, ), 4) == ((3, 4), (-8, 1))
    assert byte_box((5, 2), (0, 4), 4) == ((8,), (1,))        # a broadcast axis revisits the same bytes
    assert byte_box((300, 64, 80), (128, 524288, 0), 4) == ((300, 64, 4), (128, 524288, 1))
    assert byte_box((3, 0), (0, 4), 4) == ((3, 0, 4), (0, 4, 1))   # empty stays empty


def test_word_box_reads_the_contiguous_run_as_the_widest_words():
    assert word_box((300, 64, 4), (128, 524288, 1)) == ((300, 64), (128, 524288), 4)
    assert word_box((16384,), (1,)) == ((2048,), (8,), 8)
    assert word_box((5, 6), (100, 1)) == ((5, 3), (100, 2), 2)
    assert word_box((5, 3), (100, 1)) == ((5, 3), (100, 1), 1)
    assert word_box((8,), (1,)) == ((), (), 8)


def test_one_unwritten_byte_inside_a_word_fails_the_check():
    m = Memory("m", 256)
    v = TensorView(m, 64, (2, 4), (32, 4), "float32")     # two runs of 16 bytes: two uint64 words each
    m.init[64:80] = 1
    m.init[96:112] = 1
    assert v.is_fully_written()
    for byte in (64, 71, 72, 79, 96, 111):
        m.forget(byte, 1)
        assert not v.is_fully_written() and v.uninitialized_mask().sum() == 1
        v.mark_written()
        assert m.init[64:80].all() and m.init[96:112].all() and not m.init[80:96].any()


@settings(max_examples=120, deadline=None)
@given(dims=st.lists(st.tuples(st.integers(0, 4), st.sampled_from([0, 0, 4, 8, -12, 20, 64])),
                     min_size=0, max_size=4), item=st.sampled_from([1, 2, 4]))
def test_mark_written_marks_exactly_the_touched_bytes_with_broadcast_axes(dims, item):
    """The byte box of a view with stride-0 axes covers each touched byte: marking a fresh memory sets
    exactly the element bytes (a per-byte reference), and the check passes then and fails after one of
    them is forgotten."""
    m = Memory("m", 8192)
    shape, strides = tuple(n for n, _ in dims), tuple(s for _, s in dims)
    v = TensorView(m, 4096, shape, strides, {1: "uint8", 2: "uint16", 4: "uint32"}[item])
    touched = _element_bytes(v) if v.size else np.zeros(0, np.int64)
    v.mark_written()
    want = np.zeros(8192, bool)
    want[touched] = True
    np.testing.assert_array_equal(m.init.astype(bool), want)
    assert v.is_fully_written()
    if v.size:
        m.forget(int(touched[-1]), 1)
        assert not v.is_fully_written()


dims = st.lists(st.tuples(st.integers(1, 4), st.integers(-24, 24)), min_size=0, max_size=3)


@settings(max_examples=120, deadline=None)
@given(dims=dims, item=st.sampled_from([1, 2, 4, 8]), seed=st.integers(0, 2 ** 32 - 1),
       p=st.sampled_from([0.0, 0.9, 0.99, 1.0]))
def test_fully_written_and_mask_match_a_per_byte_reference(dims, item, seed, p):
    m = Memory("m", 4096)
    shape = tuple(n for n, _ in dims)
    strides = tuple(s * item if s % 3 else s for _, s in dims)    # some strides not multiples of item
    v = TensorView(m, 2048, shape, strides,
                   {1: "uint8", 2: "uint16", 4: "uint32", 8: "int64"}[item])
    rng = np.random.default_rng(seed)
    m.init[:] = rng.random(4096) < p
    touched = _element_bytes(v)
    want_all = bool(m.init[touched].all())
    assert v.is_fully_written() == want_all
    per_elem = m.init[touched].reshape(-1, item).all(axis=1).reshape(shape)
    mask = v.uninitialized_mask()
    if want_all:
        assert mask is None
    else:
        np.testing.assert_array_equal(mask, ~per_elem)
    m.forget(0, 0)
    v.mark_written()
    assert m.init[touched].all() and v.is_fully_written()
    before = m.init.copy()
    v.mark_written()
    np.testing.assert_array_equal(m.init, before)


def test_uninitialized_mask_does_not_remember_a_passed_check():
    """A front end may ask before clearing a reused buffer's init bytes by hand (nki stale tiles)."""
    m = Memory("m", 64)
    v = TensorView(m, 0, (4,), None, "float32")
    m.init[:16] = 1
    assert v.uninitialized_mask() is None and v._written_gen is None
    m.init[:16] = 0                                  # the hand clear (no generation move)
    assert v.uninitialized_mask().all()
    v.mark_written()                                 # not skipped: nothing was remembered
    assert m.init[:16].all()
