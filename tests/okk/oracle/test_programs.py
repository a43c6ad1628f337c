"""Whole programs against the C-model: serial stretches and parallel regions mixing GDMA and BDC.

Compared: the bytes the program leaves behind, every instruction's start cycle and cost in Sophgo's
schedule (so the two-stream overlap inside okk_parallel_start/_end and the join at _end are checked),
and each section's API_END total_cycle against npusim's ``dev.total_cycles``.
"""

import functools

import pytest

from npusim.okk.oracle.fetch import available

if not available():
    pytest.skip("C-model libraries absent (run: python -m npusim.okk.oracle.fetch)", allow_module_level=True)

from npusim.okk.oracle import compare  # noqa: E402
from npusim.okk.oracle.differential import run_both, seeded  # noqa: E402
from npusim.okk.oracle.program_cases import build  # noqa: E402

PROGRAMS = 12


@functools.lru_cache(maxsize=None)
def _run(k):
    b = build(seeded("program", k))
    ref, got, err = run_both(b.steps)
    assert ref.error is None, ref.error[:500]
    assert err is None, err
    return b, ref, got



@pytest.mark.parametrize("k", range(PROGRAMS))
def test_program_schedule_and_total(k):
    b, ref, got = _run(k)
    assert any(s[1] == "okk_parallel_start" for s in b.steps if s[0] == "call")
    sa, sb = compare.schedule(ref), compare.schedule(got)
    assert len(sa) == len(sb) and len(sa) > 10
    for x, y in zip(sa, sb):
        assert x == y, f"first schedule difference: cmodel {x} vs npusim {y}"
    assert ref.totals == got.totals and ref.totals[0] > 0


@pytest.mark.parametrize("k", range(PROGRAMS))
def test_program_memory_bit_exact(k):
    b, ref, got = _run(k)
    for label, x, y in zip(b.labels, ref.reads, got.reads):
        assert x == y, f"{label}: {compare.first_byte_diff(x, y)}"
