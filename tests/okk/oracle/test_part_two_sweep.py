"""Differential sweep of every part-two element-wise function of issue 4 items 1-3 (fp32 binary and
_C / C_ forms, relu, bias / scale / scale_bias, the select family with every operand-kind combination,
32bit_cpy / set_C, fp32_to_int32, lookup_int32_to_fp32, int8_to_fp32, 4N_int8_to_fp32, bitwise and
shifts with their _C / C_ forms, the fixed-point packed functions): npusim vs Sophgo's C-model, bit for
bit (every destination span plus a margin, on every touched NPU) and cycle for cycle.

Cases per function: ``NPUSIM_ORACLE_CASES`` (default ``DEFAULT_CASES``), batched ``BATCH`` calls per
program; generator in ``npusim.okk.oracle.part_two_sweep``, seeded from the function's name.
"""
import os

import pytest

from npusim.okk.oracle.fetch import available

if not available():
    pytest.skip("C-model libraries absent (run: python -m npusim.okk.oracle.fetch)", allow_module_level=True)

from npusim.okk.oracle.differential import check, run_batches  # noqa: E402
from npusim.okk.oracle.part_two_sweep import SPECS, Batches  # noqa: E402

DEFAULT_CASES = 60
BATCH = 250
CASES = int(os.environ.get("NPUSIM_ORACLE_CASES", DEFAULT_CASES))

# known mismatches: function -> reason (xfail strict, so a fix shows up as XPASS)
KNOWN: dict[str, str] = {}


def outcome(func):
    sizes = [BATCH] * (CASES // BATCH) + ([CASES % BATCH] if CASES % BATCH else [])
    return run_batches(Batches("sweep", func, tuple(sizes)), len(sizes))     # NPUSIM_ORACLE_EXECUTOR picks where


def _params():
    return [pytest.param(f, marks=[pytest.mark.xfail(strict=True, reason=KNOWN[f])] if f in KNOWN else [])
            for f in SPECS]


@pytest.mark.parametrize("func", _params())
def test_bit_and_cycle_exact(func):
    """Bytes and cycles in one test: under xdist two tests would each rebuild the cached outcome."""
    check(outcome(func), "dst", "cycles")
