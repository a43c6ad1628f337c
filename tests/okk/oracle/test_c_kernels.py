"""The differential route for .c kernels: the same file compiled against Sophgo's C-model
(``npusim.okk.c.cmodel_route``) is the reference, bit for bit and cycle for cycle (API_END total_cycle
of every section). Skips without the C-model libraries or a C compiler."""
import os
import sys

import numpy as np
import pytest

from npusim.okk.c import CompileError, find_compiler
from npusim.okk.oracle.fetch import available

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from c_drivers import HERE, out_hw, run_both, weights_2ic  # noqa: E402

try:
    find_compiler()
except CompileError as e:          # pragma: no cover
    pytest.skip(f"no C compiler: {e}", allow_module_level=True)
if not available():
    pytest.skip("C-model libraries absent (run: python -m npusim.okk.oracle.fetch)", allow_module_level=True)

PUBLIC = os.path.join(HERE, "public")
rng = np.random.default_rng(7)


def U(*shape, lo=-1.0, hi=1.0):
    return rng.uniform(lo, hi, shape).astype(np.float32)


def _same(got, r, ref, cm):
    for name in got:
        assert got[name].tobytes() == ref[name].tobytes(), name
    assert r.sections == cm.sections


def test_relu():
    x = U(2, 70, 5, 7)
    _same(*run_both(os.path.join(HERE, "relu.c"), "relu_contest", dict(N=2, C=70, H=5, W=7),
                    dict(input_addr=x), dict(output_addr=x.shape)))


def test_public_matmul_demo():
    a, b = U(100, 200), U(200, 150)
    _same(*run_both(os.path.join(PUBLIC, "ok_device_matmul_demo.c"), "matmul_demo",
                    dict(left_rows=100, left_cols=200, right_cols=150), dict(left_addr=a, right_addr=b),
                    dict(output_addr=(100, 150))))


def test_public_matmul_contest_entry():
    a, b = U(32, 2048), U(2048, 36)
    _same(*run_both(os.path.join(PUBLIC, "ok_device_matmul_contest.c"), "matmul_contest",
                    dict(left_rows=32, left_cols=2048, right_cols=36), dict(left_addr=a, right_addr=b),
                    dict(output_addr=(32, 36))))


@pytest.mark.parametrize("file,entry", [("ok_device_conv2d_demo.c", "conv2d_demo"),
                                        ("ok_device_conv2d_contest.c", "conv2d_contest")])
def test_public_conv2d(file, entry):
    p = dict(N=4, IC=3, OC=64, H=16, W=16, kernel_h=3, kernel_w=3, pad_top=1, pad_bottom=1, pad_left=1,
             pad_right=1, stride_h=2, stride_w=2, dilation_h=2, dilation_w=2)
    x, w = U(4, 3, 16, 16), U(64, 3, 3, 3)
    oh, ow = out_hw(16, 16, 3, 3, (1, 1, 1, 1), (2, 2), (2, 2))
    _same(*run_both(os.path.join(PUBLIC, file), entry, p, dict(input_addr=x, kernel_addr=weights_2ic(w)),
                    dict(output_addr=(4, 64, oh, ow))))


@pytest.mark.parametrize("file,entry", [("ok_device_depthwise_demo.c", "depthwise_demo"),
                                        ("ok_device_depthwise_contest.c", "depthwise_contest")])
def test_public_depthwise(file, entry):
    p = dict(N=4, C=64, H=16, W=16, kernel_h=3, kernel_w=3, pad_top=1, pad_bottom=1, pad_left=1, pad_right=1,
             stride_h=2, stride_w=2, dilation_h=2, dilation_w=2)
    x, w = U(4, 64, 16, 16), U(64, 3, 3)
    oh, ow = out_hw(16, 16, 3, 3, (1, 1, 1, 1), (2, 2), (2, 2))
    _same(*run_both(os.path.join(PUBLIC, file), entry, p, dict(input_addr=x, kernel_addr=w),
                    dict(output_addr=(4, 64, oh, ow))))


@pytest.mark.parametrize("shape", [(1, 1000, 1, 1), (1, 370, 13, 13)])
def test_public_softmax_contest_entry(shape):
    x = U(*shape, lo=-5, hi=5)
    N, C, H, W = shape
    _same(*run_both(os.path.join(PUBLIC, "ok_device_softmax_contest.c"), "softmax_contest",
                    dict(N=N, C=C, H=H, W=W), dict(input_addr=x), dict(output_addr=shape)))


def test_public_pools():
    p = dict(N=4, C=64, H=16, W=16, kernel_h=3, kernel_w=3, pad_top=1, pad_bottom=1, pad_left=1, pad_right=1,
             stride_h=2, stride_w=2, ceil_mode=0)
    x = U(4, 64, 16, 16, lo=0)
    _same(*run_both(os.path.join(PUBLIC, "ok_device_avg_pool.c"), "avg_pool_0", dict(p, count_include_pad=1),
                    dict(input_addr=x), dict(output_addr=(4, 64, 8, 8))))
    _same(*run_both(os.path.join(PUBLIC, "ok_device_max_pool.c"), "max_pool_0", dict(p, index_addr=0),
                    dict(input_addr=x), dict(output_addr=(4, 64, 8, 8))))


@pytest.mark.parametrize("entry", ["plus_one_0", "plus_one_1", "plus_one_2", "plus_one_3"])
def test_public_plus_one(entry):
    x = U(4, 64, 8, 32)
    _same(*run_both(os.path.join(PUBLIC, "ok_device_plus_one.c"), entry, dict(N=4, C=64, H=8, W=32),
                    dict(input_addr=x), dict(output_addr=x.shape)))


NN = dict(N=2, IC=5, OC=70, H=13, W=11, kh=3, kw=3, pad_top=1, pad_bottom=2, pad_left=0, pad_right=1,
          stride_h=2, stride_w=1, dilation_h=1, dilation_w=2, output2_addr=0)


def test_own_conv2d_depthwise_pools_unions():
    nn = os.path.join(HERE, "nn.c")
    x, w, b = U(2, 5, 13, 11), U(70, 5, 3, 3), U(70)
    oh, ow = out_hw(13, 11, 3, 3, (1, 2, 0, 1), (2, 1), (1, 2))
    _same(*run_both(nn, "conv2d_bias", NN, dict(input_addr=x, weight_addr=weights_2ic(w), bias_addr=b),
                    dict(output_addr=(2, 70, oh, ow))))
    _same(*run_both(nn, "depthwise_bias", NN, dict(input_addr=x, weight_addr=U(5, 3, 3), bias_addr=U(5)),
                    dict(output_addr=(2, 5, oh, ow))))
    p = dict(NN, IC=70, dilation_h=1, dilation_w=1, kh=2, kw=3, stride_w=2, weight_addr=0, bias_addr=0)
    oh, ow = out_hw(13, 11, 2, 3, (1, 2, 0, 1), (2, 2))
    _same(*run_both(nn, "pools", p, dict(input_addr=U(2, 70, 13, 11)),
                    dict(output_addr=(2, 70, oh, ow), output2_addr=(2, 70, oh, ow))))
    x = U(1, 66, 3, 5)
    _same(*run_both(nn, "unions", dict(NN, N=1, IC=66, H=3, W=5, weight_addr=0, bias_addr=0),
                    dict(input_addr=x), dict(output_addr=x.shape, output2_addr=x.shape)))


EXAMPLES = os.path.join(os.path.dirname(HERE), "..", "..", "examples", "okk", "c")


def test_example_twins():
    x = U(1, 370, 13, 13, lo=-5, hi=5)
    _same(*run_both(os.path.join(EXAMPLES, "softmax.c"), "softmax", dict(N=1, C=370, H=13, W=13),
                    dict(input_addr=x), dict(output_addr=x.shape)))
    a, b = U(70, 20000), U(20000, 9)
    _same(*run_both(os.path.join(EXAMPLES, "matmul.c"), "matmul", dict(left_rows=70, left_cols=20000, right_cols=9),
                    dict(left_addr=a, right_addr=b), dict(output_addr=(70, 9))))
    x = U(64 * 1024 * 3 + 64 * 5 + 7, lo=-8, hi=8)
    _same(*run_both(os.path.join(EXAMPLES, "activation_tiled.c"), "activation_pingpong",
                    dict(total=x.size, tile_w=1024, use_tanh=0), dict(input_addr=x), dict(output_addr=x.shape)))


PROBES = os.path.join(HERE, "cmodel_probes.c")
PROBE = dict(which=0, IC=4, K=10, LCPC=16, waddr=0x10000)


def test_probe_conv2d_kernel_stride_zero_kernel_w_one():
    _same(*run_both(PROBES, "probe", PROBE, dict(input_addr=U(1, 4, 4, 8), weight_addr=U(6)),
                    dict(output_addr=(1, 3, 4, 8))))


def test_probe_matmul_left_cols_per_channel_above_left_cols():
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _same(*run_both(PROBES, "probe", dict(PROBE, which=1), dict(input_addr=U(5, 10), weight_addr=U(10, 7)),
                        dict(output_addr=(5, 7))))


def test_probe_odd_ic_unused_half():
    _same(*run_both(PROBES, "probe", dict(PROBE, which=3, IC=3), dict(input_addr=U(1, 3, 4, 8), weight_addr=U(2, 3, 1, 2)),
                    dict(output_addr=(1, 3, 4, 8))))


def test_probe_conv2d_weights_at_4_mod_8_assert_in_the_c_model():
    from npusim.core.errors import ConstraintError, NpuSimError
    from npusim.okk.c.cmodel_route import run_on_cmodel
    from npusim import okk
    G = okk.spec.GLOBAL_MEM_START
    param = okk.load_c(PROBES).param_type()(which=2, IC=4, K=10, LCPC=16, waddr=0x10004, output_addr=G + 8192,
                                             input_addr=G, weight_addr=G + 4096)
    with pytest.raises(NpuSimError, match=r"weight_addr % 8 == 0"):
        run_on_cmodel(PROBES, "probe", bytes(param), [(G, U(1, 4, 4, 8).tobytes()), (G + 4096, U(12).tobytes())])
    with pytest.raises(ConstraintError, match="divisible by 8"):
        run_both(PROBES, "probe", dict(PROBE, which=2, waddr=0x10004),
                 dict(input_addr=U(1, 4, 4, 8), weight_addr=U(2, 3, 1, 2)), dict(output_addr=(1, 3, 4, 8)))


PERFECT = sorted(d for d in os.listdir(PUBLIC) if d.startswith("perfect_"))


@pytest.mark.parametrize("who", PERFECT)
@pytest.mark.parametrize("kind,case", [("softmax", 0), ("softmax", 1), ("softmax", 2), ("matmul", 10), ("matmul", 12),
                                       ("depthwise", 4), ("depthwise", 7), ("conv2d", 6), ("conv2d", 9)])
def test_contest_top_solutions(who, kind, case):
    """The contest's top solutions, unchanged: bit-identical outputs and identical section cycles (matmul 12:
    left_cols_per_channel > left_cols; depthwise 7: asymmetric pads). The full sweep over every contest case
    is benchmarks/okk_contest_sweep.py / test_contest_sweep.py (NPUSIM_SWEEP=1)."""
    from c_drivers import contest_case
    if (who, kind, case) == ("perfect_1760430", "matmul", 12):
        pytest.skip("a parallel-region race: test_perfect_1760430_matmul_case_12_races")
    entry, fields, inputs, outputs, _, _ = contest_case(kind, case, np.random.default_rng(case))
    _same(*run_both(os.path.join(PUBLIC, who, f"ok_device_{kind}_contest.c"), entry, fields, inputs, outputs))


def test_own_softmax_pipelined():
    x = U(6132, 21, 1, 1, lo=-5, hi=5)
    _same(*run_both(os.path.join(HERE, "softmax_pipelined.c"), "softmax_pipelined", dict(N=6132, C=21, H=1, W=1),
                    dict(input_addr=x), dict(output_addr=x.shape)))


@pytest.mark.parametrize("entry", ["conv2d", "depthwise2d", "avg_pool2d", "max_pool2d"])
def test_example_window_twin(entry):
    n, c, h, w, oc = 2, 5, 40, 18, (70 if entry == "conv2d" else 5)
    fields = dict(N=n, C=c, H=h, W=w, OC=oc, kernel_h=3, kernel_w=3, pad_top=1, pad_bottom=1, pad_left=1,
                  pad_right=0, stride_h=2, stride_w=1, dilation_h=1, dilation_w=1, c_tile=1024, oc_tile=64)
    inputs = dict(input_addr=U(n, c, h, w))
    if entry == "conv2d":
        inputs["weight_addr"] = weights_2ic(U(oc, c, 3, 3))
    elif entry == "depthwise2d":
        inputs["weight_addr"] = U(c, 3, 3)
    else:
        fields["weight_addr"] = 0
    oh, ow = out_hw(h, w, 3, 3, (1, 1, 1, 0), (2, 1))
    _same(*run_both(os.path.join(EXAMPLES, "window.c"), entry, fields, inputs, dict(output_addr=(n, oc, oh, ow))))


@pytest.mark.parametrize("entry,shape", [("plus_one_3", (40, 70, 8, 9)), ("plus_one_4", (5, 3, 77, 101))])
def test_example_plus_one_twin(entry, shape):
    x = U(*shape)
    N, C, H, W = shape
    _same(*run_both(os.path.join(EXAMPLES, "plus_one.c"), entry, dict(N=N, C=C, H=H, W=W), dict(input_addr=x),
                    dict(output_addr=shape)))


SWEEP_PROBES = os.path.join(HERE, "sweep_probes.c")
SWEEP_PROBE = dict(which=0, R=1, K=1, N=1, LCPC=1, RCPC=1, C=1, H=1, W=1, weight_addr=0)


@pytest.mark.parametrize("R,K,LCPC", [(512, 4, 16), (5, 3, 8), (5, 7, 100)])
def test_probe_matrix_moves_with_cols_per_channel_above_cols(R, K, LCPC):
    """Contest sweep finding: matrix S2L / L2S cycles count runs of cols_per_channel (one per section)."""
    _same(*run_both(SWEEP_PROBES, "probe", dict(SWEEP_PROBE, which=3, R=R, K=K, LCPC=LCPC),
                    dict(input_addr=U(R, K)), dict(output_addr=(R, K))))


def test_probe_matmul_tile_of_perfect_1813709_case_12():
    _same(*run_both(SWEEP_PROBES, "probe", dict(SWEEP_PROBE, R=512, K=4, N=1024, LCPC=16, RCPC=16),
                    dict(input_addr=U(512, 4), weight_addr=U(4, 1024)), dict(output_addr=(512, 1024))))


@pytest.mark.parametrize("which", [1, 2])
def test_probe_pools_above_4095_channels(which):
    """Contest sweep finding: the C-model pools c > 4095 (avg: which 1, max: which 2), bit and cycle equal."""
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _same(*run_both(SWEEP_PROBES, "probe", dict(SWEEP_PROBE, which=which, C=5000, H=3, W=3),
                        dict(input_addr=U(1, 5000, 3, 3)), dict(output_addr=(1, 5000, 3, 3))))


@pytest.mark.parametrize("which,C,q", [(4, 65472, 0), (4, 65473, 0), (4, 65410, 63), (4, 131072, 0), (5, 65535, 0)])
def test_probe_copies_with_many_channels(which, C, q):
    """Contest sweep finding: a strided S2L / L2S moves pieces of 65472 channels (which 4, start NPU q);
    both strides NULL: one instruction (which 5)."""
    _same(*run_both(SWEEP_PROBES, "probe", dict(SWEEP_PROBE, which=which, C=C, H=1, W=4, K=q),
                    dict(input_addr=U(1, C, 1, 4)), dict(output_addr=(1, C, 1, 4))))


def test_probe_copy_with_both_strides_null_above_65535_channels_asserts_in_both():
    from npusim.core.errors import ConstraintError, NpuSimError
    from npusim.okk.c.cmodel_route import run_on_cmodel
    from npusim.okk.c.param import pack
    from npusim import okk
    G = okk.spec.GLOBAL_MEM_START
    param = pack(okk.load_c(SWEEP_PROBES).param_type(), dict(SWEEP_PROBE, which=6, C=65536, H=1, W=4,
                                                             input_addr=G, output_addr=G))
    with pytest.raises(NpuSimError, match="GDMA_MAX_C"):
        run_on_cmodel(SWEEP_PROBES, "probe", bytes(param))
    with pytest.raises(ConstraintError, match="at most 65535"):
        run_both(SWEEP_PROBES, "probe", dict(SWEEP_PROBE, which=6, C=65536, H=1, W=4),
                 dict(input_addr=U(1, 1, 1, 4)), dict(output_addr=(1, 65536, 1, 4)))


@pytest.mark.parametrize("op", [2, 3])
def test_probe_elementwise_above_4095_channels_with_strides(op):
    """Contest sweep finding: mul_C (op 2) / add (op 3) with every stride given compute c = 5000."""
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _same(*run_both(SWEEP_PROBES, "probe", dict(SWEEP_PROBE, which=7, N=op, C=5000, H=3, W=3),
                        dict(input_addr=U(1, 5000, 3, 3)), dict(output_addr=(1, 5000, 3, 3))))


def test_perfect_1760430_matmul_case_12_races():
    """This top solution's matmul overwrites, in a parallel region, the left tile its okk_bdc_matmul reads
    (a bug on the board that the eager C-model cannot see): npusim raises RaceError; with the race check
    off (npusim is eager too) the bytes and cycles are the C-model's."""
    import npusim
    from npusim.core.errors import RaceError
    from c_drivers import contest_case
    path = os.path.join(PUBLIC, "perfect_1760430", "ok_device_matmul_contest.c")
    entry, fields, inputs, outputs, _, _ = contest_case("matmul", 12, np.random.default_rng(12))
    with pytest.raises(RaceError, match="write-after-read"):
        run_both(path, entry, fields, inputs, outputs)
    with npusim.configure(check_races=False):
        _same(*run_both(path, entry, fields, inputs, outputs))


def test_public_pools_above_65472_channels():
    """Sophgo's pool demos with N*C = 70000 channels in one tile (as contest S1 case 8 reaches 131072): strided
    copies in 65472-channel pieces, pools over c > 4095, the avg demo's count_include_pad = 0 correction
    (mul_C with strides over c > 4095)."""
    import warnings
    p = dict(N=1, C=70000, H=2, W=2, kernel_h=3, kernel_w=3, pad_top=1, pad_bottom=1, pad_left=1, pad_right=1,
             stride_h=1, stride_w=1, ceil_mode=0)
    x = U(1, 70000, 2, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _same(*run_both(os.path.join(PUBLIC, "ok_device_avg_pool.c"), "avg_pool_0", dict(p, count_include_pad=0),
                        dict(input_addr=x), dict(output_addr=(1, 70000, 2, 2))))
        _same(*run_both(os.path.join(PUBLIC, "ok_device_max_pool.c"), "max_pool_0", dict(p, index_addr=0),
                        dict(input_addr=x), dict(output_addr=(1, 70000, 2, 2))))


@pytest.mark.parametrize("K,LCPC", [(300, 144), (100, 129)])
def test_probe_matmul_left_cols_per_channel_above_128(K, LCPC):
    """Contest sweep finding (perfect_1760430's matmul case 5 uses 144): the C-model computes it."""
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _same(*run_both(SWEEP_PROBES, "probe", dict(SWEEP_PROBE, R=5, K=K, N=7, LCPC=LCPC, RCPC=7),
                        dict(input_addr=U(5, K), weight_addr=U(K, 7)), dict(output_addr=(5, 7))))


def test_probe_65537_bdc_instructions_in_a_section_assert_in_both():
    """Contest sweep finding (matmul case 0 of three top solutions): 16-bit BDC command ids per section."""
    from npusim.core.errors import ConstraintError, NpuSimError
    from npusim.okk.c.cmodel_route import run_on_cmodel
    from npusim.okk.c.param import pack
    from npusim import okk
    p = dict(SWEEP_PROBE, which=8, R=65537, K=0, input_addr=0, output_addr=0)
    param = bytes(pack(okk.load_c(SWEEP_PROBES).param_type(), p))
    with pytest.raises(NpuSimError, match="bd_cmd_id"):
        run_on_cmodel(SWEEP_PROBES, "probe", param)
    assert run_on_cmodel(SWEEP_PROBES, "probe", bytes(pack(okk.load_c(SWEEP_PROBES).param_type(),
                                                           dict(p, R=65536)))).sections == [65536]
    with okk.Device(global_mem_bytes=1 << 20) as dev, pytest.raises(ConstraintError, match="65536 BDC"):
        dev.write_local(0, 0, np.zeros(1, np.float32))
        okk.load_c(SWEEP_PROBES).run("probe", p)
