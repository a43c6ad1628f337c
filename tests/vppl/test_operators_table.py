"""Every row of the semantics table, run in extended mode on random data, against an independent
reference written here with Python integers; and every row's GEN.2 flag enforced in gen2 mode."""
import bisect
import zlib

import numpy as np
import pytest

from npusim import ConstraintError, vppl
from npusim.vppl.semantics import INT, OUT, ROWS, VEC, WORK

N = 64                      # elements; i16[64] = two 512-bit registers


def bits_of(dt):
    return np.dtype(dt).itemsize * 8


def as_signed(u, bits):
    u &= (1 << bits) - 1
    return u - (1 << bits) if u >> (bits - 1) else u


def fit(v, dt, saturate):
    """An exact integer into dtype dt: clip or wrap (the reference's own arithmetic)."""
    info = np.iinfo(dt)
    if saturate:
        return max(info.min, min(info.max, v))
    return as_signed(v, bits_of(dt)) if info.min < 0 else v & info.max


def low(v, dt):
    return fit(v, dt, False)


def rand_vals(rng, dt, n):
    info = np.iinfo(dt)
    edge = [info.min, info.max, 0, 1]
    vals = rng.integers(info.min, int(info.max) + 1, n, dtype=np.int64).tolist()
    vals[:4] = edge
    return vals


def vec(dt, vals, name=None, alloc=False):
    v = vppl.Vector(np.dtype(dt), len(vals), vals, name=name)
    v.allocated = alloc
    return v


def reference(row, dt, t0, args):
    """(expected target list or None, {arg index: expected value})."""
    b = row.base
    sat = row.overflow.startswith("saturate")
    if b in ("zeros", "clear"):
        return [0] * len(t0), {}
    if b == "ones":
        return [1] * len(t0), {}
    if b == "abs":
        sdt = np.dtype(f"i{dt.itemsize}")
        return [low(abs(as_signed(x, bits_of(dt))), dt) for x in t0], {}
    if b == "bit_not":
        return [low(~x, dt) for x in t0], {}
    if b in ("min", "max"):
        f = min if b == "min" else max
        return [f(x, y) for x, y in zip(t0, args[0])], {}
    ops = {"add": lambda x, y: x + y, "sub": lambda x, y: x - y, "mul": lambda x, y: x * y}
    if b in ops:
        return [fit(ops[b](x, y), dt, sat) for x, y in zip(t0, args[0])], {}
    if b in ("e_add", "e_sub", "e_mul"):
        s = low(args[1], dt)
        return [fit(ops[b[2:]](x, s), dt, sat) for x in t0], {0: [s] * len(args[0])}
    if b == "e_set":
        return [low(args[0], dt)] * len(t0), {}
    if b.startswith("element_shift"):
        n, w = args[0], bits_of(dt)
        u = [x & ((1 << w) - 1) for x in t0]
        r = [(x << n) if b.endswith("left") else (x >> n) for x in u]
        return [low(x, dt) for x in r], {}
    if b in ("shift_up", "shift_down"):
        v1, v2, n = args
        return None, {"bytes": (b, v1, v2, n)}
    if b == "convert":
        return [fit(x, dt, True) for x in args[0]], {}
    if b == "filter_sub":
        v, f = args
        return [fit(x + (v[i] * f if i < len(v) else 0), dt, False) for i, x in enumerate(t0)], {}
    if b == "sum":
        s = sum(args[0])
        return None, {1: fit(s, np.int32, True) if sat else as_signed(s, 32)}
    if b == "prod":
        s = sum(x * y for x, y in zip(args[0], args[1]))
        return None, {2: fit(s, np.int32, True) if sat else as_signed(s, 32)}
    if b == "r_max":
        return None, {1: as_signed(max(args[0]), 32)}
    if b == "r_min":
        return None, {1: as_signed(min(args[0]), 32)}
    if b == "countIf":
        return None, {2: sum(1 for x in args[0] if x == low(args[1], dt))}
    if b == "countOver":
        return None, {2: sum(1 for x in args[0] if x > low(args[1], dt))}
    if b == "countUnder":
        return None, {2: sum(1 for x in args[0] if x < low(args[1], dt))}
    raise KeyError(b)


GENERIC = [r for r in ROWS if r.group != "element"]


@pytest.mark.parametrize("row", GENERIC, ids=[r.name for r in GENERIC])
def test_row_matches_reference(row):
    rng = np.random.default_rng(zlib.crc32(row.name.encode()))
    dt = row.dt if row.dt is not None else np.dtype(np.int16)
    n = N
    if row.base == "filter_sub":
        t_vals = rand_vals(rng, dt, n + 64)
    else:
        t_vals = rand_vals(rng, dt, n)
    target = vec(dt, t_vals, "t", alloc=row.group == "reduction")
    args, plain = [], []
    for i, (pname, kind) in enumerate(row.params):
        if kind == VEC:
            adt = row.src_dt if row.base == "convert" else dt
            vals = rand_vals(rng, adt, n)
            args.append(vec(adt, vals, pname))
            plain.append(vals)
        elif kind == WORK:
            args.append(vppl.Vector(np.dtype(dt), n, 0, name="work"))
            plain.append([0] * n)
        elif kind == INT:
            if pname == "amount":
                s = int(rng.integers(0, 256 if row.base.startswith("shift") else bits_of(dt) + 2))
            elif pname == "value" and row.base.startswith("count"):
                s = int(plain[0][int(rng.integers(0, n))])       # a value that occurs
            else:
                s = int(rng.integers(-40000, 40000))
            args.append(vppl.Integer(s) if i % 2 else s)
            plain.append(s)
        elif kind == OUT:
            args.append(vppl.Integer(12345))
            plain.append(None)
    if row.base == "convert":
        target = vec(dt, rand_vals(rng, dt, n), "t")
    t0 = list(t_vals) if row.base != "convert" else target.tolist()
    with vppl.mode("extended") as m:
        assert getattr(target, row.pyname)(*args) is target
    ev = m.timeline.trace.events
    assert len(ev) == 1 and ev[0].name == row.name and ev[0].cycles >= 2     # one event, issue + work
    want_t, want_args = reference(row, dt, t0, plain)
    if "bytes" in want_args:
        b, v1, v2, s = want_args["bytes"]
        nb = n * dt.itemsize
        i1 = int.from_bytes(np.array(v1, dt).tobytes(), "little")
        i2 = int.from_bytes(np.array(v2, dt).tobytes(), "little")
        if b == "shift_up":
            r = (((i1 << (8 * nb)) | i2) << s) >> (8 * nb)
        else:
            r = ((i2 << (8 * nb)) | i1) >> s
        r &= (1 << (8 * nb)) - 1
        assert np.asarray(target).tobytes() == r.to_bytes(nb, "little")
        return
    if want_t is not None:
        assert np.asarray(target).tolist() == want_t
    for i, v in want_args.items():
        got = args[i]
        assert (np.asarray(got).tolist() if isinstance(got, vppl.Vector) else int(got)) == v, (row.name, i)
    if row.group == "reduction":
        assert not target.valid                      # the work area is clobbered


@pytest.mark.parametrize("row", ROWS, ids=[r.name for r in ROWS])
def test_gen2_flag_is_enforced(row):
    """In gen2 mode a row runs iff the table marks it GEN.2; the error names the suffix."""
    t = vppl.alloc_vector("t", "__I16V", 32)
    if row.gen2:
        return
    with pytest.raises(ConstraintError) as e:
        getattr(t, row.pyname)(*([None] * len(row.params)))
    assert e.value.param == "suffix" and e.value.api == row.name


def test_gen2_rows_are_the_seeds():
    gen2 = sorted(r.name for r in ROWS if r.gen2 and r.suffix)
    assert gen2 == sorted([
        "ones$B", "ones$W", "ones$L", "abs$B", "min$UB", "min$IW", "max$UB", "max$IW", "add$UW", "e_add$UW",
        "sub$IW", "e_sub$IW", "mul$IW", "e_mul$IW", "e_set$B", "e_set$W", "e_set$L", "element_shift_left$W",
        "element_shift_right$B", "element_shift_right$W", "convert$UB2UW", "convert$IW2IB", "sum$IW",
        "prod$IW", "r_max$IW", "r_min$IW", "countIf$W", "countOver$UW", "countUnder$UW"])


# ---------------------------------------------------------------- element operators

def test_ins_sort_keeps_ascending_keys_with_payload_and_drops_the_tail():
    t = vppl.alloc_vector("list", "__I32V", 4)            # 4 slots of 32 bits
    t.init_ins_sort()
    end = vppl.Integer()
    ref = []
    for key, idx in [(50, 1), (10, 2), (50, 3), (30, 4), (5, 5), (60, 6)]:
        t.ins_sort((idx << 16) | key, 0, end)
        bisect.insort_right(ref, (key, len(ref)), key=lambda p: p[0])
        n_before = min(len(ref) - 1, 4)
        assert end.value == n_before + 1
        ref = ref[:4]
    got = np.asarray(t).view(np.uint32)
    assert [int(x) & 0xFFFF for x in got] == [5, 10, 30, 50]
    assert [int(x) >> 16 for x in got] == [5, 2, 4, 1]     # stable: the first 50 (idx 1) stays first
    assert end.value == 5                                  # > length: the 60 fell off


def test_ins_sort_from_a_start_element():
    t = vppl.alloc_vector("list", "__I16V", 16)            # 8 slots
    t.init_ins_sort()
    end = vppl.Integer()
    t.ins_sort(7, 2, end)
    t.ins_sort(3, 2, end)
    w = np.asarray(t).view(np.uint32)
    assert w[:2].tolist() == [0xFFFFFFFF] * 2 and w[2:4].tolist() == [3, 7] and end == 4


def test_get_set_element_and_record_use_32_bit_units():
    t = vppl.Vector("i16", 32, 0)                          # 16 units, 2 records
    t.set_element(3, -2)
    out = vppl.Integer()
    t.get_element(3, out)
    assert out == -2
    assert np.asarray(t)[6:8].tolist() == [-2, -1]          # little-endian halves of 0xFFFFFFFE
    t.set_record(1, 5, 0x12345678)
    t.get_record(1, 5, out)
    assert out == 0x12345678
    t.get_element(13, out)
    assert out == 0x12345678


@pytest.mark.parametrize("call, param", [
    (lambda t, o: t.get_element(16, o), "index"),
    (lambda t, o: t.set_element(-1, 0), "index"),
    (lambda t, o: t.get_record(2, 0, o), "record"),
    (lambda t, o: t.set_record(0, 8, 1), "element"),
    (lambda t, o: t.ins_sort(1, 17, o), "start"),
    (lambda t, o: t.get_element(0, 5), "dest"),
])
def test_element_operators_check_their_ranges(call, param):
    t = vppl.alloc_vector("t", "__I16V", 32)
    t.e_set_W(0)
    with pytest.raises(ConstraintError) as e:
        call(t, vppl.Integer())
    assert e.value.param == param


def test_ins_sort_list_must_come_from_alloc_vector():
    t = vppl.Vector("i32", 4, 0)
    for call in (lambda: t.init_ins_sort(), lambda: t.ins_sort(1, 0, vppl.Integer())):
        with pytest.raises(ConstraintError, match="alloc_vector") as e:
            call()
        assert e.value.param == "target"


def test_element_operators_need_whole_32_bit_units():
    t = vppl.Vector("i8", 6, 0)
    with pytest.raises(ConstraintError, match="32-bit"):
        t.get_element(0, vppl.Integer())
