"""Part four: ``nisa.nonzero_with_count`` ([doc] nki.isa.nonzero_with_count), ``nki.isa.constants``,
enum members passed as ints, a kernel returning an argument it wrote. References are numpy written here."""
import importlib
import sys

import numpy as np
import pytest

import npusim.nki as nki
import npusim.nki.isa as nisa
import npusim.nki.language as nl
from npusim.core.errors import ConstraintError
from npusim.nki import compat
from npusim.nki.runtime import run_context


def sbuf(x, dtype=None):
    t = nl.ndarray(x.shape, dtype or x.dtype, buffer=nl.sbuf)
    t.write(np.asarray(x).astype(t.tv.dtype.np))
    return t


def _nonzero_ref(row, offset, pad):
    """The docstring's Behavior pseudocode for one partition."""
    idx = [i + offset for i, v in enumerate(row) if v != 0]
    return idx + [pad] * (len(row) - len(idx)) + [len(idx)]


def test_nonzero_with_count_docstring_example(run):
    src = np.zeros((128, 8), np.int32)
    src[:, [1, 2, 5]] = 1
    s = sbuf(src)
    dst = nl.ndarray((128, 9), nl.int32, buffer=nl.sbuf)
    nisa.memset(dst=dst, value=7)
    ins = nisa.nonzero_with_count(dst=dst, src=s, index_offset=16, padding_val=-1)
    out = dst.read()
    np.testing.assert_array_equal(out[0], [17, 18, 21, -1, -1, -1, -1, -1, 3])
    keep = np.ones(128, bool)
    keep[::16] = False
    assert (out[keep] == 7).all()           # only partitions 0, 16, ..., 112 are written
    ev = ins.event
    assert ev.engine == "gpsimd" and ev.cycles == 150 + 8      # GPSIMD_START + N (assumed)


@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_nonzero_with_count_matches_the_pseudocode(run, dtype):
    rng = np.random.default_rng(3)
    x = (rng.random((128, 2, 64)) < 0.3) * rng.standard_normal((128, 2, 64)) * 10
    x[5, 0, :] = 0
    x[16, 1, 3] = -0.0                      # -0.0 is zero
    x[32, 0, 7] = np.nan                    # NaN is nonzero
    x = x.astype(dtype)
    dst = nl.ndarray((128, 1, 129), nl.int32, buffer=nl.sbuf)
    nisa.memset(dst=dst, value=0)
    nisa.nonzero_with_count(dst=dst, src=sbuf(x), index_offset=1000, padding_val=-5)
    out = dst.read().reshape(128, 129)
    for p in range(0, 128, 16):
        assert list(out[p]) == _nonzero_ref(x[p].reshape(-1), 1000, -5)


def test_nonzero_with_count_partitions_are_the_cores_absolute_ones(run):
    big = sbuf(np.ones((128, 4), np.float32))
    dst = nl.ndarray((128, 5), nl.int32, buffer=nl.sbuf)
    nisa.memset(dst=dst, value=0)
    nisa.nonzero_with_count(dst=dst[32:64], src=big[32:64])   # rows 0 and 16 of the view: partitions 32, 48
    out = dst.read()
    assert [p for p in range(128) if out[p].any()] == [32, 48]
    np.testing.assert_array_equal(out[48], [0, 1, 2, 3, 4])


def test_nonzero_with_count_rules(run):
    x = sbuf(np.ones((128, 8), np.float32))
    d = nl.ndarray((128, 9), nl.int32, buffer=nl.sbuf)
    cases = [
        (lambda: nisa.nonzero_with_count(dst=nl.ndarray((128, 8), nl.int32, buffer=nl.sbuf), src=x),
         "one element more"),
        (lambda: nisa.nonzero_with_count(dst=nl.ndarray((128, 9), nl.float32, buffer=nl.sbuf), src=x), "int32"),
        (lambda: nisa.nonzero_with_count(dst=d, src=sbuf(np.ones((128, 8), np.float16))), "float32 or int32"),
        (lambda: nisa.nonzero_with_count(dst=d, src=nl.ndarray((128, 8), nl.float32, buffer=nl.psum)), "SBUF"),
        (lambda: nisa.nonzero_with_count(dst=d[0:64], src=x), "partition"),
        (lambda: nisa.nonzero_with_count(dst=d[32:64], src=x[0:32]), "start partition"),
        (lambda: nisa.nonzero_with_count(dst=d, src=x, index_offset=1.5), "int32 scalar"),
        (lambda: nisa.nonzero_with_count(dst=d, src=x, padding_val=2 ** 31), "int32 scalar"),
        (lambda: nisa.nonzero_with_count(dst=d, src=x, index_offset=2 ** 31 - 2), "fit in int32"),
    ]
    for make, words in cases:
        with pytest.raises(ConstraintError, match=words):
            make()


def test_nonzero_with_count_needs_neuroncore_v3():
    with run_context("trn1"):
        x = sbuf(np.ones((128, 8), np.float32))
        with pytest.raises(ConstraintError, match="NeuronCore-v3"):
            nisa.nonzero_with_count(dst=nl.ndarray((128, 9), nl.int32, buffer=nl.sbuf), src=x)


def test_isa_constants_are_the_isa_enums():
    assert nisa.constants.dge_mode is nisa.dge_mode and nisa.constants.oob_mode is nisa.oob_mode
    assert nisa.constants.matmul_perf_mode is nisa.matmul_perf_mode
    compat.install()
    try:
        for name in [n for n in sys.modules if n == "nki" or n.startswith("nki.")]:
            del sys.modules[name]
        mod = importlib.import_module("nki.isa.constants")       # `from nki.isa.constants import dge_mode`
        assert mod.dge_mode is nisa.dge_mode
        import npusim.nki.collectives
        assert importlib.import_module("nki.collectives") is npusim.nki.collectives    # `import nki.collectives`
    finally:
        compat.uninstall()


def test_dma_copy_takes_an_enum_members_int_and_refuses_others(run):
    a = sbuf(np.arange(8, dtype=np.float32).reshape(1, 8))
    b = nl.ndarray((1, 8), nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=b, src=a, dge_mode=3, oob_mode=0)        # nki-library's _DGE_MODE_NONE = 3
    np.testing.assert_array_equal(b.read(), a.read())
    for kw in ({"dge_mode": 9}, {"oob_mode": True}, {"dge_mode": "none"}):
        with pytest.raises(ConstraintError, match="member"):
            nisa.dma_copy(dst=b, src=a, **kw)


def test_a_kernel_may_return_an_argument_it_wrote_but_not_a_private_tensor():
    @nki.jit
    def fill(x, out):
        t = nl.ndarray(x.shape, x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=x)
        nisa.dma_copy(dst=out, src=t)
        return out

    x = np.arange(8, dtype=np.float32).reshape(2, 4)
    out = np.zeros_like(x)
    got = nki.simulate(fill)(x, out)
    np.testing.assert_array_equal(got, x)
    np.testing.assert_array_equal(out, x)

    @nki.jit
    def private(x):
        return nl.ndarray(x.shape, x.dtype, buffer=nl.hbm)

    with pytest.raises(ConstraintError, match="shared_hbm"):
        nki.simulate(private)(x)


def test_nkiobject_dataclass_takes_its_class_attributes_as_keywords():
    from dataclasses import dataclass

    @dataclass
    class Section(nl.NKIObject):        # attention_cte's SectionParams: attributes without annotations
        idx = None
        offset = None

    @dataclass
    class Tile(nl.NKIObject):
        size: int = 1

    s = Section(idx=2, offset=512)
    assert (s.idx, s.offset) == (2, 512) and Section.idx is None
    assert Tile(size=4).size == 4 and Tile().size == 1
    with pytest.raises(TypeError):
        Section(unknown=1)              # not a class attribute: Python's own error, as before
    with pytest.raises(TypeError):
        Tile(4, 5)


def test_range_select_takes_the_stubs_fp32_min_literal(run):
    x = sbuf(np.arange(8, dtype=np.float32).reshape(1, 8))
    lo, hi = sbuf(np.full((1, 1), 2.0, np.float32)), sbuf(np.full((1, 1), 5.0, np.float32))
    out = nl.ndarray((1, 8), nl.float32, buffer=nl.sbuf)
    nisa.range_select(dst=out, on_true_tile=x, comp_op0=nl.greater_equal, comp_op1=nl.less, bound0=lo, bound1=hi,
                      on_false_value=-3.4028235e38)       # nki-library's _FLOAT32_MIN (not the same double)
    f = np.finfo(np.float32).min
    np.testing.assert_array_equal(out.read()[0], [f, f, 2, 3, 4, f, f, f])
    with pytest.raises(ConstraintError, match="FP32_MIN"):
        nisa.range_select(dst=out, on_true_tile=x, comp_op0=nl.greater_equal, comp_op1=nl.less, bound0=lo,
                          bound1=hi, on_false_value=-1e30)


def _hbm(x):
    t = nl.ndarray(x.shape, x.dtype, buffer=nl.hbm)
    t.write(x)
    return t


def test_dma_compute_adds_in_fp32_and_casts_to_dst(run):
    import ml_dtypes
    rng = np.random.default_rng(1)
    xs = [rng.standard_normal((4, 64)).astype(dt) for dt in (ml_dtypes.bfloat16, np.float32, np.float16)]
    srcs = [_hbm(xs[0]), sbuf(xs[1]), _hbm(xs[2].reshape(2, 128))]     # HBM and SBUF, same element count
    dst = nl.ndarray((4, 64), nl.bfloat16, buffer=nl.hbm)
    ins = nisa.dma_compute(dst, srcs, scales=[1.0, 1.0, 1.0], reduce_op=nl.add)
    acc = xs[0].astype(np.float32) + xs[1] + xs[2].astype(np.float32)     # fp32, source order
    np.testing.assert_array_equal(dst.read(), acc.astype(ml_dtypes.bfloat16))
    ev = ins.event
    assert ev.engine.startswith("dma-q") and ev.name == "nisa.dma_compute"
    one = nisa.dma_copy(dst=nl.ndarray((4, 64), nl.float32, buffer=nl.hbm), src=srcs[1]).event
    assert ev.end_ns - ev.start_ns > one.end_ns - one.start_ns         # three sources stream, not one


def test_dma_compute_rules(run):
    a, b = _hbm(np.ones((4, 8), np.float32)), _hbm(np.ones((4, 8), np.float32))
    d = nl.ndarray((4, 8), nl.float32, buffer=nl.hbm)
    idx = sbuf(np.zeros((1, 1), np.int32))
    cases = [
        (lambda: nisa.dma_compute(d, (a, b), scales=(1.0, 2.0), reduce_op=nl.add), "all 1.0"),
        (lambda: nisa.dma_compute(d, (a, b), scales=(1.0,), reduce_op=nl.add), "one scale per source"),
        (lambda: nisa.dma_compute(d, (a, b), scales=(1.0, 1.0), reduce_op=nl.multiply), "nl.add"),
        (lambda: nisa.dma_compute(d, [a] * 17, scales=[1.0] * 17, reduce_op=nl.add), "1..16"),
        (lambda: nisa.dma_compute(d, (a, _hbm(np.ones((4, 9), np.float32))), scales=(1.0, 1.0), reduce_op=nl.add),
         "element count"),
        (lambda: nisa.dma_compute(nl.ndarray((4, 8), nl.float32, buffer=nl.psum), (a, b), scales=(1.0, 1.0),
                                  reduce_op=nl.add), "HBM or SBUF"),
        (lambda: nisa.dma_compute(d, (a.ap([[8, 4], [1, 8]], scalar_offset=idx), b), scales=(1.0, 1.0),
                                  reduce_op=nl.add), "compile-time known address"),
    ]
    for make, words in cases:
        with pytest.raises(ConstraintError, match=words):
            make()


def test_local_gather_matches_the_documented_numpy_semantics(run):
    """[SDK] test_nki_isa_local_gather.py: src (128, 512, 4), per-core indices (16, 4) replicated to 128
    partitions, 4 elements per index (hardware index = index * 4), 64 valid indices per core."""
    rng = np.random.default_rng(5)
    src = (rng.random((128, 512, 4)) * 100).astype(np.float32)
    per_core = rng.integers(0, 512, size=(16, 4)).astype(np.uint16)
    index = np.tile(per_core, (8, 1))
    dst = nl.ndarray((128, 4, 16, 4), nl.float32, buffer=nl.sbuf)
    ins = nisa.local_gather(dst=dst, src_buffer=sbuf(src), index=sbuf(index * 4), num_elem_per_idx=4,
                            num_valid_indices=64)
    want = np.empty((128, 64, 4), np.float32)
    for c in range(8):
        rows = slice(16 * c, 16 * c + 16)
        want[rows] = np.take(src[rows], index[rows].flatten(order="F")[:64], axis=1)
    np.testing.assert_array_equal(dst.read(), want.reshape(128, 4, 16, 4))
    c = ((28 + 16) / 16) / min(1, 4)
    assert ins.event.engine == "gpsimd" and ins.event.cycles == pytest.approx(150 + 64 * 4 / c)


def test_local_gather_cores_use_their_own_indices(run):
    src = np.arange(32 * 10, dtype=np.int32).reshape(32, 10)
    index = np.zeros((32, 1), np.uint16)
    index[0, 0], index[16, 0] = 3, 7                 # core 0 gathers element 3, core 1 element 7 (partition 0's)
    dst = nl.ndarray((32, 1), nl.int32, buffer=nl.sbuf)
    nisa.local_gather(dst=dst, src_buffer=sbuf(src), index=sbuf(index), num_valid_indices=1)
    np.testing.assert_array_equal(dst.read()[:, 0], np.concatenate([src[:16, 3], src[16:, 7]]))


def test_local_gather_rules(run):
    src = sbuf(np.zeros((32, 64), np.float32))
    idx = sbuf(np.zeros((32, 2), np.uint16))
    d = nl.ndarray((32, 32), nl.float32, buffer=nl.sbuf)
    cases = [
        (lambda: nisa.local_gather(dst=d, src_buffer=src, index=sbuf(np.zeros((32, 2), np.int32))), "uint16"),
        (lambda: nisa.local_gather(dst=d[0:24], src_buffer=src[0:24], index=idx[0:24]), "multiple of 16"),
        (lambda: nisa.local_gather(dst=d, src_buffer=src, index=idx, num_elem_per_idx=3), "one of"),
        (lambda: nisa.local_gather(dst=d, src_buffer=src, index=idx, num_valid_indices=33), "1..32"),
        (lambda: nisa.local_gather(dst=nl.ndarray((32, 16), nl.float32, buffer=nl.sbuf), src_buffer=src,
                                   index=idx, num_valid_indices=8), "num_valid_indices \\* num_elem_per_idx"),
        (lambda: nisa.local_gather(dst=nl.ndarray((32, 32), nl.bfloat16, buffer=nl.sbuf), src_buffer=src,
                                   index=idx), "does not cast"),
        (lambda: nisa.local_gather(dst=d, src_buffer=src, index=sbuf(np.full((32, 2), 64, np.uint16))),
         "out-of-bound"),
    ]
    for make, words in cases:
        with pytest.raises(ConstraintError, match=words):
            make()


def test_nkiobject_dataclass_field_left_out_stays_unset():
    from dataclasses import dataclass

    @dataclass
    class Dims(nl.NKIObject):           # nki-library's MLPTKGConstantsDimensionSizes omits remainderIFused
        a: int
        b: int

    d = Dims(a=1)
    assert d.a == 1 and not hasattr(d, "b")
    with pytest.raises(AttributeError):
        d.b


def test_ap_on_a_whole_storage_pattern_is_a_pattern_on_the_storage(run):
    x = np.arange(4 * 12, dtype=np.float32).reshape(4, 12)
    t = sbuf(x)
    whole = t.ap(pattern=[[12, 4], [1, 12]])                 # TensorView(t).get_view() of the whole tile
    part = whole.ap(pattern=[[12, 4], [3, 4]], offset=1)     # nki-library then views it again
    np.testing.assert_array_equal(part.read(), x[:, 1::3])
    strided = t.ap(pattern=[[12, 4], [2, 6]])
    with pytest.raises(ConstraintError, match="nested"):
        strided.ap(pattern=[[12, 4], [1, 2]])                # a pattern on a part of the storage: refused


def test_a_jitted_kernel_called_inside_a_kernel_is_traced_into_it():
    """nki-library's moe_cte (itself jitted) calls the @nki.jit bwmm_shard_on_block with its tensors: NKI
    traces the inner kernel into the caller, so it sees the caller's grid and returns its tensors."""
    @nki.jit
    def inner(x):
        t = nl.ndarray(x.shape, x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=x)
        out = nl.ndarray(x.shape, x.dtype, buffer=nl.shared_hbm)
        nisa.tensor_scalar(dst=t, data=t, op0=nl.add, operand0=float(nl.num_programs(0)))
        nisa.dma_copy(dst=out, src=t)
        return out

    @nki.jit
    def outer(x):
        return inner(x)

    x = np.zeros((4, 8), np.float32)
    np.testing.assert_array_equal(nki.simulate(outer[2], target="trn2")(x), x + 2)   # the outer grid: 2 programs
    np.testing.assert_array_equal(nki.simulate(inner)(x), x + 1)                      # launched on its own


def test_exponential_with_accumulation_modes():
    """[doc] nki.isa.exponential (NC-v4): dst = exp(src - max_value); reset_reduce / reduce / load_reduce
    keep a running per-partition sum of dst in the VectorE accumulators."""
    import npusim.nki.isa as nisa_
    with run_context("trn3"):
        rng = np.random.default_rng(2)
        x = rng.standard_normal((64, 32)).astype(np.float32)
        mx = x.max(axis=1, keepdims=True).astype(np.float32)
        src, m = sbuf(x), sbuf(mx)
        dst = nl.ndarray((64, 32), nl.float32, buffer=nl.sbuf)
        acc = nl.ndarray((64, 1), nl.float32, buffer=nl.sbuf)
        ins = nisa_.exponential(dst=dst, src=src, max_value=m, reduce_res=acc, reduce_cmd=nisa_.reduce_cmd.reset_reduce)
        want = np.exp(x.astype(np.float64) - mx)
        np.testing.assert_allclose(dst.read(), want, rtol=1e-6)
        np.testing.assert_allclose(acc.read()[:, 0], want.sum(axis=1), rtol=1e-5)
        assert ins.event.engine == "vector"
        nisa_.exponential(dst=dst, src=src, max_value=1.0, reduce_res=acc, reduce_cmd=nisa_.reduce_cmd.reduce)
        np.testing.assert_allclose(acc.read()[:, 0], want.sum(axis=1) + np.exp(x - 1.0).sum(axis=1), rtol=1e-5)
        nisa_.exponential(dst=dst, src=src, reduce_res=acc, reduce_cmd=nisa_.reduce_cmd.load_reduce, reduce_init=3.0)
        np.testing.assert_allclose(acc.read()[:, 0], 3.0 + np.exp(x.astype(np.float64)).sum(axis=1), rtol=1e-5)
        b16 = nl.ndarray((64, 32), nl.bfloat16, buffer=nl.sbuf)
        nisa_.exponential(dst=b16, src=src, max_value=m)                    # cast to dst (RNE)
        np.testing.assert_array_equal(b16.read(), want.astype(np.float32).astype(b16.tv.dtype.np))


def test_exponential_rules():
    with run_context("trn2"):
        x = sbuf(np.zeros((8, 8), np.float32))
        with pytest.raises(ConstraintError, match="NeuronCore-v4"):
            nisa.exponential(dst=nl.ndarray((8, 8), nl.float32, buffer=nl.sbuf), src=x)
    with run_context("trn3"):
        x = sbuf(np.zeros((8, 8), np.float32))
        d = nl.ndarray((8, 8), nl.float32, buffer=nl.sbuf)
        cases = [
            (lambda: nisa.exponential(dst=d, src=x, reduce_init=1.0, reduce_cmd=nisa.reduce_cmd.reduce), "load_reduce"),
            (lambda: nisa.exponential(dst=d, src=x, reduce_cmd=nisa.reduce_cmd.reset), "idle, reset_reduce"),
            (lambda: nisa.exponential(dst=d, src=x, reduce_res=nl.ndarray((8, 2), nl.float32, buffer=nl.sbuf),
                                      reduce_cmd=nisa.reduce_cmd.reset_reduce), "\\(8, 1\\) tile"),
            (lambda: nisa.exponential(dst=d, src=x, max_value=sbuf(np.zeros((8, 1), np.float16))), "float32"),
            (lambda: nisa.exponential(dst=nl.ndarray((8, 4), nl.float32, buffer=nl.sbuf), src=x), "free elements"),
            (lambda: nisa.exponential(dst=nl.ndarray((8, 8), nl.uint32, buffer=nl.sbuf), src=x), "dtype one of"),
        ]
        for make, words in cases:
            with pytest.raises(ConstraintError, match=words):
                make()
