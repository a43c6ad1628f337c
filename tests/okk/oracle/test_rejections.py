"""Invalid calls: where the C-model aborts (exit(-1) on an assertion), npusim raises ConstraintError.

Where a documented remark forbids a call that the C-model runs anyway, npusim still raises: the
seed's rule is the contract. The second table pins those cases, so a change on either side shows.
"""

import pytest

from npusim.okk.oracle.fetch import available

if not available():
    pytest.skip("C-model libraries absent (run: python -m npusim.okk.oracle.fetch)", allow_module_level=True)

from npusim.core.errors import ConstraintError  # noqa: E402
from npusim.okk.oracle import npusim_runner  # noqa: E402
from npusim.okk.oracle.cmodel import GLOBAL_START as G  # noqa: E402
from npusim.okk.oracle.differential import shared_oracle  # noqa: E402

SH = (1, 64, 1, 32)
WIDE = (1, 64, 1, 64)

# name: (program body, a fragment of the C-model's assertion message)
BOTH_REJECT = {
    "exp src not 128-aligned": ([("okk_bdc_exp", (0x8000, 4, 0x10000, SH))], "A_addr %"),
    "exp dst not 128-aligned": ([("okk_bdc_exp", (0x8004, 0, 0x10000, SH))], "Y_addr %"),
    "reciprocal dst not 4-aligned": ([("okk_bdc_reciprocal", (0x8002, 0, SH, None, None))], "% 4 == 0"),
    "S2L dst_stride->w = 2": ([("okk_gdma_32bit_cpy_S2L", (0, G, SH, (64, 32, 32, 2), None))], "CHECK_TENSOR_PARAM"),
    "S2L past the end of local memory": ([("okk_gdma_32bit_cpy_S2L", (0x7FF80, G, WIDE, None, None))], "mem_size"),
    "nested okk_parallel_start": ([("okk_parallel_start", ()), ("okk_parallel_start", ())], "in_parallel_state"),
    "okk_parallel_end without start": ([("okk_parallel_end", ())], "in_parallel_state"),
    "okk_poll inside a parallel region": ([("okk_parallel_start", ()), ("okk_poll", ())], "in_parallel_state"),
}

# Documented remarks the C-model does not enforce (it runs these calls); npusim raises.
ONLY_NPUSIM_REJECTS = {
    "shape->n = 0": [("okk_bdc_rsqrt", (0x8000, 0, (0, 64, 1, 32)))],
    "shape->c = 4096": [("okk_bdc_rsqrt", (0x8000, 0, (1, 4096, 1, 1)))],
    "shape->h = 65536": [("okk_bdc_rsqrt", (0x8000, 0, (1, 1, 65536, 1)))],
    "different start NPUs": [("okk_bdc_rsqrt", (0x80000, 0, SH))],
    "num_series = 0": [("okk_bdc_taylor_exp", (0x8000, 0, SH, 0))],
    "num_series = 65": [("okk_bdc_taylor_exp", (0x8000, 0, SH, 65))],
    "work == dst": [("okk_bdc_exp", (0x8000, 0, 0x8000, SH))],
    "work == src": [("okk_bdc_exp", (0x8000, 0, 0, SH))],
    "S2L src_stride->w = 2": [("okk_gdma_32bit_cpy_S2L", (0, G, SH, None, (64, 32, 32, 2)))],
    "BDC past the end of local memory": [("okk_bdc_rsqrt", (0x7FF80, 0, WIDE))],
}


def _steps(body):
    return [("call", "okk_initialize", ())] + [("call", n, a) for n, a in body]


def _npusim_raises(steps):
    with pytest.raises(ConstraintError):
        npusim_runner.run(steps)


@pytest.mark.parametrize("name", list(BOTH_REJECT))
def test_cmodel_aborts_and_npusim_raises(name):
    body, message = BOTH_REJECT[name]
    steps = _steps(body)
    ref = shared_oracle().run(steps)
    assert ref.error is not None and message in ref.error
    _npusim_raises(steps)


@pytest.mark.parametrize("name", list(ONLY_NPUSIM_REJECTS))
def test_documented_rule_the_cmodel_does_not_check(name):
    steps = _steps(ONLY_NPUSIM_REJECTS[name])
    ref = shared_oracle().run(steps)
    assert ref.error is None
    _npusim_raises(steps)
