"""The contest sweep as tests (benchmarks/okk_contest_sweep.py): every public contest kernel on every contest
case of its kind, npusim against Sophgo's C-model running the same .c (identical output bytes, identical
per-section cycles) and against float64 numpy (the contest tolerance). Slow (minutes to hours on a shared
machine): runs only with the C-model libraries AND ``NPUSIM_SWEEP=1``; the default suite skips it.

Conv2d case 12 (IC 1024, 9216 products per output) misses the 1e-4 tolerance for some entrants on npusim
and on the C-model alike (fp32 drift): recorded as an expected tolerance miss, not a failure."""
import os
import sys

import pytest

from npusim.okk.c import CompileError, find_compiler
from npusim.okk.oracle.fetch import available

if os.environ.get("NPUSIM_SWEEP") != "1":
    pytest.skip("the contest sweep runs only with NPUSIM_SWEEP=1 (slow)", allow_module_level=True)
try:
    find_compiler()
except CompileError as e:          # pragma: no cover
    pytest.skip(f"no C compiler: {e}", allow_module_level=True)
if not available():
    pytest.skip("C-model libraries absent (run: python -m npusim.okk.oracle.fetch)", allow_module_level=True)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, os.path.join(ROOT, "benchmarks"))
import okk_contest_sweep as sweep  # noqa: E402

pytestmark = pytest.mark.slow
KNOWN_TOLERANCE_MISSES = {("conv2d", 12)}      # shared with the C-model (docs/okk.md, top solutions)
# Open differences (docs/okk.md): cycles with left_cols_per_channel > 128.
KNOWN_OPEN = {("1760430", "matmul", 2), ("1760430", "matmul", 5)}


@pytest.mark.parametrize("who,kind,case", sweep.jobs(), ids=lambda v: str(v))
def test_contest_sweep(who, kind, case):
    row = sweep.run_job(who, kind, case, cmodel_timeout=600)
    if row["status"] == "skipped":
        pytest.skip(row["note"])
    if row["status"] == "both error":
        return                                  # both refuse the case (e.g. a pool window over the limits)
    if (who, kind, case) in KNOWN_OPEN:
        pytest.xfail(f"open difference (docs/okk.md): {row}")
    assert row["status"] == "ok", row
    # every tolerance miss so far is the C-model's too (bit-identical outputs): fp32 drift over long
    # sums (matmul 5, K = 9216; conv2d 11-13) and entrants whose kernel skips a case (output never written)
    if (kind, case) not in KNOWN_TOLERANCE_MISSES:
        assert row["within_tol"] or row["max_rel_err_cmodel"] >= row["tol"], row
