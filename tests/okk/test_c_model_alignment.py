"""Rules aligned with Sophgo's C-model where real kernels showed a difference (issue 14; probes in
tests/okk/c/cmodel_probes.c, differential checks in tests/okk/oracle/test_c_kernels.py)."""
import warnings

import numpy as np
import pytest

import npusim
from npusim import okk
from npusim.core.errors import ConstraintError, UninitializedReadWarning
from npusim.okk.rules import DocumentedRuleWarning

LANE = okk.spec.LOCAL_MEM_SIZE
rng = np.random.default_rng(14)


def _input(dev, ic):
    x = rng.uniform(-1, 1, (1, ic, 4, 8)).astype(np.float32)
    shape = okk.dim4(1, ic, 4, 8)
    for c in range(ic):          # aligned layout at 0x8000: channel c on NPU c, 32 floats
        dev.write_local(c, 0x8000, x[0, c])
    return x, shape, okk.okk_128_byte_aligned_stride_for_32bit(okk.dim4(), 0, shape)


def test_conv2d_kernel_stride_zero_with_kernel_w_one_broadcasts_one_pair():
    with okk.Device(global_mem_bytes=1 << 20) as dev:
        x, shape, ist = _input(dev, 4)
        pairs = rng.uniform(-1, 1, (3, 2)).astype(np.float32)
        for oc in range(3):          # every output channel's NPU holds one pair at 0x10000
            dev.write_local(oc, 0x10000, pairs[oc])
        okk.okk_bdc_conv2d(0, 0x8000, 0x10000, 0, shape, 3, 1, 1, ist, okk.dim4(0, 0, 0, 0), False, False)
        y = np.stack([dev.read_local(oc, 0, 128).view(np.float32) for oc in range(3)])
    w = np.stack([np.tile(pairs[oc], 2) for oc in range(3)])            # (OC, IC): pair m = the same pair
    ref = np.einsum("chw,oc->ohw", x[0].astype(np.float64), w).reshape(3, 32)
    assert np.allclose(y, ref, rtol=1e-6, atol=1e-6)
    with okk.Device(global_mem_bytes=1 << 20) as dev, pytest.raises(ConstraintError, match="kernel_stride->w"):
        x, shape, ist = _input(dev, 4)
        okk.okk_bdc_conv2d(0, 0x8000, 0x10000, 0, shape, 3, 1, 2, ist, okk.dim4(0, 0, 0, 0), False, False)


def test_conv2d_2ic_weights_are_8_byte_aligned():
    with okk.Device(global_mem_bytes=1 << 20) as dev:
        _, shape, ist = _input(dev, 4)
        with pytest.raises(ConstraintError, match="weight_addr is divisible by 8") as info:
            okk.okk_bdc_conv2d(0, 0x8000, 0x10004, 0, shape, 3, 1, 1, ist, None, False, False)
        assert info.value.value == "0x10004"


def test_odd_ic_unused_half_is_not_read():
    with okk.Device(global_mem_bytes=1 << 20) as dev:
        x, shape, ist = _input(dev, 3)
        w = rng.uniform(-1, 1, (3, 3)).astype(np.float32)                # (OC, IC), 1x1
        kst = okk.okk_compact_stride(okk.dim4(), 0, okk.dim4(2, 3, 1, 1))
        for oc in range(3):          # pair 0 = (ic0, ic1) complete; pair 1 = (ic2, never written)
            dev.write_local(oc, 0x10000, w[oc, :2])
            dev.write_local(oc, 0x10000 + 8 * kst.n, w[oc, 2:3])
        with warnings.catch_warnings():
            warnings.simplefilter("error", UninitializedReadWarning)
            okk.okk_bdc_conv2d(0, 0x8000, 0x10000, 0, shape, 3, 1, 1, ist, kst, False, False)
        y = np.stack([dev.read_local(oc, 0, 128).view(np.float32) for oc in range(3)])
    assert np.allclose(y, np.einsum("chw,oc->ohw", x[0].astype(np.float64), w).reshape(3, 32), atol=1e-6)


A = rng.uniform(-1, 1, (5, 10)).astype(np.float32)
B = rng.uniform(-1, 1, (10, 7)).astype(np.float32)


def _matmul(lcpc, a=A, b=B):
    G = okk.okk_global_mem_start_addr()
    with okk.Device(global_mem_bytes=1 << 20) as dev:
        dev.write_system(G, a)
        dev.write_system(G + 4096, b)
        okk.okk_gdma_32bit_matrix_S2L(0x8000, G, 5, 10, lcpc, 10)
        okk.okk_gdma_32bit_matrix_S2L(0x10000, G + 4096, 10, 7, 7, 7)
        okk.okk_bdc_matmul(0, 0x8000, 0x10000, 0, 5, 10, 7, lcpc, 7, False, False)
        okk.okk_gdma_32bit_matrix_L2S(G + 8192, 0, 5, 7, 7, 7)
        return dev.read_system(G + 8192, (5, 7)), a.astype(np.float64) @ b


def test_matmul_left_cols_per_channel_above_left_cols_is_a_warning():
    with pytest.warns(DocumentedRuleWarning, match="left_cols_per_channel"):
        y, ref = _matmul(16)
    assert np.allclose(y, ref, atol=1e-5)
    assert np.array_equal(y, _matmul(10)[0])                      # the same sums as a legal cpc
    with npusim.configure(strict=True), pytest.raises(ConstraintError, match=r"min\(128, cols\)"):
        _matmul(16)
    with pytest.raises(ConstraintError, match=r"min\(128, cols\)"):      # the right matrix keeps the rule
        with okk.Device(global_mem_bytes=1 << 20):
            okk.okk_bdc_matmul(0, 0x8000, 0x10000, 0, 5, 10, 7, 10, 8, False, False)


def test_matmul_left_cols_per_channel_above_128_is_a_warning():
    """The C-model accepts left_cols_per_channel > 128 and computes the product (contest sweep:
    perfect_1760430's matmul uses 144 on contest case 5, 64 x 9216 x 4096); probed at 129, 144 and 200."""
    a = rng.uniform(-1, 1, (5, 300)).astype(np.float32)
    b = rng.uniform(-1, 1, (300, 7)).astype(np.float32)
    G = okk.okk_global_mem_start_addr()
    with okk.Device(global_mem_bytes=1 << 20) as dev:
        dev.write_system(G, a)
        dev.write_system(G + 8192, b)
        okk.okk_gdma_32bit_matrix_S2L(0x8000, G, 5, 300, 144, 300)
        okk.okk_gdma_32bit_matrix_S2L(0x10000, G + 8192, 300, 7, 7, 7)
        with pytest.warns(DocumentedRuleWarning, match="left_cols_per_channel"):
            okk.okk_bdc_matmul(0, 0x8000, 0x10000, 0, 5, 300, 7, 144, 7, False, False)
        okk.okk_gdma_32bit_matrix_L2S(G + 16384, 0, 5, 7, 7, 7)
        y = dev.read_system(G + 16384, (5, 7), np.float32)
        assert [ev.args["cycles"] for ev in dev.events] == [249, 303, 1530, 48]     # the C-model's
    assert np.allclose(y, a.astype(np.float64) @ b, atol=1e-5)


# ---- the contest sweep's findings (benchmarks/okk_contest_sweep.py; probes in tests/okk/c/sweep_probes.c) ----

@pytest.mark.parametrize("rows,cols,cpc,s2l,l2s", [
    (512, 4, 16, 290, 659),      # perfect_1813709's matmul, contest case 12 (2048 x 4 x 1024), per tile
    (5, 3, 8, 138, 48),
    (5, 7, 100, 140, 82),
    (5, 10, 4, 144, 53),         # cols_per_channel <= cols: unchanged
])
def test_matrix_moves_cost_runs_of_cols_per_channel_even_above_cols(rows, cols, cpc, s2l, l2s):
    """The C-model's matrix_S2L / L2S cycles (measured one instruction per section) count runs of
    cols_per_channel elements, also when cols_per_channel > cols (npusim used min(cols_per_channel, cols))."""
    G = okk.okk_global_mem_start_addr()
    a = rng.uniform(-1, 1, (rows, cols)).astype(np.float32)
    with okk.Device(global_mem_bytes=1 << 20) as dev:
        dev.write_system(G, a)
        okk.okk_gdma_32bit_matrix_S2L(0x20000, G, rows, cols, cpc, cols)
        okk.okk_gdma_32bit_matrix_L2S(G + 65536, 0x20000, rows, cols, cpc, cols)
        got = dev.read_system(G + 65536, a.shape, np.float32)
        cycles = [ev.args["cycles"] for ev in dev.events]
    assert cycles == [s2l, l2s]
    assert np.array_equal(got, a)


@pytest.mark.parametrize("api", ["okk_bdc_avg_pool2d", "okk_bdc_max_pool2d"])
def test_pools_above_4095_channels_are_a_warning_and_computed(api):
    """The C-model pools shape->c > 4095 correctly (Sophgo's pool demos reach c = 131072 on contest S1
    case 8): the documented rule c <= 4095 is a warning for the pools, strict mode raises."""
    C = 4100
    x = rng.uniform(-1, 1, (1, C, 3, 3)).astype(np.float32)
    with okk.Device(global_mem_bytes=1 << 20) as dev:
        st = okk.okk_128_byte_aligned_stride_for_32bit(okk.dim4(), 0, okk.dim4(1, C, 3, 3))
        G = okk.okk_global_mem_start_addr()
        dev.write_system(G, x)
        okk.okk_gdma_32bit_cpy_S2L(0x40000, G, okk.dim4(1, C, 3, 3), st, None)
        with pytest.warns(DocumentedRuleWarning, match=r"shape->c is in \[1, 4095\]"):
            getattr(okk, api)(0, 0x40000, okk.dim4(1, C, 3, 3), 3, 3, okk.Padding(1, 1, 1, 1), okk.dim2(1, 1))
        okk.okk_gdma_32bit_cpy_L2S(G + x.nbytes, 0, okk.dim4(1, C, 3, 3), None, st)
        y = dev.read_system(G + x.nbytes, x.shape, np.float32).astype(np.float64)
        with npusim.configure(strict=True), pytest.raises(ConstraintError, match="shape->c"):
            getattr(okk, api)(0, 0x40000, okk.dim4(1, C, 3, 3), 3, 3, okk.Padding(1, 1, 1, 1), okk.dim2(1, 1))
        with pytest.raises(ConstraintError, match="shape->c"):      # depthwise keeps the rule (not probed)
            okk.okk_bdc_depthwise2d(0, 0x40000, 0x70000, 0, okk.dim4(1, C, 3, 3), 3, 3, False,
                                    okk.Padding(1, 1, 1, 1), okk.dim2(1, 1), okk.dim2(1, 1))
    xp = np.pad(x[0].astype(np.float64), ((0, 0), (1, 1), (1, 1)),
                constant_values=0.0 if "avg" in api else -np.inf)
    win = np.stack([xp[:, i:i + 3, j:j + 3] for i in range(3) for j in range(3)])
    ref = win.mean(0) if "avg" in api else win.max(0)
    assert np.allclose(y[0], ref, atol=1e-6)


@pytest.mark.parametrize("c,strided,cycles", [
    (65472, True, [36407, 36315]),       # one piece
    (65473, True, [36544, 36360]),       # two pieces (65472 + 1), each costed as an instruction
    (200000, True, None),
    (65535, False, [36442, 36350]),      # both strides NULL: one instruction up to 65535 channels
])
def test_strided_copies_above_65472_channels_cost_pieces(c, strided, cycles):
    """The C-model moves a S2L / L2S with a stride given in pieces of 65472 channels (65535 rounded down
    to the 64 NPUs), each with its own overhead (Sophgo's pool demos move c = 131072 on contest S1 case 8);
    measured one instruction per section (tests/okk/c/sweep_probes.c which 4 and 5)."""
    from npusim.okk import cost
    G = okk.okk_global_mem_start_addr()
    w = 3 if c == 200000 else 4
    x = rng.uniform(-1, 1, (1, c, 1, w)).astype(np.float32)
    sst = okk.dim4(c * w, w, w, 1) if strided else None
    with okk.Device(global_mem_bytes=1 << 23) as dev:
        dev.write_system(G, x)
        okk.okk_gdma_32bit_cpy_S2L(0, G, okk.dim4(1, c, 1, w), None, sst)
        okk.okk_gdma_32bit_cpy_L2S(G + x.nbytes, 0, okk.dim4(1, c, 1, w), sst, None)
        assert np.array_equal(dev.read_system(G + x.nbytes, x.shape, np.float32), x)
        got = [ev.args["cycles"] for ev in dev.events]
    if cycles is None:     # 200000 = 3 x 65472 + 3584 channels (C-model: 111343, 110975)
        cycles = [3 * cost.gdma_cycles(k, 65472 * w * 4, w * 4) + cost.gdma_cycles(k, 3584 * w * 4, w * 4)
                  for k in ("S2L", "L2S")]
        assert cycles == [111343, 110975]
    assert got == cycles


def test_copies_with_both_strides_null_refuse_more_than_65535_channels():
    """tensor_align_move asserts src_C <= GDMA_MAX_C in the C-model (S2L and L2S)."""
    G = okk.okk_global_mem_start_addr()
    with okk.Device(global_mem_bytes=1 << 22) as dev:
        for call in (lambda: okk.okk_gdma_32bit_cpy_S2L(0, G, okk.dim4(1, 65536, 1, 4), None, None),
                     lambda: okk.okk_gdma_32bit_cpy_L2S(G, 0, okk.dim4(1, 65536, 1, 4), None, None)):
            with pytest.raises(ConstraintError, match="at most 65535 when both strides are NULL"):
                call()
        assert dev.events == []


@pytest.mark.parametrize("api", ["okk_bdc_mul_C", "okk_bdc_add"])
def test_elementwise_above_4095_channels_needs_every_stride(api):
    """The C-model computes c > 4095 when every stride is given (cycles scale with ceil(c/64): 158 for
    c = 5000 against 128 for 4095) and asserts c < 4096 with NULL strides (atomic_mdscalar_operation)."""
    C = 5000
    x = rng.uniform(-1, 1, (1, C, 3, 3)).astype(np.float32)
    shape = okk.dim4(1, C, 3, 3)
    with okk.Device(global_mem_bytes=1 << 20) as dev:
        st = okk.okk_128_byte_aligned_stride_for_32bit(okk.dim4(), 0, shape)
        G = okk.okk_global_mem_start_addr()
        dev.write_system(G, x)
        okk.okk_gdma_32bit_cpy_S2L(0x40000, G, shape, st, None)
        call = (lambda s: okk.okk_bdc_mul_C(0, 0x40000, 0.75, shape, s, s)) if api == "okk_bdc_mul_C" else \
            (lambda s: okk.okk_bdc_add(0, 0x40000, 0x40000, shape, s, s, s))
        with pytest.raises(ConstraintError, match="shape->c"):
            call(None)
        with pytest.warns(DocumentedRuleWarning, match="shape->c"):
            call(st)
        assert dev.events[-1].args["cycles"] == 158
        okk.okk_gdma_32bit_cpy_L2S(G + x.nbytes, 0, shape, None, st)
        y = dev.read_system(G + x.nbytes, x.shape, np.float32)
    assert np.array_equal(y, x * np.float32(0.75) if api == "okk_bdc_mul_C" else x + x)


def test_a_section_holds_at_most_65536_bdc_instructions_and_none_after_65536_gdma():
    """The C-model asserts bd_cmd_id < 2^16 and gdma_cmd_id < 2^16 when it issues a BDC command (contest
    sweep: matmul case 0, 2 x 100352 x 2048, of three top solutions; probes which 8/9: 65536 BDC pass, the
    65537th asserts; 70000 GDMA alone pass). okk_initialize starts the ids again."""
    one = okk.dim4(1, 1, 1, 1)
    with okk.Device(global_mem_bytes=1 << 20) as dev:
        dev.write_local(0, 0, np.zeros(1, np.float32))
        for ids, ok in (([65535, 65535], True), ([65536, 0], False), ([0, 65536], False)):
            okk.okk_initialize()
            dev._section_ids = list(ids)             # as after that many instructions (a real loop: oracle test)
            if ok:
                okk.okk_bdc_add_C(0, 0, 1.0, one, None, None)
            else:
                with pytest.raises(ConstraintError, match="65536 BDC instructions"):
                    okk.okk_bdc_add_C(0, 0, 1.0, one, None, None)
                okk.okk_gdma_32bit_set_C_local(0, 1.0, one, None)        # GDMA alone: no limit
        okk.okk_initialize()
        okk.okk_bdc_add_C(0, 0, 1.0, one, None, None)
        assert dev._section_ids == [1, 0]


def test_command_ids_start_again_after_a_parallel_region_past_30000():
    """The C-model flushes after a parallel region once a section holds more than 30000 commands of an
    engine (65537 BDC in parallel regions pass there, as dump sections of 30001, 30001 and 5535 cycles);
    npusim starts the ids again there (its section cycles are not split: docs/okk.md)."""
    one = okk.dim4(1, 1, 1, 1)
    with okk.Device(global_mem_bytes=1 << 20) as dev:
        dev.write_local(0, 0, np.zeros(1, np.float32))
        okk.okk_initialize()
        dev._section_ids = [30000, 0]
        okk.okk_parallel_start(); okk.okk_bdc_add_C(0, 0, 1.0, one, None, None); okk.okk_parallel_end()
        assert dev._section_ids == [0, 0]
        dev._section_ids = [29999, 0]
        okk.okk_parallel_start(); okk.okk_bdc_add_C(0, 0, 1.0, one, None, None); okk.okk_parallel_end()
        assert dev._section_ids == [30000, 0]
