"""npusim.okk under random and malformed calls: 0 defects in a bounded seeded run, and one regression
test per case issue 17 lists (each would fail on the code before the fix)."""
import time
import warnings

import numpy as np
import pytest

from npusim import okk
from npusim.core.errors import ConstraintError, NpuSimError
from npusim.fuzz import okk as fuzz_okk
from npusim.fuzz.harness import DEFECTS, Tally, execute
from npusim.okk import args as okk_args

G = okk.okk_global_mem_start_addr()


def test_every_public_function_is_drawn():
    names = {n for n in okk.__all__ if callable(getattr(okk, n)) and not isinstance(getattr(okk, n), type)}
    assert names - {"current", "info"} == set(fuzz_okk.FUNCTIONS)
    rng = np.random.default_rng(7)
    drawn = {fuzz_okk.draw(rng).api for _ in range(3000)} - {"CKernel.run"}
    # okk.load_c is drawn (with CKernel.run) when a C compiler is present
    assert drawn == set(fuzz_okk.FUNCTIONS) - (set() if fuzz_okk.have_cc() else {"load_c"})


@pytest.mark.parametrize("seed", [11, 12])
def test_bounded_campaign_finds_no_defect(seed):
    rng = np.random.default_rng(seed)
    tally = Tally()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i in range(150):
            trial = fuzz_okk.draw(rng)
            tally.add(trial, execute(trial, seconds=10.0, twice=i % 5 == 0))
    assert tally.kinds.get("ok", 0) > 20 and tally.kinds.get("rejected", 0) > 20   # both paths exercised
    assert tally.defects == 0, {k: tally.examples.get(k) for k in DEFECTS}


def _refused(fn, param_part, rule_part=""):
    with pytest.raises(ConstraintError) as e:
        fn()
    assert param_part in e.value.param and rule_part in e.value.rule, e.value
    return e.value


# ---- the okk cases ----

def test_four_tuple_strides_are_accepted_like_dim4():
    x = np.arange(24, dtype=np.float32)
    outs = []
    for stride in (okk.dim4(24, 12, 4, 1), (24, 12, 4, 1)):
        with okk.Device() as dev:
            dev.write_local(0, 0, x)
            okk.okk_bdc_neg(4096, 0, okk.dim4(1, 2, 3, 4), stride, stride)
            outs.append(dev.read_local(0, 4096, 48).view(np.float32).copy())
    np.testing.assert_array_equal(outs[0], outs[1])
    np.testing.assert_array_equal(outs[0][:12], -x[:12])
    with okk.Device() as dev:                       # GDMA too
        dev.write_system(G, x)
        okk.okk_gdma_32bit_cpy_S2L(0, G, (1, 2, 3, 4), (24, 12, 4, 1), (24, 12, 4, 1))
        okk.okk_gdma_32bit_cpy_L2S(G + 256, 0, (1, 2, 3, 4), (24, 12, 4, 1), (24, 12, 4, 1))
        np.testing.assert_array_equal(dev.read_system(G + 256, 24, np.float32), x)


@pytest.mark.parametrize("bad", [None, True, False, 1.5, 2.0, float("nan"), float("inf"), "3", 2**40])
def test_dim4_fields_must_be_c_ints(bad):
    with okk.Device():
        _refused(lambda: okk.okk_bdc_neg(0, 4096, okk.dim4(1, bad, 3, 4)), "shape->c", "C int")
        _refused(lambda: okk.okk_bdc_neg(0, 4096, okk.dim4(1, 2, 3, 4), okk.dim4(24, 12, bad, 1)),
                 "dst_stride->h", "C int")
        _refused(lambda: okk.okk_gdma_8bit_cpy_S2L(0, G, okk.dim4(1, 2, 3, 4), None, (bad, 1, 1, 1)),
                 "src_stride->n", "C int")


def test_non_integer_strides_are_an_error_not_truncated():
    with okk.Device():
        e = _refused(lambda: okk.okk_bdc_reciprocal(0, 4096, okk.dim4(1, 1, 2, 2), okk.dim4(4, 4, 2.7, 1)),
                     "dst_stride->h")
        assert e.value == 2.7


def test_host_helpers_validate():
    with okk.Device():
        _refused(lambda: okk.okk_get_id_node(3), "node", "dict")
        _refused(lambda: okk.okk_global_mem_addr(None), "addr", "system_addr_t")
        _refused(lambda: okk.okk_start_npu_index(float("inf")), "addr", "local_addr_t")
        _refused(lambda: okk.okk_local_mem_addr(True, 0), "idx", "NPU index")
        _refused(lambda: okk.okk_compact_stride(None, 0, (1, 2, 3)), "shape", "dim4")
        _refused(lambda: okk.OP_TYPE(1, 1, 1, 1, 2), "dst_sign", "0 or 1")
        _refused(lambda: okk.OKKERNEL_LOG("%d %d\n", 1), "fmt", "format")
        with pytest.raises(AssertionError):         # an NpuSimError that is still an AssertionError
            okk.OKKERNEL_ASSERT(0)
        with pytest.raises(NpuSimError):
            okk.OKKERNEL_ASSERT(0)
        assert okk.okk_start_npu_index(5 * 0x80000 + 12) == 5
        node = {}
        assert okk.okk_get_id_node(node) == node


def test_mac_validates_shape_before_reading_its_accumulator():
    huge = okk.dim4(65535, 4095, 65535, 65535)
    with okk.Device():
        t0 = time.perf_counter()
        _refused(lambda: okk.okk_bdc_fixed_point_packed_mac(0, 4096, 8192, huge, None, None, None, True,
                                                            okk.S8_OP_S8_TO_S16, 0, 0), "shape", "at most")
        _refused(lambda: okk.okk_bdc_mac(0, 4096, 8192, okk.dim4(65535, 4095, 1000, 1000)), "shape", "at most")
        assert time.perf_counter() - t0 < 1.0


def test_huge_zero_stride_fill_touches_one_element_at_once():
    with okk.Device() as dev:
        dev.write_system(G, np.full(8, 9, np.uint8))
        t0 = time.perf_counter()
        okk.okk_gdma_8bit_set_C_system(G, okk.x8(u8=7), okk.dim4(4096, 4095, 1000, 65535), okk.dim4(0, 0, 0, 0))
        assert time.perf_counter() - t0 < 0.5
        assert dev.read_system(G, 8, np.uint8).tolist() == [7, 9, 9, 9, 9, 9, 9, 9]
        # the cost model still counts every element the hardware moves
        assert dev.events[-1].nbytes == 4096 * 4095 * 1000 * 65535


def test_zero_stride_copy_collapses_only_dims_both_sides_alias():
    with okk.Device() as dev:
        dev.write_system(G, np.arange(16, dtype=np.uint32))
        okk.okk_gdma_32bit_cpy_S2S(G + 1024, G, okk.dim4(70000, 1, 50000, 4), okk.dim4(0, 0, 0, 1),
                                   okk.dim4(0, 0, 0, 1))
        assert dev.read_system(G + 1024, 4, np.uint32).tolist() == [0, 1, 2, 3]
        # a non-aliasing shape past the work limit is refused before any work
        _refused(lambda: okk.okk_gdma_32bit_cpy_S2S(G + 1024, G, okk.dim4(70000, 1, 50000, 4), okk.dim4(1, 0, 1, 1),
                                                   okk.dim4(0, 0, 0, 1)), "shape", "at most")


def test_constructors_of_struct_arguments_validate():
    _refused(lambda: okk.fp32_or_addr_t(True, float("inf")), "context.addr")
    _refused(lambda: okk.x32_or_addr_t(None, 3), "is_addr")
    _refused(lambda: okk.fp32_or_addr_t(False, "x"), "context.val")


def test_two_runs_give_identical_values_and_traces():
    def run():
        with okk.Device() as dev:
            dev.write_system(G, np.linspace(-2, 2, 64, dtype=np.float32))
            okk.okk_gdma_32bit_cpy_S2L(0, G, (1, 64, 1, 1), None, None)
            okk.okk_bdc_exp(4096, 0, 8192, (1, 64, 1, 1))
            okk.okk_gdma_32bit_cpy_L2S(G + 4096, 4096, (1, 64, 1, 1), None, None)
            return (dev.read_system(G + 4096, 64, np.float32).tobytes(), fuzz_okk._events(dev))
    assert run() == run()


def test_per_channel_operands_wait_for_the_shape_check():
    """Found by the campaign: bias/scale built their per-channel operand from a c = 0 shape and crashed."""
    with okk.Device():
        for fn in (okk.okk_bdc_scale, okk.okk_bdc_bias):
            _refused(lambda: fn(0, 4096, 8192, okk.dim4(1, 0, 3, 3)), "shape->c", "[1, 4095]")
        _refused(lambda: okk.okk_bdc_scale_bias(0, 4096, 8192, 12288, okk.dim4(1, 0, 3, 3)), "shape->c")


def test_bdc_dimensions_every_operand_strides_by_zero_are_computed_once():
    """O(footprint): a legal 67-million-element neg whose n and h alias on every operand returns at once
    with the values of the small computation; the cost still counts the whole shape."""
    x = np.arange(1, 65, dtype=np.float32)
    big, small = okk.dim4(16, 4095, 1024, 1), okk.dim4(1, 4095, 1, 1)
    got = []
    for shape in (big, small):
        with okk.Device() as dev:
            dev.write_local(0, 0, x)
            t0 = time.perf_counter()
            okk.okk_bdc_neg(4096, 0, shape, okk.dim4(0, 0, 0, 0), okk.dim4(0, 1, 0, 0))
            assert time.perf_counter() - t0 < 2.0
            got.append((dev.read_local(0, 4096, 4).view(np.float32).copy(), dev.events[-1].elements))
    np.testing.assert_array_equal(got[0][0], got[1][0])
    assert got[0][0][0] == -x[63]                      # lane 0's last channel (row 63) wins, as before
    assert got[0][1] == 16 * 4095 * 1024 and got[1][1] == 4095
    with okk.Device():                                 # without aliasing the BDC work limit refuses it
        _refused(lambda: okk.okk_bdc_neg(4096, 0, big, okk.dim4(1, 0, 1, 0), okk.dim4(0, 1, 0, 0)), "shape",
                 f"at most {okk_args.BDC_WORK_LIMIT}")


def test_scale_refuses_a_nan_source_address():
    """Found by the campaign: scale chose its instruction form from the raw source address first."""
    with okk.Device():
        _refused(lambda: okk.okk_bdc_scale(0, float("nan"), 8192, okk.dim4(2, 34, 2, 6)), "src_addr", "local address")
        _refused(lambda: okk.okk_bdc_scale_bias(0, None, 8192, 12288, okk.dim4(2, 34, 2, 6)), "src_addr")


@pytest.mark.skipif(not fuzz_okk.have_cc(), reason="no C compiler: the C route is not fuzzed")
def test_c_route_malformed_inputs():
    for call, param in ((lambda: okk.load_c("/nonexistent/kernel.c"), None),
                        (lambda: okk.load_c(None), "path"),
                        (lambda: okk.load_c(fuzz_okk._tiny_path(), "bad"), "defines"),
                        (lambda: okk.load_c(fuzz_okk._tiny_path(), None, "dir"), "include_dirs")):
        with pytest.raises(NpuSimError) as e:
            call()
        if param:
            assert isinstance(e.value, ConstraintError) and e.value.param == param
    k = fuzz_okk._tiny_kernel()
    good = {"N": 1, "C": 2, "H": 1, "W": 8, "output_addr": G + 0x5000, "input_addr": G + 0x1000}
    with okk.Device() as dev:
        dev.write_system(G + 0x1000, np.arange(16, dtype=np.float32).view(np.uint8))
        k.run("copy_fuzz", good, log=lambda *a: None)
        np.testing.assert_array_equal(dev.read_system(G + 0x5000, 16), np.arange(16))
        for entry, param in ((None, good), ("nope", good), ("copy_fuzz", {**good, "C": float("inf")}),
                             ("copy_fuzz", {**good, "W": 1.5}), ("copy_fuzz", {"N": 1})):
            with pytest.raises(NpuSimError):
                k.run(entry, param, log=lambda *a: None)
