"""A read never changes memory: a never-written byte reads as poison in the *value* the read returns,
while the source keeps its bytes (and its init map). Host writes through documented views count as
written. (Issue: reading a partly-written source used to store poison into the source itself.)"""
import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import npusim
from npusim.core.errors import ConstraintError, UninitializedReadWarning
from npusim.core.host_window import host_window
from npusim.core.memory import Memory
from npusim.core.view import TensorView


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 64), dtype=st.sampled_from(["uint8", "int16", "float32", "int32", "float64"]),
       written=st.lists(st.booleans(), min_size=64 * 8, max_size=64 * 8), seed=st.integers(0, 9))
def test_read_of_partly_written_bytes_leaves_memory_alone(n, dtype, written, seed):
    mem = Memory("M", 1024)
    item = np.dtype(dtype).itemsize
    raw = np.random.default_rng(seed).integers(0, 256, n * item, dtype=np.uint8)
    mask = np.array(written[:n * item])
    mem.data[:n * item][mask] = raw[mask]           # a host store of some bytes only
    mem.init[:n * item][mask] = 1
    data_before, init_before = mem.data.copy(), mem.init.copy()
    view = TensorView(mem, 0, (n,), None, dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UninitializedReadWarning)
        got = view.read("test")
    np.testing.assert_array_equal(mem.data, data_before)
    np.testing.assert_array_equal(mem.init, init_before)
    whole = mask.reshape(n, item).all(axis=1)
    stored = mem.data[:n * item].view(dtype)
    np.testing.assert_array_equal(got[whole], stored[whole])         # whole elements keep their value
    poison = np.nan if np.dtype(dtype).kind == "f" else 4
    if np.dtype(dtype).kind == "f":
        assert np.isnan(got[~whole]).all()
    else:
        assert (got[~whole] == poison).all()


def test_strict_read_raises_and_changes_nothing():
    mem = Memory("M", 64)
    mem.write_bytes(0, np.arange(8, dtype=np.uint8))
    before = mem.data.copy()
    with npusim.configure(strict=True), pytest.raises(npusim.core.errors.UninitializedReadError):
        TensorView(mem, 0, (4,), None, "int32").read("test")
    np.testing.assert_array_equal(mem.data, before)


# ---- host windows: stores through a documented pointer count as written ----

def test_host_window_marks_exactly_the_bytes_stored():
    mem = Memory("DDR", 256)
    w = host_window(mem, 16, 256)
    w[:4] = [1, 2, 3, 4]                                    # item assignment
    w[8:].view(np.float32)[2] = 1.5                         # a typed view of a slice
    np.copyto(w[64:72], 7)                                  # np.copyto
    np.add(w[100:104], 3, out=w[100:104])                   # ufunc out=
    w[128:130].fill(9)                                      # fill
    expect = np.zeros(256, np.uint8)
    for lo, hi in ((16, 20), (32, 36), (80, 88), (116, 120), (144, 146)):
        expect[lo:hi] = 1
    np.testing.assert_array_equal(mem.init, expect)
    assert mem.data[32:36].view(np.float32)[0] == 1.5
    assert list(mem.data[116:120]) == [3, 3, 3, 3]


def test_host_window_copies_and_results_do_not_mark():
    mem = Memory("DDR", 64)
    w = host_window(mem, 0, 64)
    c = w.copy()
    c[:] = 5                                                # a copy is not the memory
    _ = w + 1                                               # a ufunc result is a new array
    assert not mem.init.any() and not mem.data.any()


def test_okk_issue_example_pointer_write_then_gdma_copy():
    """The issue's example: 1..16 written through okk_global_mem_addr, then okk_gdma_8bit_cpy_S2L of 32
    bytes. DDR keeps 1..16; local memory gets 1..16 and poison (4) for the 16 never-written bytes."""
    from npusim import okk
    dev = okk.Device()
    with dev, warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        okk.okk_initialize()
        G = okk.okk_global_mem_start_addr()
        okk.okk_global_mem_addr(G)[:16] = np.arange(1, 17, dtype=np.uint8)
        okk.okk_gdma_8bit_cpy_S2L(0, G, okk.dim4(1, 1, 1, 32), None, None)
        okk.okk_poll()
        ddr = dev.read_system(G, 32, np.uint8)
        lmem = dev.read_local(0, 0, 32)
    np.testing.assert_array_equal(ddr, np.r_[np.arange(1, 17), np.zeros(16)])
    np.testing.assert_array_equal(lmem, np.r_[np.arange(1, 17), np.full(16, 4)])
    reports = [w for w in caught if issubclass(w.category, UninitializedReadWarning)]
    assert len(reports) == 1 and "16 never-written byte(s)" in str(reports[0].message)


def test_okk_fully_pointer_written_source_reads_clean():
    from npusim import okk
    dev = okk.Device()
    with dev, npusim.configure(strict=True):
        okk.okk_initialize()
        G = okk.okk_global_mem_start_addr()
        x = np.linspace(-3, 3, 64, dtype=np.float32)
        okk.okk_global_mem_addr(G).view(np.float32)[:64] = x
        okk.okk_gdma_32bit_cpy_S2L(0, G, okk.dim4(1, 1, 1, 64), None, None)
        okk.okk_gdma_32bit_cpy_L2S(G + 4096, 0, okk.dim4(1, 1, 1, 64), None, None)
        okk.okk_poll()
        np.testing.assert_array_equal(dev.read_system(G + 4096, 64, np.float32), x)


# ---- Ascend C: DataCopy of a partly-written source; ReduceSum's destination footprint ----

def test_ascendc_datacopy_of_partly_written_ub_keeps_source_bytes(core):
    from npusim import ascendc as asc
    src = core.t(asc.half, 128, 0)
    dst = core.t(asc.half, 128, 4096)
    ub = core.context.ub
    src_bytes = np.arange(64, dtype=np.float16)
    ub.write_bytes(0, src_bytes)                            # elements 0..63 written, 64..127 never
    before = ub.data[:256].copy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UninitializedReadWarning)
        asc.DataCopy(dst, src, 128)
    np.testing.assert_array_equal(ub.data[:256], before)
    got = ub.data[4096:4096 + 256].view(np.float16)
    np.testing.assert_array_equal(got[:64], src_bytes)
    assert np.isnan(got[64:]).all() or (ub.data[4096 + 128:4096 + 256] == 4).all()


def test_ascendc_reduce_sum_refuses_an_empty_destination(core):
    from npusim import ascendc as asc
    src = core.t(asc.float, 64, 0)
    src.load(np.ones(64, np.float32))
    work = core.t(asc.float, 64, 1024)
    empty = core.t(asc.float, 0, 2048)
    neighbour = core.t(asc.float, 8, 2048)
    neighbour.load(np.full(8, 5.0, np.float32))
    for api in (asc.ReduceSum, asc.ReduceMax, asc.ReduceMin):
        with pytest.raises(ConstraintError, match="dstLocal"):
            api(empty, src, work, 64)
    np.testing.assert_array_equal(core.context.ub.data[2048:2080].view(np.float32), np.full(8, 5.0))


@pytest.fixture
def core():
    from npusim import ascendc as asc
    with asc.core_context("Ascend910B1") as ctx:
        pipe = asc.TPipe()
        buf = asc.TBuf(asc.TPosition.VECCALC)
        pipe.InitBuffer(buf, 64 * 1024)

        class Core:
            context = ctx

            @staticmethod
            def t(dtype, n, off):
                return buf.GetWithOffset(dtype, n, off)
        yield Core


# ---- NKI: accumulating onto never-written PSUM still reads poison, without poisoning by side effect ----

def test_nki_accumulate_onto_never_written_psum_is_poison():
    import npusim.nki.isa as nisa
    import npusim.nki.language as nl
    from npusim.nki import run_context
    a = np.ones((4, 4), np.float32)
    with run_context("trn2"), warnings.catch_warnings():
        warnings.simplefilter("ignore", UninitializedReadWarning)
        s = nl.ndarray((4, 4), nl.float32, buffer=nl.sbuf)
        s.write(a)
        dst = nl.ndarray((4, 4), nl.float32, buffer=nl.psum)
        nisa.nc_matmul(dst, s, s, accumulate=True)
        got = dst.numpy()
    assert np.isnan(got).all()
