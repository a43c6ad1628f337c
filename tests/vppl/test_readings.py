"""The alternative readings of the seed's ambiguous points (vppl.Readings) and their defaults."""
import numpy as np
import pytest

from npusim import vppl


def test_defaults_are_the_documented_picks():
    r = vppl.Readings()
    assert (r.mul, r.compare, r.narrow, r.abs) == ("saturate", "strict", "saturate", "wrap")
    with pytest.raises(ValueError, match="mul"):
        vppl.Readings(mul="round")


def test_mul_q15_reading():
    a = [16384, -32768, 32767, -16384, 3]
    b = [16384, -32768, 32767, 16384, -1]
    want = [max(-32768, min(32767, (x * y) >> 15)) for x, y in zip(a, b)]
    with vppl.mode("gen2", readings=vppl.Readings(mul="q15")):
        t = vppl.vList(a, "i16").mul_IW(vppl.vList(b, "i16"))
        assert np.asarray(t).tolist() == want == [8192, 32767, 32766, -8192, -1]
        e = vppl.vList(a, "i16").e_mul_IW(vppl.Vector("i16", 1, 0), 16384)
        assert np.asarray(e).tolist() == [(x * 16384) >> 15 for x in a]
    assert np.asarray(vppl.vList(a, "i16").mul_IW(vppl.vList(b, "i16"))).tolist()[0] == 32767   # default


def test_inclusive_compare_reading():
    v = vppl.vList([1, 5, 5, 9], "u16")
    res = vppl.Integer()
    t = vppl.alloc_vector("t", "__U16V", 4)
    t.countOver_UW(v, 5, res)
    assert res == 1
    with vppl.mode("gen2", readings=vppl.Readings(compare="inclusive")):
        t = vppl.alloc_vector("t", "__U16V", 4)
        t.countOver_UW(v, 5, res)
        assert res == 3
        t.countUnder_UW(v, 5, res)
        assert res == 3


def test_narrow_wrap_and_abs_saturate_readings():
    with vppl.mode("gen2", readings=vppl.Readings(narrow="wrap", abs="saturate")):
        n = vppl.Vector("i8", 3, 0).convert_IW2IB(vppl.vList([300, -300, 5], "i16"))
        assert np.asarray(n).tolist() == [44, -44, 5]
        a = vppl.vList([-128, -5, 7], "i8").abs_B()
        assert np.asarray(a).tolist() == [127, 5, 7]
    assert np.asarray(vppl.vList([-128, -5, 7], "i8").abs_B()).tolist() == [-128, 5, 7]


def test_run_takes_readings():
    src = "a : i16[2] = 16384, b : i16[2] = 16384;\na = a.mul$IW(b);"
    assert vppl.run(src, readings=vppl.Readings(mul="q15"))["a"].tolist() == [8192, 8192]
    assert vppl.run(src)["a"].tolist() == [32767, 32767]


def test_cli_reading_switch(tmp_path, capsys):
    from npusim.cli import main
    p = tmp_path / "m.vppl"
    p.write_text("a : i16[2] = 16384, b : i16[2] = 16384;\na = a.mul$IW(b);\n")
    assert main(["vppl", "--reading", "mul=q15", str(p)]) == 0
    assert "8192" in capsys.readouterr().out
    assert main(["vppl", "--reading", "mul=round", str(p)]) == 2
    assert main(["vppl", "--reading", "nosuch=1", str(p)]) == 2


def test_filter_sub_centre_reading():
    arg = vppl.vList(range(32), "i16")
    with vppl.mode("gen2", readings=vppl.Readings(filter_sub="centre")):
        t = vppl.Vector("i16", 96, 1).filter_sub(arg, 2)
    got = np.asarray(t).tolist()
    assert got[:32] == [1] * 32 and got[32:64] == [1 + 2 * i for i in range(32)] and got[64:] == [1] * 32
