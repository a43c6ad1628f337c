"""The per-instruction fast paths (execute.runner, the fast argument acceptance, one-pass vector
initialisation) behave exactly as the general paths: same values, same errors, same trace."""
import os

import numpy as np
import pytest

from npusim import vppl
from npusim.core.errors import ConstraintError


def test_method_events_name_the_callers_file_and_line():
    m = vppl.reset()
    a, b = vppl.Vector("i16", 32, 1), vppl.Vector("i16", 32, 2)
    a.min_IW(b); line = __import__("inspect").currentframe().f_lineno    # noqa: E702
    ev = m.timeline.trace.events[-1]
    assert ev.name == "min$IW" and ev.source == f"{os.path.basename(__file__)}:{line}"


def test_text_events_name_the_vppl_line():
    m = vppl.Machine()
    from npusim.vppl.interpreter import Program
    Program("a : i16[32] = 1,\nb : i16[32] = 2;\na = a.max$IW(b);\n", "t.vppl").run(m)
    assert [e.source for e in m.timeline.trace.events if e.name == "max$IW"] == ["t.vppl:3"]


def test_integer_variable_and_python_int_scalars_give_the_same_result():
    vppl.reset()
    w = vppl.alloc_vector("w", "__I16V", 32)
    x, y = vppl.Vector("i16", 32, 30000), vppl.Vector("i16", 32, 30000)
    x.e_add_UW(w, 40000)                       # fast path: a Python int
    y.e_add_UW(w, vppl.Integer(40000))         # general path: an integer variable
    assert np.array_equal(np.asarray(x), np.asarray(y))
    assert int(np.asarray(x)[0]) == np.int16(np.uint16((30000 + 40000) % 65536))


@pytest.mark.parametrize("bad", [2 ** 32, -(2 ** 31) - 1, True, 1.5])
def test_out_of_range_or_non_integer_scalars_still_raise(bad):
    vppl.reset()
    w = vppl.alloc_vector("w", "__I16V", 32)
    with pytest.raises(ConstraintError) as e:
        vppl.Vector("i16", 32, 1).e_add_UW(w, bad)
    assert e.value.param == "scalar"


def test_vector_arguments_are_checked_on_the_fast_path_too():
    vppl.reset()
    a = vppl.Vector("i16", 32, 1)
    with pytest.raises(ConstraintError) as e:
        a.min_IW(np.ones(32, np.int16))
    assert e.value.param == "vector"
    with pytest.raises(ConstraintError):
        a.min_IW(a, a)


def test_array_initialiser_keeps_the_low_bits_and_marks_the_vector_written():
    v = vppl.Vector("i16", 4, np.array([70000, -1, 32768, 2 ** 40 + 5], np.int64))
    assert np.asarray(v).tolist() == [4464, -1, -32768, 5]
    assert v.valid and v.memory.init.all()
    u = vppl.Vector("u8", 3, np.array([True, False, True]))
    assert np.asarray(u).tolist() == [1, 0, 1]
