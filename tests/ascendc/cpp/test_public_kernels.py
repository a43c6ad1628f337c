"""Public cann-ops kernels, kept verbatim in tests/ascendc/public/, run unchanged through load_cpp and
match independent numpy references."""
import os

import numpy as np
import pytest

import npusim
from npusim.core.errors import ConstraintError

from npusim import ascendc as asc

from .conftest import needs_gxx
from .public_cases import BLOCKS, CASES, MUL_SIGMOID_MUL_ADD, SELECT_SOFTMAX, kernel_path

pytestmark = needs_gxx


@pytest.mark.parametrize("name", sorted(CASES))
def test_public_kernel_matches_numpy(name):
    c = CASES[name]
    op = c.op
    k = asc.load_cpp(kernel_path(op), defines=c.defines)
    ins = c.inputs(np.random.default_rng(0))
    out = np.zeros(c.n_out, c.out_dtype)
    if np.issubdtype(c.out_dtype, np.floating):
        out[:] = np.nan
    extra = [np.zeros(c.workspace, np.uint8)] if c.workspace else []
    if c.inplace:
        out = ins[0].copy()
        res = asc.launch(getattr(k, op), c.blocks, out, *extra, tiling=c.tiling)
    else:
        res = asc.launch(getattr(k, op), c.blocks, *ins, out, *extra, tiling=c.tiling)   # default: sync="auto"
    want = c.reference(*ins)
    if c.rtol == 0 and c.atol == 0:
        np.testing.assert_array_equal(out, want)
    else:
        np.testing.assert_allclose(out, want, rtol=c.rtol, atol=c.atol)
    assert res.cycles > 0
    op_files = set(os.listdir(os.path.dirname(kernel_path(op))))           # the .cpp and its .h / .hpp
    assert any(e.source.split(":")[0] in op_files for e in res.trace.events)


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


def _launch(c):
    k = asc.load_cpp(kernel_path(c.op), defines=c.defines)
    ins = c.inputs(np.random.default_rng(0))
    return asc.launch(getattr(k, c.op), c.blocks, *ins, np.zeros(c.n_out, c.out_dtype), tiling=c.tiling)


def test_mul_sigmoid_mul_add_custom_overlaps_sigmoid_operands():
    """The kernel takes its second buffer with GetWithOffset<T>(tileLen, tileLen): bufOffset is in bytes, so
    it starts half-way into the first, and Sigmoid's source and destination overlap ("不支持源操作数与目的操作数
    地址重叠"): reported at the Sigmoid line, in both sync modes."""
    with pytest.raises(ConstraintError, match=r"mul_sigmoid_mul_add_custom\.cpp:107: Sigmoid: .*do not overlap"):
        _launch(MUL_SIGMOID_MUL_ADD)


def test_select_softmax_gives_select_less_than_the_minimum_tmp():
    """select_reduce_max_d_sub_exp_reduce_sum_d_real_div gives SelectWithBytesMask tileLength * 2 bytes of
    sharedTmpBuffer; the vendor's minimum (GetSelectMaxMinTmpSize: "为保证功能正确，申请的临时空间大小不能小于最小临时空间大小")
    is 1024 bytes."""
    with pytest.raises(ConstraintError, match=r"select_reduce_max_d_sub_exp_reduce_sum_d_real_div\.cpp:97: "
                                              r"Select: parameter 'sharedTmpBuffer'.*at least 1024 bytes"):
        _launch(SELECT_SOFTMAX)
