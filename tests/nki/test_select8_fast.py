"""isa_three's max8 top-8 selection and nc_find_index8 / nc_match_replace8's match search without whole-row
sorts and running counts: the same values, bit for bit, as the plain formulas written here (a stable
sort of whole rows; a cumulative count of matches), for values with NaN, infinities, both zeros and ties."""
import numpy as np
from hypothesis import given, settings, strategies as st

from npusim.nki.isa_three import _kth_match, _top8

VALUES = [0.0, -0.0, 1.0, -1.0, 2.5, 3.0, -7.0, np.inf, -np.inf, np.nan, 1e-30]


@settings(max_examples=200, deadline=None)
@given(p=st.integers(1, 40), n=st.integers(8, 300), seed=st.integers(0, 10 ** 6), pool=st.integers(2, len(VALUES)))
def test_top8_is_the_stable_sort_head(p, n, seed, pool):
    rng = np.random.default_rng(seed)
    x = rng.choice(np.array(VALUES[:pool], np.float32), size=(p, n))
    if seed % 3 == 0:
        x = x + rng.integers(-3, 3, (p, n)).astype(np.float32)
    want = -np.sort(-x, axis=1, kind="stable")[:, :8]
    got = _top8(x)
    np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))


@settings(max_examples=200, deadline=None)
@given(p=st.integers(1, 6), n=st.integers(1, 100), seed=st.integers(0, 10 ** 6))
def test_kth_match_is_the_cumulative_count(p, n, seed):
    rng = np.random.default_rng(seed)
    match = rng.random((p, n)) < rng.random()
    rank = rng.integers(0, 4, p) * (rng.random(p) < 0.5)
    c = np.cumsum(match, axis=1)
    hit = match & (c == (rank[:, None] + 1))
    want = np.where(hit.any(axis=1), np.argmax(hit, axis=1), -1)
    np.testing.assert_array_equal(_kth_match(match, rank), want)
