"""A negative test for every documented limit, saturation at both ends, and property tests."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from npusim import ConstraintError, UninitializedReadError, UninitializedReadWarning, configure, vppl

I16 = st.integers(-32768, 32767)


@pytest.mark.parametrize("n", [-1, 256, 1000])
def test_shift_up_down_allow_0_to_255_bits(n):
    a, b, t = (vppl.Vector("i16", 32, 1) for _ in range(3))
    for op in (t.shift_up, t.shift_down):
        with pytest.raises(ConstraintError) as e:
            op(a, b, n)
        assert e.value.param == "amount" and "255" in e.value.rule


def test_shift_up_by_one_element_moves_elements_up_and_pulls_in_vector2s_top():
    a = vppl.vList(range(1, 33), "i16")
    b = vppl.vList(range(101, 133), "i16")
    t = vppl.Vector("i16", 32, 0)
    t.shift_up(a, b, 16)
    assert np.asarray(t).tolist() == [132] + list(range(1, 32))
    t.shift_down(a, b, 32)
    assert np.asarray(t).tolist() == list(range(3, 33)) + [101, 102]
    t.shift_up(a, b, 255)
    t.shift_down(a, b, 0)
    assert np.asarray(t).tolist() == list(range(1, 33))


def test_shift_vectors_have_the_targets_length():
    with pytest.raises(ConstraintError, match="as long"):
        vppl.Vector("i16", 32, 0).shift_up(vppl.Vector("i16", 16, 0), vppl.Vector("i16", 32, 0), 1)


def test_filter_sub_target_is_two_registers_longer():
    arg = vppl.vList(range(32), "i16")
    ok = vppl.Vector("i16", 32 + 64, 1)
    ok.filter_sub(arg, 3)
    assert np.asarray(ok)[:32].tolist() == [1 + 3 * i for i in range(32)]
    assert np.asarray(ok)[32:].tolist() == [1] * 64
    for n in (32, 32 + 32, 32 + 65):
        with pytest.raises(ConstraintError) as e:
            vppl.Vector("i16", n, 0).filter_sub(arg, 3)
        assert e.value.param == "target" and "two vector registers" in e.value.rule


def test_suffix_size_must_match_the_element_size():
    with pytest.raises(ConstraintError, match="16-bit elements"):
        vppl.Vector("u8", 32, 0).ones_W()
    with pytest.raises(ConstraintError, match="16-bit"):
        vppl.Vector("i16", 32, 0).min_IW(vppl.Vector("i32", 32, 0))


def test_signedness_may_differ_add_UW_on_signed_data_wraps():
    """The seed: signed numbers may be added with $UW when no saturation is wanted."""
    a = vppl.vList([-5, 32767, -32768], "i16")
    a.add_UW(vppl.vList([3, 1, -1], "i16"))
    assert np.asarray(a).tolist() == [-2, -32768, 32767]


def test_argument_vectors_have_the_targets_length():
    with pytest.raises(ConstraintError, match="target's length"):
        vppl.Vector("i16", 32, 0).sub_IW(vppl.Vector("i16", 16, 0))


def test_element_shift_amount_is_not_negative_and_large_amounts_give_zero():
    v = vppl.Vector("i16", 4, -1)
    with pytest.raises(ConstraintError):
        v.element_shift_left_W(-1)
    v.element_shift_right_W(15)
    assert np.asarray(v).tolist() == [1] * 4                 # logical, not arithmetic
    v.element_shift_left_W(16)
    assert np.asarray(v).tolist() == [0] * 4


def test_convert_checks_element_sizes_and_saturates_narrowing():
    b = vppl.vList([0, 200, 255, 7], "u8")
    w = vppl.Vector("i16", 4, 0)
    w.convert_UB2UW(b)
    assert np.asarray(w).tolist() == [0, 200, 255, 7]        # zero extension
    n = vppl.Vector("i8", 4, 0)
    n.convert_IW2IB(vppl.vList([-300, 300, -5, 127], "i16"))
    assert np.asarray(n).tolist() == [-128, 127, -5, 127]
    with pytest.raises(ConstraintError) as e:
        w.convert_UB2UW(vppl.Vector("i16", 4, 0))
    assert e.value.param == "vector"


def test_wrong_argument_kinds_and_counts():
    t = vppl.alloc_vector("t", "__I16V", 16)
    v = vppl.Vector("i16", 16, 0)
    with pytest.raises(ConstraintError, match="2 argument"):
        t.r_max_IW(v)
    with pytest.raises(ConstraintError, match="vector variable"):
        t.min_IW(3)
    with pytest.raises(ConstraintError, match="scalar"):
        t.e_set_W(v)
    with pytest.raises(ConstraintError, match="alloc_vector"):
        vppl.alloc_vector("x", "__F16V", 4)


def test_clobbered_work_vector_reads_as_poison_or_errors_in_strict_mode():
    t = vppl.alloc_vector("t", "__I16V", 16)
    t.r_max_IW(vppl.Vector("i16", 4, 1), vppl.Integer())
    d = vppl.Vector("i16", 16, 0)
    with pytest.warns(UninitializedReadWarning):
        d.min_IW(t)
    with configure(strict=True):
        with pytest.raises(UninitializedReadError):
            d.min_IW(t)
    fresh = vppl.alloc_vector("u", "__I16V", 16)
    with configure(uninitialized="error"):
        with pytest.raises(UninitializedReadError):
            fresh.add_UW(d)
        fresh.e_set_W(1)                                     # a full write makes it valid
        fresh.add_UW(d)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(I16, I16), min_size=1, max_size=40))
def test_IW_arithmetic_saturates_at_both_ends(pairs):
    a = [p[0] for p in pairs]
    b = [p[1] for p in pairs]
    for op, f in (("add_IW", lambda x, y: x + y), ("sub_IW", lambda x, y: x - y), ("mul_IW", lambda x, y: x * y)):
        with vppl.mode("extended"):
            t = getattr(vppl.vList(a, "i16"), op)(vppl.vList(b, "i16"))
        assert np.asarray(t).tolist() == [max(-32768, min(32767, f(x, y))) for x, y in pairs]


@settings(max_examples=40, deadline=None)
@given(st.lists(I16, min_size=1, max_size=64), st.integers(-2**31, 2**31 - 1))
def test_e_ops_broadcast_the_scalars_low_bits(a, s):
    s16 = ((s + 32768) & 0xFFFF) - 32768
    t = vppl.vList(a, "i16").e_sub_IW(vppl.Vector("i16", 4, 0), s)
    assert np.asarray(t).tolist() == [max(-32768, min(32767, x - s16)) for x in a]


@settings(max_examples=40, deadline=None)
@given(st.lists(I16, min_size=1, max_size=64), st.lists(I16, min_size=1, max_size=64))
def test_prod_IW_is_the_saturated_dot_product(a, b):
    n = min(len(a), len(b))
    res = vppl.Integer()
    vppl.alloc_vector("t", "__I16V", 16).prod_IW(vppl.vList(a[:n], "i16"), vppl.vList(b[:n], "i16"), res)
    exact = sum(x * y for x, y in zip(a[:n], b[:n]))
    assert res == max(-2**31, min(2**31 - 1, exact))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(0, 65535), min_size=1, max_size=64), st.integers(0, 65535))
def test_count_over_under_if_partition_the_vector(a, s):
    v = vppl.vList(a, "u16")
    t = vppl.alloc_vector("t", "__U16V", 16)
    o, u, e = vppl.Integer(), vppl.Integer(), vppl.Integer()
    t.countOver_UW(v, s, o)
    t.countUnder_UW(v, s, u)
    t.countIf_W(v, s, e)
    assert (o.value, u.value, e.value) == (sum(x > s for x in a), sum(x < s for x in a), sum(x == s for x in a))
    assert o.value + u.value + e.value == len(a)


def test_each_operator_places_one_event_with_its_cycles():
    m = vppl.reset()
    v = vppl.Vector("i16", 4096, 1)
    v.add_UW(v)
    v.mul_IW(v)
    ev = m.timeline.trace.events
    assert [e.name for e in ev] == ["add$UW", "mul$IW"]
    assert ev[0].cycles == 1 + 4096 * 2 // 64 and ev[1].cycles == 1 + 2 * 128
    assert ev[1].start_ns == ev[0].end_ns


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(-2**40, 2**40), min_size=1, max_size=50),
       st.sampled_from(["int8", "uint8", "int16", "uint16", "int32", "uint32"]), st.booleans())
def test_store_matches_core_cast(vals, to, saturate):
    """The fast saturating store gives exactly core.dtypes.cast's result."""
    from npusim.core.dtypes import cast
    from npusim.vppl.ops_common import store
    wide = np.array(vals, np.int64)
    dst = np.zeros(len(vals), to)
    want = cast(wide.copy(), to, saturate=saturate)
    store(dst, wide, saturate)
    assert dst.tolist() == want.tolist()


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(I16, I16), min_size=1, max_size=40), st.integers(0, 255))
def test_shift_up_down_are_funnel_shifts_of_the_whole_vector(pairs, n):
    """Against Python big integers: element 0 is the least significant end of the bit string."""
    a = [p[0] for p in pairs]
    b = [p[1] for p in pairs]
    va, vb = vppl.vList(a, "i16"), vppl.vList(b, "i16")
    nb = 2 * len(a)
    ia = int.from_bytes(np.array(a, np.int16).tobytes(), "little")
    ib = int.from_bytes(np.array(b, np.int16).tobytes(), "little")
    mask = (1 << (8 * nb)) - 1
    up = vppl.Vector("i16", len(a), 0).shift_up(va, vb, n)
    assert np.asarray(up).tobytes() == ((((ia << (8 * nb)) | ib) << n >> (8 * nb)) & mask).to_bytes(nb, "little")
    down = vppl.Vector("i16", len(a), 0).shift_down(va, vb, n)
    assert np.asarray(down).tobytes() == ((((ib << (8 * nb)) | ia) >> n) & mask).to_bytes(nb, "little")


@settings(max_examples=40, deadline=None)
@given(st.lists(I16, min_size=1, max_size=300))
def test_sum_r_max_r_min_IW_match_numpy(a):
    t = vppl.alloc_vector("t", "__I16V", 16)
    v = vppl.vList(a, "i16")
    s, hi, lo = vppl.Integer(), vppl.Integer(), vppl.Integer()
    t.sum_IW(v, s)
    t.r_max_IW(v, hi)
    t.r_min_IW(v, lo)
    arr = np.array(a, np.int64)
    assert (s.value, hi.value, lo.value) == (int(arr.sum()), int(arr.max()), int(arr.min()))
