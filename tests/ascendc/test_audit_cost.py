"""Audit finding 7: a vector instruction costs max(L, s * repeats) cycles (issue 7), L = 3."""
import numpy as np
import pytest

from npusim import ascendc as asc
from npusim.ascendc import cost


@pytest.mark.parametrize("repeats,want", [(1, 3), (2, 4), (4, 8), (16, 32)])
def test_cycles_follow_issue_formula(core, repeats, want):
    a = core.t(asc.half, 128 * repeats, 0).load(np.ones(128 * repeats))
    b = core.t(asc.half, 128 * repeats, 4096 + 256).load(np.ones(128 * repeats))   # bank groups 8-15
    d = core.t(asc.int8_t, 128 * repeats, 16384)
    asc.AddReluCast(d, a, b, 128, repeats, asc.BinaryRepeatParams(1, 1, 1, 4, 8, 8))
    ev = [e for e in core.context.timeline.trace.events if e.name == "AddReluCast"][-1]
    assert ev.cycles == want == max(3, 2 * repeats)


@pytest.mark.parametrize("kind,dtype,r,want", [("one", "", 1, 3), ("one", "", 7, 7), ("two", "", 1, 3),
                                               ("div", "float32", 3, 12), ("div", "float16", 2, 12),
                                               ("reduce_sum", "float16", 2, 14), ("reduce_sum", "float32", 2, 6),
                                               ("reduce_maxmin", "float32", 3, 21), ("sqrt", "float16", 2, 8)])
def test_every_family_is_its_fit_rounded_to_the_nearest_cycle(kind, dtype, r, want):
    assert cost.vector_cycles(kind, r, dtype) == want
