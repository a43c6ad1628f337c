"""The DMA engines' interval model (nki/dma.py): ``earliest`` equals the plain fixed point of first fits
written here (bisect over each engine's intervals, repeated until no engine moves the start), whatever
the reservations (in order, out of order, overlapping, past the KEEP limit)."""
import bisect

from hypothesis import given, settings, strategies as st

from npusim.nki.dma import DmaEngines

N = 4


def _fit(eng: DmaEngines, g: int, s: float, d: float) -> float:
    starts, ends = eng.starts[g], eng.ends[g]
    i = bisect.bisect_right(ends, s)
    while i < len(starts) and starts[i] < s + d:
        s = ends[i]
        i += 1
    return s


def _earliest_by_fixed_point(eng: DmaEngines, groups, t: float, d: float) -> float:
    s = max([t] + [eng.floor[g] for g in groups])
    while True:
        s2 = s
        for g in groups:
            s2 = _fit(eng, g, s2, d)
        if s2 == s:
            return s
        s = s2


groups = st.lists(st.integers(0, N - 1), min_size=1, max_size=N, unique=True).map(sorted)
times = st.floats(0, 5000, allow_nan=False)
op = st.tuples(groups, times, st.floats(0.5, 300, allow_nan=False), st.booleans())


@settings(max_examples=80, deadline=None)
@given(st.lists(op, min_size=1, max_size=120), st.integers(2, 300))
def test_earliest_equals_the_fixed_point_of_first_fits(ops, keep):
    eng = DmaEngines(N)
    eng.KEEP = keep
    for gs, t, d, fitted in ops:
        want = _earliest_by_fixed_point(eng, gs, t, d)
        assert eng.earliest(gs, t, d) == want
        # the runtime reserves the fitted start, or a later one when its queue starts later (may overlap)
        eng.reserve(gs, want if fitted else t, d)


def test_a_gap_before_a_later_reservation_is_filled():
    eng = DmaEngines(2)
    eng.reserve([0, 1], 100.0, 50.0)
    assert eng.earliest([0, 1], 0.0, 40.0) == 0.0        # fits before [100, 150)
    assert eng.earliest([0, 1], 70.0, 40.0) == 150.0     # would overlap: after it
    assert eng.earliest([1], 150.0, 10.0) == 150.0
