"""A negative test for every remark of the seeds and every okk.h misuse the C-model exits on."""
import numpy as np
import pytest

import npusim
from npusim import ConstraintError, okk

G = okk.okk_global_mem_start_addr()
LANE = okk.okk_local_mem_size_per_npu()
SH = okk.dim4(1, 4, 1, 8)

ALIGNED_WORK = [okk.okk_bdc_exp, okk.okk_bdc_sigmoid, okk.okk_bdc_tanh]
TUNABLE = [okk.okk_bdc_exp_tunable, okk.okk_bdc_sigmoid_tunable, okk.okk_bdc_tanh_tunable]
ALIGNED_PLAIN = [okk.okk_bdc_rsqrt, okk.okk_bdc_sqrt, okk.okk_bdc_lookup_exp]
STRIDED = [okk.okk_bdc_reciprocal, okk.okk_bdc_neg]


def call(fn, dst=0x1000, src=0, work=0x2000, shape=SH, n=32, ds=None, ss=None):
    if fn in ALIGNED_WORK:
        return fn(dst, src, work, shape)
    if fn in TUNABLE:
        return fn(dst, src, work, shape, n)
    if fn is okk.okk_bdc_taylor_exp:
        return fn(dst, src, shape, n)
    if fn in STRIDED:
        return fn(dst, src, shape, ds, ss)
    return fn(dst, src, shape)


ALL_BDC = ALIGNED_WORK + TUNABLE + ALIGNED_PLAIN + [okk.okk_bdc_taylor_exp] + STRIDED


def expect(api_fn, param_part, rule_part, f):
    with okk.Device():
        with pytest.raises(ConstraintError) as e:
            f()
    assert e.value.api == api_fn.__name__
    assert param_part in e.value.param and rule_part in e.value.rule
    return e.value


@pytest.mark.parametrize("fn", ALL_BDC)
@pytest.mark.parametrize("field,bad", [("n", 0), ("n", 65536), ("h", 0), ("h", 65536), ("w", 0),
                                       ("w", 65536), ("c", 0), ("c", 4096)])
def test_shape_limits(fn, field, bad):
    shape = okk.dim4(1, 4, 1, 8)
    setattr(shape, field, bad)
    rule = "shape->c is in [1, 4095]" if field == "c" else "in [1, 65535]"
    expect(fn, f"shape->{field}", rule, lambda: call(fn, shape=shape))


@pytest.mark.parametrize("fn", ALIGNED_WORK + TUNABLE + ALIGNED_PLAIN + [okk.okk_bdc_taylor_exp])
@pytest.mark.parametrize("param", ["dst_addr", "src_addr"])
def test_128_byte_alignment(fn, param):
    kw = {"dst": 0x1000 + 64} if param == "dst_addr" else {"src": 64}
    expect(fn, param, "divisible by 128", lambda: call(fn, **kw))


@pytest.mark.parametrize("fn", ALIGNED_WORK + TUNABLE)
def test_work_alignment_and_distinct(fn):
    expect(fn, "work_addr", "divisible by 128", lambda: call(fn, work=0x2000 + 4))
    expect(fn, "work_addr", "dst_addr = work_addr", lambda: call(fn, work=0x1000))
    expect(fn, "work_addr", "src_addr = work_addr", lambda: call(fn, work=0))


@pytest.mark.parametrize("fn", STRIDED)
def test_strided_alignment_4(fn):
    expect(fn, "src_addr", "divisible by 4", lambda: call(fn, src=2))
    with okk.Device():
        call(fn, dst=0x1004, src=0x10)       # 4-byte aligned is allowed
        call(fn, dst=0x1004, src=0x10, ds=okk.dim4(64, 32, 8, 2), ss=okk.dim4(8, 8, 8, 1))


@pytest.mark.parametrize("fn", ALL_BDC)
def test_same_start_npu(fn):
    expect(fn, "src_addr", "start at the same NPU", lambda: call(fn, src=LANE))


@pytest.mark.parametrize("fn", TUNABLE + [okk.okk_bdc_taylor_exp])
@pytest.mark.parametrize("n", [0, 65])
def test_num_series_range(fn, n):
    expect(fn, "num_series", "num_series is in [1, 64]", lambda: call(fn, n=n))


@pytest.mark.parametrize("fn", ALL_BDC)
def test_local_address_space(fn):
    expect(fn, "dst_addr", "local address", lambda: call(fn, dst=64 * LANE))
    expect(fn, "src_addr", "local address", lambda: call(fn, src=-128))


def test_footprint_inside_each_npu():
    big = okk.dim4(2, 4, 64, 1024)            # 2 * 256 KiB per NPU from offset 0x40000: past 512 KiB
    expect(okk.okk_bdc_rsqrt, "dst_addr", "inside the local memory",
           lambda: okk.okk_bdc_rsqrt(0x40000, 0, big))
    expect(okk.okk_gdma_32bit_cpy_S2L, "dst_addr", "inside the local memory",
           lambda: okk.okk_gdma_32bit_cpy_S2L(0x7FF00, G, okk.dim4(1, 1, 1, 128)))
    # C beyond one row of NPUs needs ceil((q + C)/64) rows: q = 63, C = 2 -> 2 rows
    with okk.Device():
        okk.okk_gdma_32bit_cpy_S2L(63 * LANE + LANE - 256, G, okk.dim4(1, 1, 1, 64))
        with pytest.raises(ConstraintError):
            okk.okk_gdma_32bit_cpy_S2L(63 * LANE + LANE - 256, G, okk.dim4(1, 2, 1, 64))


def test_system_memory_bounds():
    expect(okk.okk_gdma_32bit_cpy_S2L, "src_addr", "system address",
           lambda: okk.okk_gdma_32bit_cpy_S2L(0, 0x1000, SH))
    with okk.Device(global_mem_bytes=1 << 20):
        with pytest.raises(ConstraintError) as e:
            okk.okk_gdma_32bit_cpy_L2S(G + (1 << 20) - 64, 0, SH)
    assert "inside DDR" in e.value.rule
    expect(okk.okk_gdma_32bit_cpy_S2S, "src_addr", "inside DDR",
           lambda: okk.okk_gdma_32bit_cpy_S2S(G, G, SH, None, okk.dim4(32, -100, 8, 1)))


@pytest.mark.parametrize("kind", ["S2L", "L2S", "L2L", "S2S"])
@pytest.mark.parametrize("bits", [8, 16, 32])
def test_gdma_stride_w_is_one(kind, bits):
    fn = getattr(okk, f"okk_gdma_{bits}bit_cpy_{kind}")
    dst = 0x1000 if kind in ("S2L", "L2L") else G + 0x1000
    src = 0 if kind in ("L2S", "L2L") else G
    expect(fn, "dst_stride->w", "only allowed to be one",
           lambda: fn(dst, src, SH, okk.dim4(64, 8, 8, 2), None))
    expect(fn, "src_stride->w", "only allowed to be one",
           lambda: fn(dst, src, SH, None, okk.dim4(64, 8, 8, 0)))


def test_gdma_shape_and_matrix_rules():
    expect(okk.okk_gdma_32bit_cpy_S2L, "shape->c", "positive",
           lambda: okk.okk_gdma_32bit_cpy_S2L(0, G, okk.dim4(1, 0, 1, 1)))
    expect(okk.okk_gdma_32bit_cpy_S2L, "shape->w", "65535",
           lambda: okk.okk_gdma_32bit_cpy_S2L(0, G, okk.dim4(1, 1, 1, 65536)))
    expect(okk.okk_gdma_32bit_matrix_S2L, "cols_per_channel", "positive",
           lambda: okk.okk_gdma_32bit_matrix_S2L(0, G, 2, 8, 0, 8))
    expect(okk.okk_gdma_32bit_matrix_L2S, "cols", "65535",
           lambda: okk.okk_gdma_32bit_matrix_L2S(G, 0, 1, 65536, 128, 65536))


def test_parallel_misuse():
    expect(okk.okk_parallel_end, "state", "follows okk_parallel_start", okk.okk_parallel_end)

    def nested():
        okk.okk_parallel_start()
        okk.okk_parallel_start()
    expect(okk.okk_parallel_start, "state", "not nested", nested)

    def poll_inside():
        okk.okk_parallel_start()
        okk.okk_poll()
    expect(okk.okk_poll, "state", "inside a parallel region", poll_inside)


def test_data_range_is_reported_only_in_strict_mode():
    x = np.array([200.0, 0.5, 1.0, 2.0], np.float32).reshape(1, 1, 1, 4)
    sh = okk.dim4(1, 1, 1, 4)
    with okk.Device() as dev:
        dev.write_system(G, x)
        okk.okk_gdma_32bit_cpy_S2L(0, G, sh)
        okk.okk_bdc_exp(0x1000, 0, 0x2000, sh)            # hardware computes something: inf
        with npusim.configure(strict=True):
            with pytest.raises(ConstraintError) as e:
                okk.okk_bdc_exp(0x1000, 0, 0x2000, sh)
            assert "[-103.0, 88.0]" in e.value.rule and e.value.value == 200.0
            with pytest.raises(ConstraintError):
                okk.okk_bdc_lookup_exp(0x1000, 0, sh)      # 200.0's bits as int32 are out of [-103, 88]


def test_union_arguments():
    assert okk.x32(fp32=1.0).bits == 0x3F800000 and okk.x32(s32=-1).bits == 0xFFFFFFFF
    assert okk.x32(s8x4=(1, -1, 0, 2)).bits == 0x0200FF01 and okk.x32(u16x2=(1, 2)).bits == 0x00020001
    assert okk.x32(0x3F800000).fp32 == 1.0 and okk.x32(fp32=-2.0).s32 == -1073741824
    assert okk.x16(fp16=1.0).bits == 0x3C00 and okk.x8(s8=-1).bits == 0xFF
    with pytest.raises(ConstraintError):
        okk.x32(fp32=1.0, s32=2)
    with pytest.raises(ConstraintError):
        okk.x32(bogus=1)
    with pytest.raises(ConstraintError):
        okk.x32(s8x4=(1, 2))
    with okk.Device() as dev:
        okk.okk_gdma_32bit_set_C_system(G, 1.5, SH, None)            # a float means fp32 bits
        okk.okk_gdma_32bit_set_C_system(G + 128, 7, SH, None)        # an int means raw bits
        okk.okk_gdma_16bit_set_C_system(G + 256, okk.x16(s16=-2), SH, None)
        okk.okk_gdma_8bit_set_C_local(0, okk.x8(u8=9), SH, None)
        assert (dev.read_system(G, 32) == 1.5).all()
        assert (dev.read_system(G + 128, 32, np.int32) == 7).all()
        assert (dev.read_system(G + 256, 32, np.int16) == -2).all()
        assert dev.read_local(3, 0, 8).tolist() == [9] * 8
