"""The seed's (003) worked examples, through the Python surface, with the documented results."""
import numpy as np
import pytest

from npusim import ConstraintError, vppl

SEED_V0 = [55, 99, 33, 44, 55, 66, 77, 88, 99, 10, 11, 12, 13, 14, 15, 16,
           17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32]
SEED_COUNT = [55, 11, 33, 44, 11, 66, 77, 88, 99, 10, 11, 12, 13, 14, 15, 16,
              17, 18, 19, 20, 21, 11, 23, 24, 11, 26, 27, 28, 29, 11, 31, 32]


def test_zeros_and_clear_replace_99_with_0():
    for op in ("zeros", "clear"):
        v = vppl.Vector("i16", 32, 99)
        assert getattr(v, op)() is v
        assert np.asarray(v).tolist() == [0] * 32


def test_ones_W_replaces_99_with_1():
    v = vppl.Vector("i16", 32, 99)
    v.ones_W()
    assert np.asarray(v).tolist() == [1] * 32


def test_min_IW_caps_at_20():
    v0 = vppl.vList(SEED_V0, "i16")
    v2 = vppl.Vector("i16", 32, 20)
    v2.min_IW(v0)
    assert np.asarray(v2).tolist() == [min(20, x) for x in SEED_V0]
    assert np.asarray(v0).tolist() == SEED_V0            # the argument is untouched


def test_max_IW_floors_at_20():
    v0 = vppl.vList(SEED_V0, "i16")
    v1 = vppl.Vector("i16", 32, 20)
    v1.max_IW(v0)
    assert np.asarray(v1).tolist() == [max(20, x) for x in SEED_V0]


def test_r_max_IW_is_99_and_r_min_IW_is_10():
    v0 = vppl.vList(SEED_V0, "i16")
    tmp = vppl.alloc_vector("vTEMP", "__I16V", 16)
    res = vppl.Integer()
    tmp.r_max_IW(v0, res)
    assert res == 99
    tmp.r_min_IW(v0, res)
    assert int(res) == 10


def test_countIf_W_counts_six_elevens():
    v0 = vppl.vList(SEED_COUNT, "i16")
    tmp = vppl.alloc_vector("vTEMP", "__I16V", 16)
    res = vppl.Integer()
    tmp.countIf_W(v0, vppl.Integer(11), res)
    assert res.value == 6


def test_e_add_UW_adds_the_scalar_to_every_element():
    v1 = vppl.vList(SEED_V0, "i16")
    tmp = vppl.alloc_vector("vTEMP", "__I16V", 16)
    data = vppl.Integer(7)
    v1.e_add_UW(tmp, data)
    assert np.asarray(v1).tolist() == [x + 7 for x in SEED_V0]
    assert np.asarray(tmp).tolist() == [7] * 16           # documented side effect: the broadcast


def test_e_set_W_stores_2():
    v = vppl.Vector("i16", 32, 99)
    v.e_set_W(2)
    assert np.asarray(v).tolist() == [2] * 32


def test_reduction_target_must_come_from_alloc_vector():
    v0 = vppl.vList(SEED_V0, "i16")
    plain = vppl.Vector("i16", 16, 0)
    with pytest.raises(ConstraintError, match="alloc_vector"):
        plain.r_max_IW(v0, vppl.Integer())


def test_unsupported_suffix_is_an_error_in_gen2_and_runs_in_extended():
    a, b = vppl.Vector("u16", 4, 5), vppl.vList([1, 9, 3, 7], "u16")
    with pytest.raises(ConstraintError, match="GEN.2") as e:
        a.min_UW(b)
    assert e.value.api == "min$UW" and e.value.param == "suffix"
    with vppl.mode("extended"):
        a.min_UW(b)
    assert np.asarray(a).tolist() == [1, 5, 3, 5]


def test_call_by_vppl_name():
    v = vppl.Vector("i16", 4, 30)
    assert v.call("min$IW", vppl.vList([1, 50, 3, 40], "i16")) is v
    assert np.asarray(v).tolist() == [1, 30, 3, 30]
    with pytest.raises(ConstraintError, match="dot operator"):
        v.call("nope$IW")
