"""The C route's marshalling, every argument kind: a kernel generated from api_table calls each of the 137
forwarded okk functions once with distinctive values (negative and extreme ints, unsigned maxima, float
bit patterns incl. NaN payloads and -0.0, x32/x16/x8 unions, NULL and non-NULL struct pointers, both sides
of the *_or_addr_t unions); recording Python functions stand in for npusim.okk's and must see exactly
the values C passed, at the right .c line; return values and out-dim4s must reach C unchanged. Plus the
shim's object cache: a value differing in any field is a new object, the cache emptying itself mid-run
loses nothing, and an error while building an object stops the kernel with that error."""
import ctypes
import math
import os
import struct

import numpy as np
import pytest

from npusim import okk
from npusim.core.errors import ConstraintError
from npusim.core.timeline import SOURCE_OVERRIDE
from npusim.okk.c import CompileError, bridge, find_compiler
from npusim.okk.c.api_table import C_ONLY, FUNCTIONS, arguments

try:
    find_compiler()
except CompileError as e:
    pytest.skip(f"no C compiler: {e}", allow_module_level=True)

INT_MIN, INT_MAX = -2 ** 31, 2 ** 31 - 1
LOCAL_END = 64 * 0x80000 - 1               # the last local address (64 NPUs x 512 KiB)
FLOAT_BITS = [0x7FC00001, 0x80000000, 0x00000001, 0xFF800000, 0x3FC00000, 0xFFC12345, 0x00000000, 0x7F7FFFFF]
FORWARDED = [f for f in FUNCTIONS if f[0] not in C_ONLY]


def f32(bits: int) -> float:
    return struct.unpack("<f", struct.pack("<I", bits))[0]


def bits_of(x: float) -> int:
    return int(np.array([x], np.float32).view(np.uint32)[0])


class Expect:
    """What the Python side must receive for argument ``s`` (a running number) of C type ``t``."""

    @classmethod
    def value(cls, t: str, s: int, occurrence: int):
        """(C expression, the expected Python value or a checker); every second pointer of a type is NULL."""
        null = occurrence % 2 == 1
        if t in ("int",):
            v = -(s * 7919 + 1) if s % 2 else INT_MAX - s
            return f"({v})", v
        if t in ("unsigned int", "local_addr_t"):
            return f"{0xFFFFFFFF - s}u", 0xFFFFFFFF - s
        if t in ("unsigned long long", "system_addr_t"):
            return f"{2 ** 64 - 1 - s}ull", 2 ** 64 - 1 - s
        if t == "short":
            return f"(short)({-32768 + s})", -32768 + s
        if t == "unsigned short":
            return f"(unsigned short){65535 - s}", 65535 - s
        if t == "bool":
            return ("true", True) if s % 2 else ("false", False)
        if t == "float":
            b = FLOAT_BITS[s % len(FLOAT_BITS)]
            return f"test_f(0x{b:08X}u)", ("float", b)
        if t == "x32":
            b = FLOAT_BITS[s % len(FLOAT_BITS)] ^ s
            return f"(x32){{.u32 = 0x{b:08X}u}}", b
        if t == "x16":
            return f"(x16){{.u16 = {0xFFF0 | s % 16}}}", 0xFFF0 | s % 16
        if t == "x8":
            return f"(x8){{.u8 = {0xF0 | s % 16}}}", 0xF0 | s % 16
        if t in ("op_type_t", "mul_type_t"):
            return f"({t}){s % 32}", s % 32
        if t == "void *":
            return ("NULL", None) if null else (f"(void *)(uintptr_t){0x1000 + s}", 0x1000 + s)
        if null and t.startswith("const "):
            return "NULL", None
        if t == "const dim4 *":
            v = (-s, INT_MAX - s, INT_MIN + s, 3 * s)
            return "&(dim4){%d, %d, %d, %d}" % v, okk.dim4(*v)
        if t == "const dim2 *":
            v = (INT_MIN + s, -s - 1)
            return "&(dim2){%d, %d}" % v, okk.dim2(*v)
        if t == "const Padding *":
            v = (s, -s, INT_MAX, INT_MIN + 2 * s)
            return "&(Padding){%d, %d, %d, %d}" % v, okk.Padding(*v)
        if t in ("const fp32_or_addr_t *", "const x32_or_addr_t *"):
            b = FLOAT_BITS[s % len(FLOAT_BITS)]
            if s % 2:
                return (f"&({t[6:-2]}){{.is_addr = true, .context.addr = {LOCAL_END - s}u}}",
                        ("addr", LOCAL_END - s))
            member = ".context.val = test_f(0x%08Xu)" if t[6] == "f" else ".context.val.u32 = 0x%08Xu"
            return f"&({t[6:-2]}){{.is_addr = false, {member % b}}}", ("val", b)
        raise AssertionError(f"no test value for {t}")

    @staticmethod
    def result(ret: str, k: int):
        """(the value the recording function returns, what C must store)."""
        if ret == "bool":
            return k % 2 == 1, k % 2
        if ret == "int":
            return -k - 5, (-k - 5) % 2 ** 64
        if ret == "unsigned int":
            return 0xFFFFFFFF - k, 0xFFFFFFFF - k
        if ret == "unsigned long long":
            return 2 ** 64 - 1 - k, 2 ** 64 - 1 - k
        if ret == "unsigned char *":
            return 0xDEAD0000 + k, 0xDEAD0000 + k
        raise AssertionError(ret)


def out_dim4(k: int):
    return (k, -k, INT_MAX - k, INT_MIN + k)


def kernel_source() -> tuple[str, dict[int, int], dict[int, dict]]:
    """The C kernel, the .c line of each function's call, and the expected arguments by function index."""
    lines = ['#include "okk.h"', "#include <stdint.h>", "#include <string.h>",
             "unsigned long long test_results[%d];" % (5 * len(FORWARDED)),
             "static float test_f(unsigned int b) { float f; memcpy(&f, &b, 4); return f; }",
             "void every_function(const void *args) {", "    dim4 out;"]
    where, expected, seen = {}, {}, {}
    s = 0
    for k, (name, ret, args) in enumerate(FORWARDED):
        exprs, want = [], []
        for t, n in arguments(args):
            if t == "dim4 *":
                exprs.append("&out")
                want.append("out")
                continue
            seen[t] = seen.get(t, -1) + 1
            e, v = Expect.value(t, s, seen[t])
            exprs.append(e)
            want.append(v)
            s += 1
        call = f"{name}({', '.join(exprs)})"
        if ret != "void":
            call = f"test_results[{k}] = (unsigned long long)(uintptr_t){call}"
        lines.append("    memset(&out, 0x5A, sizeof out);")
        where[k] = len(lines) + 1
        lines.append(f"    {call};")
        if "out" in want:
            lines.append(f"    memcpy(&test_results[{len(FORWARDED)} + 4 * {k}], &out, sizeof out);")
        expected[k] = want
    lines += ["}", "OKKERNEL_FUNC_REGISTER(every_function);", ""]
    return "\n".join(lines), where, expected


def install_recorder(k, monkeypatch, record, failing=(), real=()):
    """Fill kernel library ``k`` with callbacks whose Python functions record their arguments (those named
    in ``real`` stay npusim's)."""
    index = {name: i for i, (name, _, _) in enumerate(FORWARDED)}
    python_function = bridge.python_function

    def fake(name):
        if name in real:
            return python_function(name)
        i, ret = index[name], FORWARDED[index[name]][1]
        outs = [j for j, (t, _) in enumerate(arguments(FORWARDED[i][2])) if t == "dim4 *"]

        def f(*a):
            record.append((name, a, SOURCE_OVERRIDE[-1]))
            if name in failing:
                raise failing[name]
            for j in outs:                       # a stride helper fills its fresh out-dim4
                a[j].n, a[j].c, a[j].h, a[j].w = out_dim4(i)
            return Expect.result(ret, i)[0] if ret != "void" else None
        return f
    monkeypatch.setattr(bridge, "python_function", fake)
    cls, table, keep = bridge.callback_struct()
    ctypes.memmove(ctypes.addressof(cls.in_dll(k.lib, "okk_callbacks")), ctypes.addressof(table),
                   ctypes.sizeof(cls))
    return keep


def check(got, want, where):
    if want is None:
        assert got is None, where
    elif isinstance(want, tuple) and want[0] == "float":
        assert type(got) is float and bits_of(got) == want[1], (where, got)
        if want[1] == 0x80000000:
            assert got == 0 and math.copysign(1, got) < 0, where
    elif isinstance(want, tuple) and want[0] in ("addr", "val"):
        assert got.is_addr == (want[0] == "addr"), where
        if want[0] == "addr":
            assert got.addr == want[1] and got.val is None, where
        elif type(got) is okk.fp32_or_addr_t:
            assert bits_of(got.val) == want[1] and got.bits == want[1], where
        else:
            assert got.val == want[1] and got.bits == want[1], where
    else:
        assert type(got) is type(want) and got == want, (where, got, want)


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    src, where, expected = kernel_source()
    path = tmp_path_factory.mktemp("marshal") / "every_function.c"
    path.write_text(src)
    return okk.load_c(str(path)), where, expected


def test_every_function_receives_exactly_what_c_passed(generated, monkeypatch):
    k, where, expected = generated
    record = []
    keep = install_recorder(k, monkeypatch, record)
    with okk.Device():
        r = k.run("every_function")
    assert [name for name, _, _ in record] == [name for name, _, _ in FORWARDED]
    assert list(r.calls) == [name for name, _, _ in FORWARDED] and set(r.calls.values()) == {1}
    results = (ctypes.c_ulonglong * (5 * len(FORWARDED))).in_dll(k.lib, "test_results")
    for i, ((name, args, source), (_, ret, _)) in enumerate(zip(record, FORWARDED)):
        assert source == f"every_function.c:{where[i]}", name
        assert len(args) == len(expected[i]), name
        for j, (got, want) in enumerate(zip(args, expected[i])):
            if want == "out":
                assert type(got) is okk.dim4, name
                at = 8 * (len(FORWARDED) + 4 * i)
                assert bytes(results)[at:at + 16] == struct.pack("<4i", *out_dim4(i)), name
            else:
                check(got, want, f"{name} argument {j}")
        if ret != "void":
            assert results[i] == Expect.result(ret, i)[1], name
    del keep


def test_every_kind_has_a_null_and_a_value(generated):
    _, _, expected = generated
    kinds = {}
    for (name, ret, args), want in zip(FORWARDED, expected.values()):
        for (t, _), w in zip(arguments(args), want):
            kinds.setdefault(t, set()).add(w is None)
    for t in ("const dim4 *", "const dim2 *", "const Padding *", "const fp32_or_addr_t *",
              "const x32_or_addr_t *", "void *"):
        assert kinds[t] == {True, False}, t


CACHE = r"""
#include "okk.h"
typedef struct { int n; } __attribute__((packed)) param_t;
void cache(const void *args) {
    int n = ((const param_t *)args)->n;
    fp32_or_addr_t a = {.is_addr = false, .context.val = 1.5f}, b;
    memset(&b, 0x77, sizeof b);              /* padding bytes differ, the value does not */
    b.is_addr = false;
    b.context.val = 1.5f;
    okk_bdc_relu(0, 0, &(dim4){1, 2, 3, 4}, &(dim4){1, 2, 3, 4}, &(dim4){1, 2, 3, 5});
    okk_bdc_conv2d(0, 0, 0, 0, &(dim4){1, 2, 3, 4}, 1, 1, 1, NULL, NULL, false, false,
                   &(Padding){1, 2, 3, 4}, &(dim2){1, 2}, &(dim2){1, 2});
    okk_bdc_greater_select(0, &a, &b, &(x32_or_addr_t){.is_addr = true, .context.addr = 0x1FC0000u},
                           &(x32_or_addr_t){.is_addr = false, .context.val.u32 = 0x3FC00000u}, NULL);
    for (int i = 0; i < n; i++)
        okk_bdc_relu(0, 0, &(dim4){i, -i, i >> 3, 7}, NULL, NULL);
    okk_bdc_relu(0, 0, &(dim4){1, 2, 3, 4}, NULL, NULL);
}
OKKERNEL_FUNC_REGISTER(cache);

/* Values that differ from each other in exactly one field (one byte for the unions): with thousands of them
   in the cache, a key that missed a field or byte would hand back a wrong object. */
void sweep(const void *args) {
    int n = ((const param_t *)args)->n;
    for (int i = 0; i < n; i++) {
        int f = i & 3, v = i >> 2;
        dim4 d = {7, 7, 7, 7};
        Padding p = {7, 7, 7, 7};
        dim2 e = {7, 7};
        fp32_or_addr_t a = {.is_addr = false};
        x32_or_addr_t x = {.is_addr = true};
        ((int *)&d)[f] = v;
        ((int *)&p)[f] = -v;
        ((int *)&e)[f & 1] = v;
        a.context.addr = 0x3F800000u ^ ((unsigned)(v & 0xFF) << (8 * f));
        x.context.addr = (unsigned)(v & 0xFF) << (8 * (f % 3));
        okk_bdc_greater_select(0, &a, &a, &x, &x, &d);
        okk_bdc_avg_pool2d(0, 0, &d, 1, 1, &p, &e);
    }
}
OKKERNEL_FUNC_REGISTER(sweep);

/* A dim4 the kernel builds in DTCM through a pointer, w never written: the instruction sees it after
   the pointer window is settled (its untouched canary bytes back to 0), as a C store is seen first. */
void watched(const void *args) {
    dim4 *d = (dim4 *)okk_dtcm_addr(okk_dtcm_start_addr());
    d->n = 2;
    d->c = 64;
    d->h = 3;
    okk_bdc_relu(0, 0, d, NULL, NULL);
    d->w = 5;
    okk_bdc_relu(0, 0, d, NULL, NULL);
}
OKKERNEL_FUNC_REGISTER(watched);

void bad_addr(const void *args) {
    okk_bdc_equal_select(0, NULL, NULL, &(x32_or_addr_t){.is_addr = true, .context.addr = 0xFFFFFFF0u}, NULL, NULL);
    okk_bdc_relu(0, 0, NULL, NULL, NULL);
}
OKKERNEL_FUNC_REGISTER(bad_addr);
"""


@pytest.fixture(scope="module")
def cache_kernel(tmp_path_factory):
    path = tmp_path_factory.mktemp("marshal") / "cache.c"
    path.write_text("#include <string.h>\n" + CACHE)
    return okk.load_c(str(path))


def test_cache_keys_on_every_field_and_survives_emptying(cache_kernel, monkeypatch):
    record = []
    keep = install_recorder(cache_kernel, monkeypatch, record)
    n = 5000                                   # more distinct values than the cache holds before emptying
    with okk.Device():
        cache_kernel.run("cache", dict(n=n))
    (_, relu, _), (_, conv, _), (_, sel, _) = record[:3]
    assert relu[2:] == (okk.dim4(1, 2, 3, 4), okk.dim4(1, 2, 3, 4), okk.dim4(1, 2, 3, 5))
    assert relu[2] is relu[3] and relu[3] is not relu[4]           # same value: one object; w differs: not
    assert conv[4] == okk.dim4(1, 2, 3, 4) and conv[4] is relu[2]
    assert conv[12] == okk.Padding(1, 2, 3, 4) and type(conv[12]) is okk.Padding   # same ints, other kind
    assert conv[13] == conv[14] == okk.dim2(1, 2) and type(conv[13]) is okk.dim2
    assert sel[1] is sel[2] and sel[1].val == 1.5                   # padding bytes are not part of the value
    assert sel[3].is_addr and sel[3].addr == 0x1FC0000 and not sel[4].is_addr and sel[4].bits == 0x3FC00000
    loop = record[3:3 + n]
    assert [a[2] for _, a, _ in loop] == [okk.dim4(i, -i, i >> 3, 7) for i in range(n)]
    assert all(a[3] is None and a[4] is None for _, a, _ in loop)
    assert len({src for _, _, src in loop}) == 1 and record[-1][1][2] == okk.dim4(1, 2, 3, 4)
    assert bridge._objects == []                                     # a run's end lets its objects go
    del keep


def test_values_differing_in_one_field_or_byte_stay_apart(cache_kernel, monkeypatch):
    record = []
    keep = install_recorder(cache_kernel, monkeypatch, record)
    n = 8000
    with okk.Device():
        cache_kernel.run("sweep", dict(n=n))
    assert len(record) == 2 * n
    for i in range(n):
        f, v = i & 3, i >> 2
        d, p, e = [7] * 4, [7] * 4, [7] * 2
        d[f], p[f], e[f & 1] = v, -v, v
        (_, sel, _), (_, pool, _) = record[2 * i:2 * i + 2]
        assert sel[5] == okk.dim4(*d) and pool[2] == okk.dim4(*d), i
        assert pool[5] == okk.Padding(*p) and pool[6] == okk.dim2(*e), i
        assert sel[1] is sel[2] and not sel[1].is_addr, i
        assert sel[1].bits == 0x3F800000 ^ (v & 0xFF) << 8 * f, i
        assert sel[3].is_addr and sel[3].addr == (v & 0xFF) << 8 * (f % 3), i
    del keep


def test_an_error_building_an_argument_stops_the_kernel(cache_kernel, monkeypatch):
    record = []
    keep = install_recorder(cache_kernel, monkeypatch, record)
    boom = ConstraintError("okk_bdc_conv2d", "padding", "a test failure", 0)

    def bad_padding(p, line=0):
        raise boom
    monkeypatch.setitem(bridge._MAKE_BY_KIND, 4, bad_padding)
    with okk.Device(), pytest.raises(ConstraintError) as e:
        cache_kernel.run("cache", dict(n=3))
    assert e.value is boom and [name for name, _, _ in record] == ["okk_bdc_relu"]
    assert bridge.SHARED.failed == 0
    del keep


def test_struct_arguments_are_read_after_pointer_stores_are_settled(cache_kernel, monkeypatch):
    record = []
    keep = install_recorder(cache_kernel, monkeypatch, record,
                            real=("okk_dtcm_addr", "okk_dtcm_start_addr", "okk_initialize", "okk_poll"))
    with okk.Device():
        cache_kernel.run("watched")
    assert [a[2] for name, a, _ in record if name == "okk_bdc_relu"] == [okk.dim4(2, 64, 3, 0), okk.dim4(2, 64, 3, 5)]
    del keep


def test_an_invalid_union_address_is_the_python_error(cache_kernel, monkeypatch):
    record = []
    keep = install_recorder(cache_kernel, monkeypatch, record)
    with pytest.raises(ConstraintError) as want:
        okk.x32_or_addr_t(True, addr=0xFFFFFFF0)
    with okk.Device(), pytest.raises(ConstraintError) as e:
        cache_kernel.run("bad_addr")
    assert str(e.value) == str(want.value) and record == []
    del keep


@pytest.mark.parametrize("failing", ["okk_npu_num", "okk_compact_stride", "okk_bdc_relu"])
def test_an_error_in_any_kind_of_call_comes_back_and_stops(generated, monkeypatch, failing):
    k, where, _ = generated
    record = []
    boom = ConstraintError(failing, "x", "a test failure", 1)
    keep = install_recorder(k, monkeypatch, record, failing={failing: boom})
    with okk.Device(), pytest.raises(ConstraintError) as e:
        k.run("every_function")
    names = [n for n, _, _ in FORWARDED]
    assert e.value is boom and [n for n, _, _ in record] == names[:names.index(failing) + 1]
    assert bridge.SHARED.failed == 0
    del keep
