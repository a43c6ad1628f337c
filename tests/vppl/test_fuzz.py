"""Any call of any operator with any arguments either works or raises an npusim error naming the
rule: never a numpy traceback, never a write outside the target (hypothesis)."""
import numpy as np
from hypothesis import HealthCheck, given, settings, strategies as st

from npusim import NpuSimError, vppl
from npusim.vppl.semantics import ROWS

TYPES = ["i8", "u8", "i16", "u16", "i32", "u32"]


@st.composite
def an_argument(draw):
    kind = draw(st.sampled_from(["vec", "int", "integer", "big", "none"]))
    if kind == "vec":
        return vppl.Vector(draw(st.sampled_from(TYPES)), draw(st.integers(1, 80)), draw(st.integers(-200, 200)),
                           allocated=draw(st.booleans()))
    if kind == "int":
        return draw(st.integers(-300, 300))
    if kind == "integer":
        return vppl.Integer(draw(st.integers(-2**31, 2**31 - 1)))
    if kind == "big":
        return draw(st.integers(-2**70, 2**70))
    return None


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(ROWS), st.sampled_from(TYPES), st.integers(1, 80), st.booleans(),
       st.lists(an_argument(), min_size=0, max_size=4))
def test_any_call_works_or_names_a_rule(row, ttype, tlen, alloc, args):
    with vppl.mode("extended"):
        t = vppl.Vector(ttype, tlen, 7, allocated=alloc)
        guard = np.frombuffer(t.memory.data, np.uint8)     # the target's whole memory
        try:
            getattr(t, row.pyname)(*args)
        except NpuSimError:
            pass
        assert guard.size == t.nbytes                     # nothing grew or moved
