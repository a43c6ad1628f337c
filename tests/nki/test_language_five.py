"""Part five language names: ``nl.bypass``, ``nl.prelu``, ``nl.erf_dx``, ``nl.shared_constant`` (the current
API's: an array or a .npy path). References are numpy written here."""
import math

import ml_dtypes
import numpy as np
import pytest

import npusim.nki as nki
import npusim.nki.isa as nisa
import npusim.nki.language as nl
from npusim.core.errors import ConstraintError


def test_names_exist_and_bypass_is_no_alu_op(run):
    assert repr(nl.bypass) == "nl.bypass" and repr(nl.prelu) == "nl.prelu" and repr(nl.erf_dx) == "nl.erf_dx"
    t = nl.ndarray((4, 4), nl.float32)
    nisa.memset(t, value=1.0)
    with pytest.raises(ConstraintError):                 # only activate2 takes nl.bypass
        nisa.tensor_scalar(dst=t, data=t, op0=nl.bypass, operand0=1.0)


def test_prelu_and_erf_dx_as_language_functions():
    @nki.jit
    def k(a):
        x = nl.ndarray(a.shape, a.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=x, src=a)
        out = nl.ndarray((2,) + tuple(a.shape), a.dtype, buffer=nl.shared_hbm)
        nisa.dma_copy(dst=out[0], src=nl.prelu(x))       # nl.activation functions: slope 0 (no relu_param)
        nisa.dma_copy(dst=out[1], src=nl.erf_dx(x))
        return out

    a = np.linspace(-2, 2, 32, dtype=np.float32).reshape(4, 8)
    got = nki.simulate(k, target="trn2")(a)
    np.testing.assert_array_equal(got[0], np.maximum(a, 0))
    want = 2 / math.sqrt(math.pi) * np.exp(-a.astype(np.float64) ** 2)
    np.testing.assert_array_equal(got[1], want.astype(np.float32))


@pytest.mark.parametrize("dtype", [np.float32, ml_dtypes.bfloat16, np.int32, np.uint8])
def test_shared_constant_from_an_array_and_a_npy_file(tmp_path, dtype):
    c = (np.arange(48).reshape(6, 8) - 10).astype(dtype) if np.dtype(dtype).kind != "u" else \
        np.arange(48, dtype=dtype).reshape(6, 8)
    path = str(tmp_path / "c.npy")
    np.save(path, c)
    if dtype is ml_dtypes.bfloat16:      # a .npy keeps ml_dtypes' bf16 as raw 2-byte voids: no NKI dtype
        with nki.run_context("trn2"), pytest.raises(ConstraintError, match="NKI dtype"):
            nl.shared_constant(path)
        path = c

    @nki.jit
    def k(a):
        out = nl.ndarray((2,) + c.shape, c.dtype, buffer=nl.shared_hbm)
        for i, src in enumerate((nl.shared_constant(c), nl.shared_constant(path))):
            assert src.buffer is nl.shared_hbm and src.shape == c.shape
            t = nl.ndarray(c.shape, c.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=t, src=src)
            nisa.dma_copy(dst=out[i], src=t)
        return out

    got = nki.simulate(k, target="trn2")(np.zeros(1, np.float32))
    np.testing.assert_array_equal(got[0].view(np.uint8), c.view(np.uint8))
    np.testing.assert_array_equal(got[1].view(np.uint8), c.view(np.uint8))


def test_shared_constant_rules(run, tmp_path):
    def bad(value, rule):
        with pytest.raises(ConstraintError) as e:
            nl.shared_constant(value)
        assert e.value.api == "nl.shared_constant" and e.value.param == "constant" and rule in e.value.rule

    bad(np.zeros(3, np.float64), "NKI dtype")          # float64 is no NKI dtype (dtype_of's rule)
    bad(np.zeros(3, np.int64), "NKI dtype")
    bad([1.0, 2.0], "numpy array")
    bad(str(tmp_path / "missing.npy"), "existing .npy file")
    (tmp_path / "c.txt").write_text("1")
    bad(str(tmp_path / "c.txt"), ".npy file")


# ---- nl.fori_loop / nl.while_loop (NKI 0.6) and a register as .ap(scalar_offset=) ----

def test_fori_loop_docstring_example_copies_a_runtime_count_of_elements():
    N = 16

    @nki.jit
    def k(data, ub_input):
        output = nl.ndarray((1, N), nl.float32, buffer=nl.shared_hbm)
        # the fori_loop docstring's example
        ub_sb = nl.ndarray((1, 1), dtype=nl.int32, buffer=nl.sbuf)
        nisa.dma_copy(dst=ub_sb, src=ub_input)
        ub_reg = nisa.register_alloc()
        nisa.register_load(ub_reg, ub_sb)

        zeros = nl.zeros((1, N), dtype=nl.float32, buffer=nl.sbuf)
        nisa.dma_copy(dst=output, src=zeros)
        temp = nl.ndarray((1, 1), dtype=nl.float32, buffer=nl.sbuf)

        def body(i):
            nisa.dma_copy(dst=temp, src=data.ap([[1, 1], [1, 1]], scalar_offset=i, indirect_dim=1))
            nisa.dma_copy(dst=output.ap([[1, 1], [1, 1]], scalar_offset=i, indirect_dim=1), src=temp)

        nl.fori_loop(0, ub_reg, body)
        return output

    data = np.arange(1, N + 1, dtype=np.float32).reshape(1, N)
    for ub in (0, 5, N):
        got = nki.simulate(k, target="trn2")(data, np.array([[ub]], np.int32))
        want = np.where(np.arange(N) < ub, data[0], 0).reshape(1, N)
        np.testing.assert_array_equal(got, want)
        names = [e.name for e in nki.last_run().trace.events]
        assert names.count("nisa.dma_copy") == 2 + 2 * ub


def test_fori_loop_steps_and_register_values(run):
    seen = []
    nl.fori_loop(2, 11, lambda i: seen.append(i.get("test")), step=3)
    assert seen == [2, 5, 8]
    nl.fori_loop(nisa.register_alloc(4), 4, lambda i: seen.append(-1))
    assert seen == [2, 5, 8]                     # an empty range runs no iteration


def test_while_loop_docstring_example_sums_count_times():
    @nki.jit
    def k(data, count_input):
        out = nl.ndarray((1, 1), nl.float32, buffer=nl.shared_hbm)
        # the while_loop docstring's example
        val = nl.ndarray((1, 1), dtype=nl.float32, buffer=nl.sbuf)
        nisa.dma_copy(dst=val, src=data)
        acc = nl.zeros((1, 1), dtype=nl.float32, buffer=nl.sbuf)

        count_sb = nl.ndarray((1, 1), dtype=nl.int32, buffer=nl.sbuf)
        nisa.dma_copy(dst=count_sb, src=count_input)
        one_sb = nl.ndarray((1, 1), dtype=nl.int32, buffer=nl.sbuf)
        nisa.memset(dst=one_sb, value=1)

        reg = nisa.register_alloc()
        nisa.register_load(reg, count_sb)

        def body(r):
            nisa.tensor_tensor(dst=acc, data1=acc, data2=val, op=nl.add)
            nisa.tensor_tensor(dst=count_sb, data1=count_sb, data2=one_sb, op=nl.subtract)
            nisa.register_load(r, count_sb)
            return r

        nl.while_loop(reg, body)
        nisa.dma_copy(dst=out, src=acc)
        return out

    for count in (0, 1, 7):
        got = nki.simulate(k, target="trn2")(np.array([[2.5]], np.float32), np.array([[count]], np.int32))
        assert got[0, 0] == 2.5 * count


def test_loop_rules(run, monkeypatch):
    from npusim.nki import language_five
    monkeypatch.setattr(language_five, "WHILE_LOOP_MAX_TRIPS", 1000)     # the cap, made small to run fast

    def bad(api, param, rule, fn):
        with pytest.raises(ConstraintError) as e:
            fn()
        assert e.value.api == api and e.value.param == param and rule in e.value.rule, e.value

    bad("nl.fori_loop", "step", "compile-time positive int", lambda: nl.fori_loop(0, 4, lambda i: None, step=0))
    bad("nl.fori_loop", "step", "compile-time positive int",
        lambda: nl.fori_loop(0, 4, lambda i: None, step=nisa.register_alloc(1)))
    bad("nl.fori_loop", "upper", "an int or a VirtualRegister", lambda: nl.fori_loop(0, 4.0, lambda i: None))
    bad("nl.fori_loop", "body_fun", "a function", lambda: nl.fori_loop(0, 4, None))
    bad("nl.while_loop", "init", "a VirtualRegister", lambda: nl.while_loop(1, lambda r: r))
    bad("nl.while_loop", "body_fun", "returns the next condition register",
        lambda: nl.while_loop(nisa.register_alloc(1), lambda r: None))
    bad("nl.while_loop", "init", "reaches 0", lambda: nl.while_loop(nisa.register_alloc(1), lambda r: r))
    bad("NkiTensor.ap", "scalar_offset", "or a VirtualRegister",
        lambda: nl.ndarray((4, 4), nl.float32, buffer=nl.shared_hbm).ap([[4, 1], [1, 4]], scalar_offset=3))


# ---- buffer predicates, no_reorder, nl.all, load_transpose2d, get_nc_sub_version, reinterpret_cast ----

def test_buffer_predicates(run):
    assert nl.is_hbm(nl.hbm) and nl.is_hbm(nl.private_hbm) and nl.is_hbm(nl.shared_hbm) and not nl.is_hbm(nl.sbuf)
    assert nl.is_on_chip(nl.sbuf) and nl.is_on_chip(nl.psum) and not nl.is_on_chip(nl.shared_hbm)
    assert nl.is_psum(nl.psum) and not nl.is_psum(nl.sbuf) and nl.is_sbuf(nl.sbuf) and not nl.is_sbuf(nl.hbm)
    with pytest.raises(ConstraintError) as e:
        nl.is_sbuf("sbuf")                       # string buffer names are rejected since 0.3
    assert e.value.param == "buffer"


def test_no_reorder_changes_no_event_and_refuses_dynamic_loops():
    def make(block):
        @nki.jit
        def k(a):
            out = nl.ndarray(a.shape, a.dtype, buffer=nl.shared_hbm)
            t = nl.ndarray(a.shape, a.dtype, buffer=nl.sbuf)
            if block:
                with nl.no_reorder():
                    nisa.dma_copy(dst=t, src=a)
                    nisa.tensor_scalar(dst=t, data=t, op0=nl.add, operand0=1.0)
            else:
                nisa.dma_copy(dst=t, src=a)
                nisa.tensor_scalar(dst=t, data=t, op0=nl.add, operand0=1.0)
            nisa.dma_copy(dst=out, src=t)
            return out
        return k

    a = np.ones((128, 64), np.float32)
    runs = []
    for block in (False, True):
        np.testing.assert_array_equal(nki.simulate(make(block), target="trn2")(a), a + 1)
        runs.append([(e.engine, e.name, e.start_ns, e.end_ns) for e in nki.last_run().trace.events])
    assert runs[0] == runs[1]

    @nki.jit
    def bad(a):
        with nl.no_reorder():
            nl.fori_loop(0, 2, lambda i: None)
        return a

    with pytest.raises(ConstraintError) as e:
        nki.simulate(bad, target="trn2")(a)
    assert e.value.api == "nl.fori_loop" and "no_reorder" in e.value.rule


def test_all_reduces_with_logical_and():
    @nki.jit
    def k(a):
        t = nl.load(a)
        r = nl.all(t, axis=1)
        out = nl.ndarray(r.shape, r.dtype, buffer=nl.shared_hbm)
        nisa.dma_copy(dst=out, src=r)
        return out

    a = np.ones((8, 16), np.float32)
    a[2, 5] = 0.0
    a[5, 0] = -0.0
    a[6, 3] = np.nan                             # NaN is nonzero: true
    got = nki.simulate(k, target="trn2")(a)
    np.testing.assert_array_equal(got.reshape(-1), np.all(a != 0, axis=1).astype(np.float32))
    assert nki.last_run().trace.events[1].name == "nisa.tensor_reduce"


def test_load_transpose2d_current_api():
    @nki.jit
    def k(a):
        t = nl.load_transpose2d(a, dtype=nl.bfloat16)
        out = nl.ndarray(t.shape, t.dtype, buffer=nl.shared_hbm)
        nisa.dma_copy(dst=out, src=t)
        return out

    a = np.random.default_rng(0).standard_normal((256, 96)).astype(np.float32)
    got = nki.simulate(k, target="trn2")(a)
    np.testing.assert_array_equal(got, a.T.astype(ml_dtypes.bfloat16))
    with nki.run_context("trn2"), pytest.raises(ConstraintError) as e:
        nl.load_transpose2d(nl.ndarray((4, 4), nl.float32, buffer=nl.sbuf))
    assert e.value.api == "nl.load_transpose2d" and e.value.param == "src"


def test_get_nc_sub_version_and_reinterpret_cast(run):
    assert nisa.get_nc_sub_version() == 0
    t = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.sbuf)
    assert t.reinterpret_cast(nl.uint8).shape == (128, 256)          # the view(dtype) alias of the stub
    assert t.reinterpret_cast(nl.int32).shape == (128, 64)
