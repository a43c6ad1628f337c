"""Every part-two operator with arbitrary arguments either works or raises a ConstraintError naming a
rule (never a numpy traceback), and never writes outside data memory."""
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from npusim import ConstraintError, vppl
from npusim.core.errors import UninitializedReadWarning
from npusim.vppl.semantics import INT, WORK
from npusim.vppl.semantics_part_two import PART_TWO, PTR

DM = 1 << 16        # a small data memory keeps the fuzz fast and makes address errors common
INTS = st.one_of(st.sampled_from([-1, 0, 1, 2, 3, 4, 5, 7, 8, 9, 10, 12, 15, 16, 24, 31, 32, 33, 62, 64, 124,
                                  128, 160, 161, 256, 257, 512, 513, 1024, 1025, 1 << 20]),
                 st.integers(-(1 << 31), (1 << 31) - 1))
ADDRS = st.one_of(st.sampled_from([0, 1, 2, 32, 64, 4096, DM - 64, DM - 2, DM, -32]), st.integers(0, DM))


def arg(kind):
    if kind == INT:
        return INTS
    if kind == WORK:
        return st.tuples(st.sampled_from([1, 8, 16, 256, 512]), st.booleans()).map(
            lambda t: vppl.alloc_vector("w", "__I16V", t[0]) if t[1] else vppl.Vector("i16", t[0]))
    assert kind == PTR
    return st.one_of(ADDRS.map(lambda a: vppl.PointerVariable(a, step=64)), ADDRS, st.just(vppl.PointerVariable(0, step=0)))


@pytest.mark.parametrize("row", PART_TWO, ids=[r.name for r in PART_TWO])
def test_any_call_works_or_names_a_rule(row):
    strategy = st.tuples(*[arg(k) for _, k in row.params])

    @settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
    @given(strategy, st.booleans())
    def check(args, allocated_target):
        m = vppl.Machine(dm_bytes=DM)
        m.dm.write_bytes(0, np.random.default_rng(0).integers(0, 256, DM, dtype=np.uint8))
        with vppl.using(m):
            m.set_image("A", np.zeros((8, 64), np.uint8))
            t = vppl.alloc_vector("t", "__I16V", 256) if allocated_target else vppl.Vector("i16", 256)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UninitializedReadWarning)
                try:
                    getattr(t, row.pyname)(*args)
                except ConstraintError as e:
                    assert e.api and e.param and e.rule
        assert m.dm.size == DM and m.dm.data.size == DM
    check()
