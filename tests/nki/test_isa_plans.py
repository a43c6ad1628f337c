"""Per-geometry plans of the ISA ops (plan.py): a repeat of an accepted geometry skips the checks, and
nothing observable changes.

Each case runs a sequence of calls twice, in fresh runs: once with every plan table unable to store
(every call takes the general path) and once with empty tables (the first call of a geometry stores a
plan, the repeats use it). Outputs, every event field (engine, name, start/end, cycles, bytes, elements,
source line, args), warnings and errors must be identical; values are also checked against numpy references.
"""
import math
import warnings

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import npusim.nki.isa as nisa
import npusim.nki.isa_act as isa_act
import npusim.nki.isa_matmul as isa_matmul
import npusim.nki.isa_reduce as isa_reduce
import npusim.nki.isa_tensor_scalar as isa_ts
import npusim.nki.isa_vector as isa_vector
import npusim.nki.language as nl
import npusim.nki.rules as rules
from npusim.core.errors import ConstraintError
from npusim.nki import run_context

TABLES = [(nisa, "_TT_PLANS"), (nisa, "_COPY_PLANS"), (nisa, "_MEMSET_PLANS"), (nisa, "_DMA_PLANS"),
          (isa_act, "_ACT_PLANS"), (isa_matmul, "_MM_PLANS"), (isa_vector, "_SCAN_PLANS"), (isa_ts, "_PLANS"),
          (isa_reduce, "_REDUCE_PLANS"), (rules, "_PASSED")]


class _NoStore(dict):
    """A plan table that never keeps anything: every call takes the general path."""

    def __setitem__(self, key, value):
        pass


def _run(body, plans: bool, target: str = "trn2"):
    """(outputs or the error, the events) of ``body(run)`` in a fresh run, with or without plans."""
    saved = [(m, n, getattr(m, n)) for m, n in TABLES]
    for m, n in TABLES:
        setattr(m, n, {} if plans else _NoStore())
    try:
        with run_context(target) as r, warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                out = body(r)
            except ConstraintError as e:
                out = (type(e).__name__, str(e))
            events = [(e.engine, e.name, e.start_ns, e.end_ns, e.cycles, e.freq_hz, e.nbytes, e.elements,
                       e.source, e.args) for e in r.trace.events]
    finally:
        for m, n, t in saved:
            setattr(m, n, t)
    return out, events, [(w.category, str(w.message), w.filename, w.lineno) for w in caught]


def _same_with_and_without_plans(body, target="trn2"):
    general = _run(body, plans=False, target=target)
    planned = _run(body, plans=True, target=target)
    assert _bits(planned[0]) == _bits(general[0])
    assert planned[1:] == general[1:]          # events, warnings
    return planned[0]


def _bits(out):
    if isinstance(out, list):
        return [(a.dtype.str, a.shape, a.tobytes()) for a in out]
    return out


def _tile(shape, dtype, values=None, buffer=None):
    t = nl.ndarray(shape, dtype, buffer=buffer or nl.sbuf)
    if values is not None:
        t.write(np.asarray(values).astype(t.tv.dtype.np))
    return t


def _copied(shape, dtype, values):
    """A (P, 1) tile written by a long instruction (a GpSimd copy of 2048 columns, the first the values):
    a reader waits for it, so leaving it out of an op's reads moves that op's event."""
    p = shape[0]
    wide = np.zeros((p, 2048), np.float32)
    wide[:, 0:1] = values
    t = _tile((p, 2048), dtype)
    nisa.tensor_copy(dst=t, src=_tile((p, 2048), dtype, wide), engine=nisa.engine.gpsimd)
    return t[:, 0:1]


def _values(rng, shape, dtype):
    if np.dtype(dtype).kind in "iu":
        return rng.integers(-50 if np.dtype(dtype).kind == "i" else 0, 50, shape)
    return rng.standard_normal(shape).astype(np.float32)


def _cast_ref(x, dt):
    """float32 values into dtype ``dt`` as the engines write them: floats round to nearest even, integers
    round to nearest even and saturate (NaN -> 0)."""
    x = np.asarray(x, np.float32)
    if np.dtype(dt).kind in "iu":
        info = np.iinfo(dt)
        return np.clip(np.rint(np.nan_to_num(x.astype(np.float64), nan=0.0)), info.min, info.max).astype(dt)
    return x.astype(dt)


def _stored(x, dt):
    """What a tile of dtype ``dt`` holds after _tile wrote ``x`` into it, as float32."""
    return np.asarray(x).astype(dt).astype(np.float32)


DTYPES = {"float32": np.float32, "bfloat16": ml_dtypes.bfloat16, "float16": np.float16, "int32": np.int32}
OPS = {"add": (nl.add, np.add), "subtract": (nl.subtract, np.subtract), "multiply": (nl.multiply, np.multiply),
       "maximum": (nl.maximum, np.maximum), "minimum": (nl.minimum, np.minimum)}
shapes = st.tuples(st.sampled_from([1, 2, 32, 64, 128]), st.integers(1, 40))


# ------------------------------------------------------------------------- plan hits equal the general path

@settings(max_examples=30, deadline=None)
@given(shape=shapes, in_dt=st.sampled_from(list(DTYPES)), out_dt=st.sampled_from(list(DTYPES)),
       op=st.sampled_from(list(OPS)), eng=st.sampled_from(["unknown", "vector", "gpsimd"]),
       seed=st.integers(0, 99))
def test_tensor_tensor_plan_equals_general_path(shape, in_dt, out_dt, op, eng, seed):
    rng = np.random.default_rng(seed)
    inputs = [(_values(rng, shape, DTYPES[in_dt]), _values(rng, shape, DTYPES[in_dt])) for _ in range(3)]

    def body(r):
        outs = []
        for x, y in inputs:
            a, b = _tile(shape, DTYPES[in_dt], x), _tile(shape, DTYPES[in_dt], y)
            d = _tile(shape, DTYPES[out_dt])
            nisa.tensor_tensor(dst=d, data1=a, data2=b, op=OPS[op][0], engine=getattr(nisa.engine, eng))
            outs.append(d.numpy())
        return outs

    outs = _same_with_and_without_plans(body)
    if isinstance(outs, list) and "int32" not in (in_dt, out_dt):
        d = DTYPES[in_dt]
        for (x, y), got in zip(inputs, outs):
            want = _cast_ref(OPS[op][1](_stored(x, d), _stored(y, d)), DTYPES[out_dt])
            assert np.array_equal(got, want, equal_nan=True)


@settings(max_examples=25, deadline=None)
@given(shape=shapes, in_dt=st.sampled_from(list(DTYPES)), out_dt=st.sampled_from(list(DTYPES)),
       eng=st.sampled_from(["unknown", "vector", "scalar", "gpsimd"]), psum=st.booleans(),
       target=st.sampled_from(["trn1", "trn2"]), seed=st.integers(0, 99))
def test_tensor_copy_plan_equals_general_path(shape, in_dt, out_dt, eng, psum, target, seed):
    rng = np.random.default_rng(seed)
    inputs = [_values(rng, shape, DTYPES[in_dt]) for _ in range(3)]

    def body(r):
        outs = []
        for x in inputs:
            s = _tile(shape, DTYPES[in_dt], x, nl.psum if psum else None)
            d = _tile(shape, DTYPES[out_dt])
            nisa.tensor_copy(dst=d, src=s, engine=getattr(nisa.engine, eng))
            outs.append(d.numpy())
        return outs

    outs = _same_with_and_without_plans(body, target)
    if isinstance(outs, list):
        for x, got in zip(inputs, outs):
            want = (x.astype(DTYPES[in_dt]) if in_dt == out_dt and eng != "scalar" else
                    _cast_ref(_stored(x, DTYPES[in_dt]), DTYPES[out_dt]))
            assert np.array_equal(got, want)


@settings(max_examples=25, deadline=None)
@given(shape=shapes, dt=st.sampled_from(list(DTYPES) + ["uint8"]),
       value=st.sampled_from([0, 1, -3, 300, 0.0, -0.0, 1.5, -2.25, 1e30, True, np.float32(-0.0), np.int64(7)]),
       eng=st.sampled_from(["unknown", "vector", "gpsimd"]))
def test_memset_plan_equals_general_path(shape, dt, value, eng):
    def body(r):
        outs = []
        for _ in range(3):
            d = _tile(shape, DTYPES.get(dt, np.uint8))
            nisa.memset(dst=d, value=value, engine=getattr(nisa.engine, eng))
            outs.append(d.numpy())
        return outs

    outs = _same_with_and_without_plans(body)
    if isinstance(outs, list) and dt == "float32":
        assert all(np.array_equal(o, np.full(shape, value, np.float32)) for o in outs)
        assert all(np.signbit(o).all() == (math.copysign(1.0, value) < 0) for o in outs)


@settings(max_examples=25, deadline=None)
@given(shape=shapes, dt=st.sampled_from(["float32", "bfloat16"]),
       fn=st.sampled_from(["exp", "tanh", "copy", "sigmoid", "sin"]),
       scale=st.sampled_from([1.0, 0.5, -0.0, "tile"]), bias=st.sampled_from([None, 0.25, "tile", "bf16tile"]),
       target=st.sampled_from(["trn1", "trn2"]), seed=st.integers(0, 99))
def test_activation_plan_equals_general_path(shape, dt, fn, scale, bias, target, seed):
    rng = np.random.default_rng(seed)
    # (sin's documented range is [-pi, pi]: inputs up to 4 warn, and the warning points at the caller)
    inputs = [(rng.uniform(-4, 4, shape).astype(np.float32), rng.uniform(-1, 1, (shape[0], 1)).astype(np.float32),
               rng.uniform(-1, 1, (shape[0], 1)).astype(np.float32)) for _ in range(3)]

    def body(r):
        outs = []
        for x, s, b in inputs:
            data, d = _tile(shape, DTYPES[dt], x), _tile(shape, np.float32)
            # operand tiles written by GpSimd copies: the activation waits for them (they are reads)
            sc = _copied((shape[0], 1), np.float32, s) if scale == "tile" else scale
            bi = (_copied((shape[0], 1), np.float32, b) if bias == "tile" else
                  _copied((shape[0], 1), ml_dtypes.bfloat16, b) if bias == "bf16tile" else bias)
            nisa.activation(dst=d, op=getattr(nl, fn), data=data, scale=sc, bias=bi)
            outs.append(d.numpy())
        return outs

    outs = _same_with_and_without_plans(body, target)
    if isinstance(outs, list) and fn == "copy" and dt == "float32" and scale == 1.0 and bias is None:
        for (x, _, _), got in zip(inputs, outs):
            assert np.array_equal(got, x)


@settings(max_examples=25, deadline=None)
@given(p=st.sampled_from([1, 32, 128]), f=st.integers(1, 24), op0=st.sampled_from(list(OPS)),
       op1=st.sampled_from(list(OPS)), initial=st.sampled_from([0.0, -0.0, 1.5, "tile"]),
       rev=st.tuples(st.booleans(), st.booleans()), seed=st.integers(0, 99))
def test_tensor_tensor_scan_plan_equals_general_path(p, f, op0, op1, initial, rev, seed):
    rng = np.random.default_rng(seed)
    inputs = [(rng.uniform(-1, 1, (p, f)).astype(np.float32), rng.uniform(-1, 1, (p, f)).astype(np.float32),
               rng.uniform(-1, 1, (p, 1)).astype(np.float32)) for _ in range(3)]

    def body(r):
        outs = []
        for x0, x1, i0 in inputs:
            a, b, d = _tile((p, f), np.float32, x0), _tile((p, f), np.float32, x1), _tile((p, f), np.float32)
            init = _copied((p, 1), np.float32, i0) if initial == "tile" else initial
            nisa.tensor_tensor_scan(dst=d, data0=a, data1=b, initial=init, op0=OPS[op0][0], op1=OPS[op1][0],
                                    reverse0=rev[0], reverse1=rev[1])
            outs.append(d.numpy())
        return outs

    outs = _same_with_and_without_plans(body)
    f0, f1 = OPS[op0][1], OPS[op1][1]
    for (x0, x1, i0), got in zip(inputs, outs):      # the recurrence, one fp32 step at a time
        prev = i0[:, 0] if initial == "tile" else np.full(p, initial, np.float32)
        for i in range(f):
            t = f0(prev, x0[:, i]) if rev[0] else f0(x0[:, i], prev)
            prev = f1(x1[:, i], t) if rev[1] else f1(t, x1[:, i])
            assert np.array_equal(got[:, i], prev)


@settings(max_examples=25, deadline=None)
@given(p=st.sampled_from([1, 32, 128]), shape=st.sampled_from([(6,), (3, 4), (2, 3, 2)]),
       op=st.sampled_from(["add", "maximum", "minimum", "multiply", "subtract"]), negate=st.booleans(),
       out_dt=st.sampled_from(["float32", "bfloat16"]), seed=st.integers(0, 99))
def test_tensor_reduce_plan_equals_general_path(p, shape, op, negate, out_dt, seed):
    rng = np.random.default_rng(seed)
    inputs = [rng.uniform(-2, 2, (p,) + shape).astype(np.float32) for _ in range(3)]
    axes = (len(shape),)                     # the last free axis
    dt = np.float32 if out_dt == "float32" else ml_dtypes.bfloat16

    def body(r):
        outs = []
        for x in inputs:
            d = _tile((p,) + shape[:-1] if len(shape) > 1 else (p, 1), dt)
            nisa.tensor_reduce(dst=d, op=getattr(nl, op), data=_tile((p,) + shape, np.float32, x), axis=axes,
                               negate=negate)
            outs.append(d.numpy())
        return outs

    outs = _same_with_and_without_plans(body)
    for x, got in zip(inputs, outs):
        flat = x.reshape(p, -1, shape[-1])
        want = (flat[..., 0] - flat[..., 1:].sum(axis=2, dtype=np.float32) if op == "subtract" else
                getattr(np, op).reduce(flat, axis=2))
        want = (-want if negate else want).astype(dt).reshape(got.shape)
        assert np.array_equal(got.view(np.uint8), want.view(np.uint8))


@settings(max_examples=25, deadline=None)
@given(p=st.sampled_from([1, 32, 64, 128]), f=st.integers(1, 24),
       ops=st.sampled_from([("multiply", None), ("add", "multiply"), ("subtract", "maximum"), ("maximum", "add")]),
       op1_tile=st.booleans(), psum=st.booleans(), rev=st.tuples(st.booleans(), st.booleans()),
       out_dt=st.sampled_from(["float32", "bfloat16"]), seed=st.integers(0, 99))
def test_tensor_scalar_tile_operand_plan_equals_general_path(p, f, ops, op1_tile, psum, rev, out_dt, seed):
    """A (P, 1) tile operand (SBUF or PSUM), with a constant or a second tile as operand1."""
    rng = np.random.default_rng(seed)
    inputs = [(rng.uniform(-2, 2, (p, f)).astype(np.float32), rng.uniform(0.5, 2, (p, 1)).astype(np.float32),
               rng.uniform(0.5, 2, (p, 1)).astype(np.float32)) for _ in range(3)]
    dt = np.float32 if out_dt == "float32" else ml_dtypes.bfloat16
    op0, op1 = (getattr(nl, o) if o else None for o in ops)

    def body(r):
        outs = []
        for x, s0, s1 in inputs:
            d, a = _tile((p, f), dt), _tile((p, f), np.float32, x)
            t0 = _tile((p, 1), np.float32, s0, buffer=nl.psum if psum else None)
            o1 = None if op1 is None else (_tile((p, 1), np.float32, s1) if op1_tile else 0.75)
            nisa.tensor_scalar(d, a, op0, t0, reverse0=rev[0], op1=op1, operand1=o1, reverse1=rev[1])
            outs.append(d.numpy())
        return outs

    _same_with_and_without_plans(body)


@settings(max_examples=20, deadline=None)
@given(k=st.sampled_from([1, 16, 128]), m=st.sampled_from([1, 64, 128]), n=st.integers(1, 64),
       dt=st.sampled_from(["float32", "bfloat16"]), acc=st.sampled_from([None, True, False]),
       same_psum=st.booleans(), target=st.sampled_from(["trn2", "trn3"]), seed=st.integers(0, 99))
def test_nc_matmul_plan_equals_general_path(k, m, n, dt, acc, same_psum, target, seed):
    rng = np.random.default_rng(seed)
    inputs = [(rng.integers(-4, 4, (k, m)), rng.integers(-4, 4, (k, n))) for _ in range(3)]

    def body(r):
        outs = []
        ps = _tile((m, n), np.float32, buffer=nl.psum)
        for s, mv in inputs:
            if not same_psum:
                ps = _tile((m, n), np.float32, buffer=nl.psum)
            nisa.nc_matmul(ps, _tile((k, m), DTYPES[dt], s), _tile((k, n), DTYPES[dt], mv), accumulate=acc)
            outs.append(ps.numpy())
        return outs

    outs = _same_with_and_without_plans(body, target)
    if acc is not True and not same_psum:       # each a fresh group: the exact small-integer product
        for (s, mv), got in zip(inputs, outs):
            assert np.array_equal(got, (s.T @ mv).astype(np.float32))


@settings(max_examples=20, deadline=None)
@given(shape=shapes, src_dt=st.sampled_from(list(DTYPES)), dst_dt=st.sampled_from(list(DTYPES)),
       direction=st.sampled_from(["load", "store", "sbuf"]), seed=st.integers(0, 99))
def test_dma_copy_plan_equals_general_path(shape, src_dt, dst_dt, direction, seed):
    rng = np.random.default_rng(seed)
    inputs = [_values(rng, shape, DTYPES[src_dt]) for _ in range(3)]

    def body(r):
        outs = []
        for x in inputs:
            src = _tile(shape, DTYPES[src_dt], x, nl.shared_hbm if direction == "load" else None)
            dst = _tile(shape, DTYPES[dst_dt], None, nl.shared_hbm if direction == "store" else None)
            nisa.dma_copy(dst=dst, src=src)
            outs.append(dst.numpy())
        return outs

    outs = _same_with_and_without_plans(body)
    for x, got in zip(inputs, outs):
        want = (x.astype(DTYPES[src_dt]) if src_dt == dst_dt else
                _cast_ref(_stored(x, DTYPES[src_dt]), DTYPES[dst_dt]))
        assert np.array_equal(got, want)


def test_load_and_broadcast_to_compose_as_before():
    """nl.load and nl.broadcast_to (one block and several) give the values and events they gave without
    plans; the broadcast row reaches every partition."""
    rows = np.random.default_rng(0).standard_normal((2, 700)).astype(np.float32)

    def body(r):
        hbm = _tile((2, 700), np.float32, rows, nl.shared_hbm)
        outs = []
        for f in (16, 16, 512, 700):
            row = nl.load(hbm[1:2, 0:f])
            outs.append(nl.broadcast_to(row, (128, f)).numpy())
        return outs

    outs = _same_with_and_without_plans(body)
    for f, got in zip((16, 16, 512, 700), outs):
        assert np.array_equal(got, np.broadcast_to(rows[1:2, :f], (128, f)))


# --------------------------------------------------------------------------- a changed key field misses

def _plans_added(call):
    before = {n: len(getattr(m, n)) for m, n in TABLES}
    call()
    return {n for m, n in TABLES if len(getattr(m, n)) > before[n]}


def test_a_changed_key_field_misses_the_plan(run):
    a, b = _tile((32, 8), np.float32, np.ones((32, 8))), _tile((32, 8), np.float32, np.ones((32, 8)))
    for m, n in TABLES:
        getattr(m, n).clear()
    assert "_TT_PLANS" in _plans_added(lambda: nisa.tensor_tensor(_tile((32, 8), np.float32), a, b, nl.add))
    assert not _plans_added(lambda: nisa.tensor_tensor(_tile((32, 8), np.float32), a, b, nl.add))
    changes = [
        lambda: nisa.tensor_tensor(_tile((32, 8), np.float32), a, b, nl.multiply),            # op
        lambda: nisa.tensor_tensor(_tile((32, 8), ml_dtypes.bfloat16), a, b, nl.add),        # dst dtype
        lambda: nisa.tensor_tensor(_tile((32, 8), np.float32), a, b, nl.add,                 # engine
                                   engine=nisa.engine.gpsimd),
        lambda: nisa.tensor_tensor(_tile((32, 8), np.float32, buffer=nl.psum), a, b, nl.add),   # buffer
        lambda: nisa.tensor_tensor(_tile((32, 4), np.float32), a[:, 0:4], b[:, 0:4], nl.add),      # shape
        lambda: nisa.tensor_tensor(_tile((32, 4), np.float32), a[:, 0:8:2], b[:, 0:4], nl.add),    # strides
    ]
    for change in changes:
        assert "_TT_PLANS" in _plans_added(change)
    # memset: the value's type and the sign of zero are part of the key
    d = _tile((32, 8), np.float32)
    for v in (0.0, -0.0, np.float32(0.0), 0, 1, 1.0, True):
        assert "_MEMSET_PLANS" in _plans_added(lambda: nisa.memset(d, v))
        assert np.array_equal(d.numpy(), np.full((32, 8), v, np.float32))
        assert np.signbit(d.numpy()).all() == (math.copysign(1.0, v) < 0)


def test_changed_flags_and_constants_miss_the_other_ops_plans(run):
    for m, n in TABLES:
        getattr(m, n).clear()
    x = _tile((32, 8), np.float32, np.full((32, 8), 2.0))
    d = _tile((32, 8), np.float32)
    # activation: scale 0.0 and -0.0 are different plans (copy(2 * -0.0) is -0.0)
    for sc in (0.0, -0.0):
        assert "_ACT_PLANS" in _plans_added(lambda: nisa.activation(d, nl.copy, x, scale=sc))
        assert np.signbit(d.numpy()).all() == (sc == 0 and math.copysign(1.0, sc) < 0)
    # tensor_tensor_scan: initial 0.0 and -0.0 (res = 0 * init + (-0.0) keeps init's sign)
    nz = _tile((32, 8), np.float32, np.full((32, 8), -0.0))
    zeros = _tile((32, 8), np.float32, np.zeros((32, 8)))
    for init in (0.0, -0.0):
        assert "_SCAN_PLANS" in _plans_added(
            lambda: nisa.tensor_tensor_scan(d, zeros, nz, init, nl.multiply, nl.add))
        assert np.signbit(d.numpy()[:, 0]).all() == (math.copysign(1.0, init) < 0)
    # tensor_copy's engine, dma_copy's dst dtype, nc_matmul's accumulate flag
    assert "_COPY_PLANS" in _plans_added(lambda: nisa.tensor_copy(d, x, engine=nisa.engine.gpsimd))
    hbm = _tile((32, 8), np.float32, np.full((32, 8), 2.5), nl.shared_hbm)
    assert "_DMA_PLANS" in _plans_added(lambda: nisa.dma_copy(dst=_tile((32, 8), np.float32), src=hbm))
    i32 = _tile((32, 8), np.int32)
    assert "_DMA_PLANS" in _plans_added(lambda: nisa.dma_copy(dst=i32, src=hbm))
    assert (i32.numpy() == 2).all()             # 2.5 rounds to even
    ps = _tile((32, 8), np.float32, buffer=nl.psum)
    one = _tile((32, 32), np.float32, np.eye(32))
    for acc in (None, False, True):
        assert "_MM_PLANS" in _plans_added(lambda: nisa.nc_matmul(ps, one, x, accumulate=acc))
    assert (ps.numpy() == 4.0).all()            # None overwrote, False overwrote, True added


def test_the_chip_is_part_of_the_key():
    for m, n in TABLES:
        getattr(m, n).clear()
    events = []
    for target in ("trn1", "trn2", "trn1"):
        with run_context(target) as r:
            a = _tile((128, 512), np.float32, np.ones((128, 512)))
            nisa.tensor_copy(_tile((128, 512), np.float32), a)
            events.append(r.trace.events[-1].cycles)
    assert len(nisa._COPY_PLANS) == 2
    assert events[0] == events[2] != events[1]       # trn2's VectorE streams 2 fp32 per cycle


# ---------------------------------------------------------------------------------- errors stay the same

def _error(call):
    with pytest.raises(ConstraintError) as e:
        call()
    return str(e.value)


@pytest.mark.parametrize("case", ["partitions", "int_memset", "size", "psum_both", "mm_dtype", "scalar_bias",
                                  "scan_op"])
def test_an_invalid_call_raises_the_general_error_every_time(case):
    def body(r):
        a = _tile((32, 8), np.float32, np.ones((32, 8)))
        calls = {
            "partitions": lambda: nisa.tensor_tensor(_tile((64, 8), np.float32), a, a, nl.add),
            "int_memset": lambda: nisa.memset(_tile((32, 8), np.int32), 2.0),
            "size": lambda: nisa.dma_copy(dst=_tile((32, 4), np.float32), src=a),
            "psum_both": lambda: nisa.tensor_tensor(_tile((32, 8), np.float32),
                                                    _tile((32, 8), np.float32, np.ones((32, 8)), nl.psum),
                                                    _tile((32, 8), np.float32, np.ones((32, 8)), nl.psum), nl.add),
            "mm_dtype": lambda: nisa.nc_matmul(_tile((8, 8), ml_dtypes.bfloat16, buffer=nl.psum), a, a),
            "scalar_bias": lambda: nisa.activation(_tile((32, 8), np.float32), nl.exp, a, bias=0.5),
            "scan_op": lambda: nisa.tensor_tensor_scan(_tile((32, 8), np.float32), a, a, 0.0, nl.divide, nl.add),
        }
        msgs = [_error(calls[case]) for _ in range(3)]
        assert len(set(msgs)) == 1
        return msgs[0]

    target = "trn1" if case == "scalar_bias" else "trn2"
    general = _run(body, plans=False, target=target)
    planned = _run(body, plans=True, target=target)
    assert planned == general


def test_per_call_checks_still_run_on_a_plan_hit():
    """What a plan leaves to each call: a view's start partition and PSUM bank (same geometry, another
    place) and the 0/1 flags' values."""
    def body(r):
        msgs = []
        big = _tile((128, 8), np.float32, np.ones((128, 8)))
        nisa.tensor_copy(_tile((32, 8), np.float32), big[0:32])          # accepted: a plan
        msgs.append(_error(lambda: nisa.tensor_copy(_tile((32, 8), np.float32), big[16:48])))
        wide = _tile((4, 1024), np.float32, np.ones((4, 1024)), nl.psum)     # two PSUM banks
        nisa.tensor_copy(_tile((4, 512), np.float32), wide[:, 0:512])        # accepted: one bank
        msgs.append(_error(lambda: nisa.tensor_copy(_tile((4, 512), np.float32), wide[:, 256:768])))
        ones, vals = _tile((4, 4), np.float32, np.ones((4, 4))), _tile((4, 4), np.float32, np.full((4, 4), 2.0))
        ps = _tile((4, 4), np.float32, buffer=nl.psum)
        nisa.nc_matmul(ps, ones, ones, is_moving_onezero=True)
        msgs.append(_error(lambda: nisa.nc_matmul(ps, ones, vals, is_moving_onezero=True)))
        return msgs

    general = _run(body, plans=False)
    planned = _run(body, plans=True)
    assert planned == general
    assert "a tile of 1..32 partitions starts at partition 0, 32, 64 or 96" in planned[0][0]
    assert "lies inside one 2048-byte bank" in planned[0][1]
    assert "only 0 and 1" in planned[0][2]


def test_a_dead_tile_is_reported_on_a_plan_hit():
    """A compiled loop's tile used after its iteration: the scope error, with the variable's name, after
    the same geometry was planned inside the loop."""
    def body(r):
        kept = []
        for i in nl.dynamic_range(2):
            t = _tile((32, 8), np.float32, np.ones((32, 8)))
            nisa.tensor_copy(_tile((32, 8), np.float32), t)
            nisa.dma_copy(dst=_tile((32, 8), np.float32), src=t)
            kept.append(t)
        old = kept[0]
        return [_error(lambda: nisa.tensor_copy(_tile((32, 8), np.float32), old)),
                _error(lambda: nisa.dma_copy(dst=_tile((32, 8), np.float32), src=old))]

    general = _run(body, plans=False)
    planned = _run(body, plans=True)
    assert planned == general


def test_warnings_point_where_they_did():
    """Reads of never-written bytes and out-of-range activation inputs on plan hits warn with the same
    message, file and line as on the general path."""
    def body(r):
        for _ in range(3):
            a, b = _tile((32, 8), np.float32), _tile((32, 8), np.float32)      # never written
            nisa.tensor_tensor(_tile((32, 8), np.float32), a, b, nl.add)
            s = _tile((32, 1), np.float32)
            nisa.activation(_tile((32, 8), np.float32), nl.exp, a, scale=s)
            x = _tile((32, 8), np.float32, np.full((32, 8), 5.0))
            nisa.activation(_tile((32, 8), np.float32), nl.sin, x)
        return []

    general = _run(body, plans=False)
    planned = _run(body, plans=True)
    assert planned == general
    kinds = {w[0].__name__ for w in planned[2]}
    assert kinds == {"UninitializedReadWarning", "ActivationRangeWarning"}
    assert all(w[2] == __file__ for w in planned[2] if w[0].__name__ == "ActivationRangeWarning")
