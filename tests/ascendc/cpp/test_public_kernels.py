"""Public cann-ops kernels, kept verbatim in tests/ascendc/public/, run unchanged through load_cpp and
match independent numpy references."""
import numpy as np
import pytest

import npusim

from npusim import ascendc as asc

from .conftest import needs_gxx
from .public_cases import BLOCKS, CASES, kernel_path

pytestmark = needs_gxx


@pytest.mark.parametrize("name", sorted(CASES))
def test_public_kernel_matches_numpy(name):
    c = CASES[name]
    op = c.op
    k = asc.load_cpp(kernel_path(op), defines=c.defines)
    ins = c.inputs(np.random.default_rng(0))
    out = np.full(c.n_out, np.nan, c.out_dtype)
    res = asc.launch(getattr(k, op), BLOCKS, *ins, out, tiling=c.tiling)      # default settings: sync="auto"
    want = c.reference(*ins)
    if c.rtol == 0 and c.atol == 0:
        np.testing.assert_array_equal(out, want)
    else:
        np.testing.assert_allclose(out, want, rtol=c.rtol, atol=c.atol)
    assert res.cycles > 0
    assert any(e.source.startswith(f"{op}.cpp:") for e in res.trace.events)


def test_kernels_named_like_libm_functions_run_themselves():
    """sqrt and exp are extern "C" kernels: they compile (no <cmath> in the headers) and a call binds to the
    kernel, not to the libm the process already loaded."""
    for op in ("sqrt", "exp"):
        k = asc.load_cpp(kernel_path(op), defines=CASES[op].defines)
        assert k.kernels[op].signature == "pppp"


def test_pre_layer_norm_relies_on_auto_sync():
    """pre_layer_norm.cpp reads a ReduceSum result with GetValue and no flag: a race under sync="manual",
    a V_S flag pair inserted by the default auto-sync (as the Bisheng compiler does)."""
    c = CASES["pre_layer_norm"]
    k = asc.load_cpp(kernel_path(c.op), defines=c.defines)
    ins = c.inputs(np.random.default_rng(0))
    out = np.zeros(c.n_out, c.out_dtype)
    with pytest.raises(npusim.core.errors.RaceError, match=r"pre_layer_norm\.cpp:\d+"):
        asc.launch(k.pre_layer_norm, BLOCKS, *ins, out, tiling=c.tiling, sync="manual")
    res = asc.launch(k.pre_layer_norm, BLOCKS, *ins, out, tiling=c.tiling)
    assert res.auto_syncs > 0
    assert any(e.args.get("auto") for e in res.trace.events if e.args)
