"""FPBLmAvX_uB_L / FPBLmAvX_uB: Y = mA.X + B in F16Qq against float64 numpy (within 1/2 LSB: the one
rounding is the final shift), ReLU, padding, work vectors, and every stated limit."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from npusim import ConstraintError, vppl
from npusim.vppl import PointerVariable, dm_put, dm_read
from npusim.vppl.fixed_point import from_fixed, to_fixed
from npusim.vppl.ops_blas import pad_fpbl, padded


def operands(u, v, q, seed=0, scale=1.0):
    rng = np.random.default_rng(seed)
    A = to_fixed(rng.uniform(-scale, scale, (u, v)) / np.sqrt(v), q)
    x = to_fixed(rng.uniform(-1, 1, v), q)
    b = to_fixed(rng.uniform(-0.5, 0.5, u), q)
    return A, x, b


def place(A, x, b):
    Ap, bp, xp = pad_fpbl(A, b, x)
    up, _ = Ap.shape
    return dm_put(xp), dm_put(np.zeros(up, np.int16)), dm_put(bp), dm_put(Ap)


def reference(A, x, b, q, relu):
    y = from_fixed(A, q) @ from_fixed(x, q) + from_fixed(b, q)          # float64, exact inputs
    return np.maximum(y, 0) if relu else y


def work(n, name):
    return vppl.alloc_vector(name, "__I16V", n)


def run_L(A, x, b, q, relu):
    u, v = A.shape
    pX, pY, pB, pA = place(A, x, b)
    t = work(8, "vT")
    xs = [work(256, f"vX{k}") for k in range(4)]
    vb = work(8, "vB")
    t.FPBLmAvX_uB_L(q, u, v, *xs, vb, pX, pY, pB, pA, relu)
    return dm_read(pY, np.int16, padded(u, v)[0]), t, xs, vb


@pytest.mark.parametrize("q", [8, 10, 12])
@pytest.mark.parametrize("relu", [0, 1])
def test_L_within_half_lsb_of_float64(q, relu):
    A, x, b = operands(37, 100, q, seed=q)
    y, *_ = run_L(A, x, b, q, relu)
    ref = reference(A, x, b, q, relu)
    assert np.max(np.abs(from_fixed(y[:37], q) - ref)) <= 0.5 * 2.0 ** -q
    assert (y[37:] == 0).all()                          # padded rows: zero coefficients, zero bias
    if relu:
        assert (y >= 0).all() and (reference(A, x, b, q, 0) < 0).any()


def test_L_bit_exact_integer_reference_and_side_effects():
    q = 12
    A, x, b = operands(16, 1024, q, seed=3)
    y, t, xs, vb = run_L(A, x, b, q, 0)
    want = []
    for i in range(16):                                 # independent: Python integers, round half up
        acc = sum(int(a) * int(c) for a, c in zip(A[i], x)) + (int(b[i]) << q)
        want.append(max(-32768, min(32767, (acc + (1 << (q - 1))) >> q)))
    assert y.tolist() == want
    for k in range(4):                                  # each X vector holds its 256-element quarter
        assert np.array_equal(xs[k].a, x[256 * k:256 * (k + 1)])
    assert np.array_equal(t.a, y[8:16]) and np.array_equal(vb.a, b[8:16])


def test_saturation_at_both_ends():
    q = 8
    A = np.full((8, 32), 32767, np.int16)
    x = np.full(32, 32767, np.int16)
    y, *_ = run_L(A, x, np.zeros(8, np.int16), q, 0)
    assert (y == 32767).all()
    y, *_ = run_L(-A, x, np.zeros(8, np.int16), q, 0)
    assert (y == -32768).all()


def test_uB_within_half_lsb():
    q = 10
    A, x, b = operands(128, 256, q, seed=5)
    pX, pY, pB, pA = place(A, x, b)
    t, vx, vb = work(128, "vT"), work(256, "vX"), work(128, "vB")
    t.FPBLmAvX_uB(q, 128, 256, vx, vb, pX, pY, pB, pA)
    y = dm_read(pY, np.int16, 128)
    assert np.max(np.abs(from_fixed(y, q) - reference(A, x, b, q, 0))) <= 0.5 * 2.0 ** -q
    assert np.array_equal(t.a, y) and np.array_equal(vx.a, x) and np.array_equal(vb.a, b)


def test_pad_tool():
    A = np.arange(1, 3 * 40 + 1, dtype=np.int16).reshape(3, 40)
    Ap, bp, xp = pad_fpbl(A, [1, 2, 3], np.ones(40, np.int16))
    assert Ap.shape == (8, 64) and (Ap[:3, :40] == A).all() and Ap[3:].sum() == 0 and Ap[:, 40:].sum() == 0
    assert bp.tolist() == [1, 2, 3, 0, 0, 0, 0, 0] and xp.shape == (64,) and xp[40:].sum() == 0


@pytest.mark.parametrize("change,param", [
    ({"q": 9}, "q"), ({"q": 14}, "q"), ({"v": 1025}, "v"), ({"v": 0}, "v"), ({"u": 0}, "u"),
    ({"relu": 2}, "relu"),
])
def test_L_limits(change, param):
    args = dict(q=12, u=8, v=32, relu=0)
    args.update(change)
    t = work(8, "vT")
    xs = [work(256, f"vX{k}") for k in range(4)]
    with pytest.raises(ConstraintError) as e:
        t.FPBLmAvX_uB_L(args["q"], args["u"], args["v"], *xs, work(8, "vB"), PointerVariable(0), PointerVariable(0), PointerVariable(0),
                        PointerVariable(0), args["relu"])
    assert e.value.param == param and e.value.api == "FPBLmAvX_uB_L"


@pytest.mark.parametrize("change,param", [({"v": 257}, "v"), ({"u": 129}, "u"), ({"q": 16}, "q")])
def test_uB_limits(change, param):
    args = dict(q=12, u=8, v=32)
    args.update(change)
    with pytest.raises(ConstraintError) as e:
        work(256, "vT").FPBLmAvX_uB(args["q"], args["u"], args["v"], work(256, "vX"), work(256, "vB"),
                                    PointerVariable(0), PointerVariable(0), PointerVariable(0), PointerVariable(0))
    assert e.value.param == param


def test_work_vectors_must_be_allocated_and_large_enough():
    A, x, b = operands(8, 300, 12)
    pX, pY, pB, pA = place(A, x, b)
    t = work(8, "vT")
    xs = [work(256, f"vX{k}") for k in range(4)]
    with pytest.raises(ConstraintError) as e:                 # a declared (not allocated) vector
        t.FPBLmAvX_uB_L(12, 8, 300, xs[0], vppl.Vector("i16", 256), xs[2], xs[3], work(8, "vB"),
                        pX, pY, pB, pA, 0)
    assert e.value.param == "X vector 1"
    with pytest.raises(ConstraintError) as e:                 # vector 1 must hold X[256:320]
        t.FPBLmAvX_uB_L(12, 8, 300, xs[0], work(32, "small"), xs[2], xs[3], work(8, "vB"), pX, pY, pB, pA, 0)
    assert e.value.param == "X vector 1"
    t.FPBLmAvX_uB_L(12, 8, 300, xs[0], work(64, "ok"), work(1, "unused"), work(1, "unused2"), work(8, "vB"),
                    pX, pY, pB, pA, 0)
    with pytest.raises(ConstraintError) as e:
        vppl.Vector("i16", 8).FPBLmAvX_uB_L(12, 8, 300, *xs, work(8, "vB"), pX, pY, pB, pA, 0)
    assert e.value.param == "target"
    with pytest.raises(ConstraintError) as e:
        work(8, "vT").FPBLmAvX_uB(12, 16, 32, work(32, "vX"), work(16, "vB"), pX, pY, pB, pA)
    assert e.value.param == "target"


@pytest.mark.filterwarnings("ignore::npusim.core.errors.UninitializedReadWarning")
def test_pointer_outside_memory_is_an_address_error():
    t = work(8, "vT")
    xs = [work(256, f"vX{k}") for k in range(4)]
    end = vppl.machine().dm.size
    with pytest.raises(ConstraintError) as e:
        t.FPBLmAvX_uB_L(12, 8, 64, *xs, work(8, "vB"), PointerVariable(0), PointerVariable(0), PointerVariable(0), PointerVariable(end - 64), 0)
    assert e.value.param == "mA pointer"


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 40), st.integers(1, 300), st.sampled_from([8, 10, 12]), st.integers(0, 1))
def test_property_half_lsb(u, v, q, relu):
    vppl.reset()
    A, x, b = operands(u, v, q, seed=u * 1000 + v, scale=0.5)
    y, *_ = run_L(A, x, b, q, relu)
    ref = reference(A, x, b, q, relu)
    lim = 32767 * 2.0 ** -q
    ok = np.abs(ref) < lim
    assert np.max(np.abs(from_fixed(y[:u], q) - ref)[ok], initial=0) <= 0.5 * 2.0 ** -q


def test_coefficient_padding_must_be_zero():
    A, x, b = operands(5, 40, 12)
    Ap, bp, xp = pad_fpbl(A, b, x)
    t, xs, vb = work(8, "vT"), [work(256, f"vX{k}") for k in range(4)], work(8, "vB")
    for bad in ((0, 45), (6, 3)):                        # a padding column, a padding row
        Abad = Ap.copy()
        Abad[bad] = 7
        with pytest.raises(ConstraintError) as e:
            t.FPBLmAvX_uB_L(12, 5, 40, *xs, vb, dm_put(xp), dm_put(np.zeros(8, np.int16)), dm_put(bp),
                            dm_put(Abad), 0)
        assert e.value.param == "mA pointer" and "pad_fpbl" in e.value.rule
