"""okk.load_c / CKernel.run: the plumbing of the C route (errors, sources, params, pointers, sections)."""
import ctypes
import os
import shutil

import numpy as np
import pytest

import npusim
from npusim import okk
from npusim.core.errors import ConstraintError, UninitializedReadError
from npusim.okk.c import CompileError, OkkAssertionError, ParamError, find_compiler

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "c")
G = 0x1_0000_0000


def _have_cc():
    try:
        find_compiler()
        return True
    except CompileError:
        return False


pytestmark = pytest.mark.skipif(not _have_cc(), reason="no C compiler ($CC, cc, gcc, clang): C route tests skip")


@pytest.fixture(scope="module")
def misc():
    return okk.load_c(os.path.join(HERE, "misc.c"))


@pytest.fixture(scope="module")
def relu():
    return okk.load_c(os.path.join(HERE, "relu.c"))


def _relu_python(x, out):
    okk.okk_initialize()
    shape = okk.dim4(*x.shape)
    stride = okk.okk_128_byte_aligned_stride_for_32bit(okk.dim4(), 0, shape)
    dst = shape.n * stride.n * 4
    okk.okk_gdma_32bit_cpy_S2L(0, G, shape, None, None)
    okk.okk_bdc_relu(dst, 0, shape, None, None)
    okk.okk_gdma_32bit_cpy_L2S(out, dst, shape, None, None)
    okk.okk_poll()


@pytest.mark.parametrize("shape", [(1, 64, 1, 32), (2, 70, 5, 7), (3, 130, 2, 9)])
def test_relu_matches_numpy_and_the_python_route(relu, shape):
    x = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    out = G + x.nbytes
    with okk.Device(global_mem_bytes=1 << 24) as dev:
        dev.write_system(G, x)
        r = relu.run("relu_contest", dict(N=shape[0], C=shape[1], H=shape[2], W=shape[3], output_addr=out, input_addr=G))
        y = dev.read_system(out, shape)
    with okk.Device(global_mem_bytes=1 << 24) as ref:
        ref.write_system(G, x)
        _relu_python(x, out)
    assert np.array_equal(y, np.maximum(x, 0))
    assert r.sections == [ref.total_cycles] and r.cycles == ref.total_cycles > 0
    assert [e.name for e in dev.events] == [e.name for e in ref.events]
    assert [e.cycles for e in dev.events] == [e.cycles for e in ref.events]
    assert r.calls["okk_bdc_relu"] == 1 and r.calls["okk_initialize"] == r.calls["okk_poll"] == 1


def test_event_sources_are_c_lines(relu):
    with okk.Device(global_mem_bytes=1 << 20) as dev:
        dev.write_system(G, np.zeros(64 * 32, np.float32))
        relu.run("relu_contest", dict(N=1, C=64, H=1, W=32, output_addr=G + 8192, input_addr=G))
    lines = open(os.path.join(HERE, "relu.c")).read().splitlines()
    for e in dev.events:
        name, line = e.source.split(":")
        assert name == "relu.c" and e.name + "(" in lines[int(line) - 1]
    okk.okk_initialize()      # the override is gone: Python calls get their Python source again
    with okk.Device() as d2:
        okk.okk_bdc_32bit_set_C(0, 1, okk.dim4(1, 1, 1, 1), None)
    assert d2.events[-1].source.startswith("test_c_route.py:")


def test_param_forms_agree(relu):
    p = relu.param_type()
    fields = dict(N=1, C=64, H=1, W=32, output_addr=G + 8192, input_addr=G)
    x = -np.arange(64 * 32, dtype=np.float32) + 1000
    outs = []
    for param in (fields, p(**fields), bytes(p(**fields))):
        with okk.Device(global_mem_bytes=1 << 20) as dev:
            dev.write_system(G, x)
            relu.run("relu_contest", param)
            outs.append(dev.read_system(G + 8192, x.shape))
    assert all(np.array_equal(o, np.maximum(x, 0)) for o in outs)
    with pytest.raises(ParamError, match="missing: input_addr"):
        relu.run("relu_contest", dict(N=1, C=64, H=1, W=32, output_addr=G))
    with pytest.raises(ParamError, match="param must be"):
        relu.run("relu_contest", 12)


def test_constraint_error_in_a_c_call_is_the_same_exception_and_stops_the_kernel(misc):
    with okk.Device(global_mem_bytes=1 << 20) as dev:
        with pytest.raises(ConstraintError) as info:
            misc.run("bad_call", b"\0" * 20)
        assert info.value.api == "okk_bdc_exp" and info.value.param == "dst_addr"
        assert [e.name for e in dev.events] == ["okk_bdc_32bit_set_C"]     # the third call never ran
        # the process and the library keep working
        r = misc.run("sections", b"\0" * 20)
    assert len(r.sections) == 3


def test_failed_assert_names_file_and_line(misc):
    p = misc.param_type()
    with okk.Device(global_mem_bytes=1 << 20):
        misc.run("failing_assert", p(addr=0, n=2, value=0))
        with pytest.raises(OkkAssertionError, match=r"misc\.c:\d+: failing_assert: OKKERNEL_ASSERT\(p->n < 3\) failed") as info:
            misc.run("failing_assert", p(addr=0, n=5, value=0))
    src = open(os.path.join(HERE, "misc.c")).read().splitlines()
    assert "OKKERNEL_ASSERT(p->n < 3)" in src[info.value.line - 1]


def test_log_goes_through_python(misc):
    got = []
    misc.run("logging", dict(addr=0, n=7, value=0), log=lambda s, end="": got.append(s))
    assert got == ["n=7 npu=64 lmem=524288\n"]
    got.clear()
    misc.run("logging", dict(addr=0, n=0, value=0), log=lambda s, end="": got.append(s))
    assert got[0] == "n=0 npu=64 lmem=524288\n" and "through_pointer\n" in got[1:] \
        and len(got) == 1 + len(misc.kernels)


def test_sections_are_summed(misc):
    with okk.Device(global_mem_bytes=1 << 20) as dev:
        r = misc.run("sections", b"\0" * 20)
    with okk.Device(global_mem_bytes=1 << 20) as ref:
        cyc = []
        for s in (1, 2, 3):
            okk.okk_initialize()
            okk.okk_bdc_32bit_set_C(0, 0, okk.dim4(s, 64, 1, 32), None)
            okk.okk_poll()
            cyc.append(ref.total_cycles)
    assert r.sections == cyc and r.cycles == sum(cyc) and len(set(cyc)) == 3


def test_pointer_writes_count_as_written(misc):
    n = 100
    with npusim.configure(strict=True):      # an unmarked byte would raise UninitializedReadError
        with okk.Device(global_mem_bytes=1 << 20) as dev:
            misc.run("through_pointer", dict(addr=G, n=n, value=0.0))    # all zeros: same as untouched memory
            assert np.array_equal(dev.read_system(G + 4 * n, n), np.zeros(n, np.float32))
            misc.run("through_pointer", dict(addr=G + 4096, n=n, value=1.5))
            assert np.array_equal(dev.read_system(G + 4096 + 4 * n, n), 1.5 * np.arange(n, dtype=np.float32))
            assert dev.system.init[4096 + 8 * n:4096 + 8 * n + 16].sum() == 0     # past what was stored
            assert dev.system.data[4096 + 8 * n:4096 + 8 * n + 16].sum() == 0     # canaries removed
            assert dev.read_local(1, 128, 1)[0] == 42 and dev.local.init[okk.spec.LOCAL_MEM_SIZE + 128] == 1
            assert dev._c_dtcm.data.min() == 7 and dev._c_dtcm.size == okk.spec.DTCM_SIZE


def test_unknown_entry_lists_registered(misc):
    with pytest.raises(npusim.core.errors.NpuSimError, match="registered: .*bad_call"):
        misc.run("nope")
    misc.run("plain_entry")          # a function without OKKERNEL_FUNC_REGISTER is found by its symbol
    assert set(misc.kernels) == {"bad_call", "failing_assert", "logging", "through_pointer", "sections",
                                 "no_initialize", "pointer_per_element", "flush_split", "flush_tail"}


def test_compile_error_carries_the_compiler_message():
    with pytest.raises(CompileError, match="undeclared_variable") as info:
        okk.load_c(os.path.join(HERE, "does_not_compile.c"))
    assert "does_not_compile.c" in str(info.value)


def test_cache_by_content(tmp_path, monkeypatch):
    monkeypatch.setenv("NPUSIM_CACHE", str(tmp_path))
    src = tmp_path / "k.c"
    shutil.copy(os.path.join(HERE, "relu.c"), src)
    a = okk.load_c(src).library
    assert okk.load_c(src).library == a
    assert okk.load_c(src, defines={"EXTRA": 1}).library != a
    src.write_text(src.read_text() + "\n/* changed */\n")
    assert okk.load_c(src).library != a


def test_cli_okk_run(tmp_path, capsys):
    from npusim.cli import main
    x = np.random.default_rng(3).standard_normal((2, 70, 5, 7)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    rc = main(["okk", "run", os.path.join(HERE, "relu.c"), "--entry", "relu_contest", "--param", "N=2", "--param",
               "C=70", "--param", "H=5", "--param", "W=7", "--input", f"input_addr={tmp_path / 'x.npy'}",
               "--output", "output_addr=2,70,5,7", "--save", f"output_addr={tmp_path / 'y.npy'}",
               "--trace", str(tmp_path / "t.json")])
    out = capsys.readouterr().out
    assert rc == 0 and "relu_contest: 928 Sophgo cycles in 1 section(s)" in out and "okk_bdc_relu" in out
    assert "top source lines" in out and "relu.c:21" in out
    assert np.array_equal(np.load(tmp_path / "y.npy"), np.maximum(x, 0))
    import json
    events = [e for e in json.load(open(tmp_path / "t.json"))["traceEvents"] if e["ph"] == "X"]
    assert [e["args"]["source"] for e in events] == ["relu.c:20", "relu.c:21", "relu.c:22"]


def test_a_kernel_without_okk_initialize_still_counts(misc):
    with okk.Device(global_mem_bytes=1 << 20) as dev:
        first = misc.run("no_initialize", b"\0" * 20)
        again = misc.run("no_initialize", b"\0" * 20)          # counted from this run's start
    with okk.Device(global_mem_bytes=1 << 20) as ref:
        okk.okk_bdc_32bit_set_C(0, 0, okk.dim4(2, 64, 1, 32), None)
        okk.okk_poll()
    assert first.sections == again.sections == [ref.total_cycles] and ref.total_cycles > 0


def test_param_layout_matches_the_compiler(tmp_path):
    """The dedicated param_t parser against gcc's own offsetof/sizeof on 40 random declarations."""
    import random
    import subprocess
    from npusim.okk.c.param import struct_type
    types = ["int", "unsigned int", "unsigned long long", "long long", "float", "double", "char", "short",
             "unsigned char", "bool", "local_addr_t", "system_addr_t"]
    rnd = random.Random(14)
    decls, checks = [], []
    for i in range(40):
        fields = [(rnd.choice(types), f"f{j}", rnd.choice(["", "", "[3]"])) for j in range(rnd.randint(1, 7))]
        packed = rnd.random() < 0.5
        body = " ".join(f"{t} {n}{a};" for t, n, a in fields)
        decls.append(f"typedef struct {{ {body} }} {'__attribute__((packed)) ' if packed else ''}s{i}_t;")
        checks.append((f"s{i}_t", [n for _, n, _ in fields]))
    src = "#include <stddef.h>\n#include <stdio.h>\n#include \"okk.h\"\n" + "\n".join(decls) + "\nint main(void) {\n"
    for name, fs in checks:
        src += f'    printf("{name} %zu' + " %zu" * len(fs) + f'\\n", sizeof({name})' + \
            "".join(f", offsetof({name}, {f})" for f in fs) + ");\n"
    src += "    return 0;\n}\n"
    (tmp_path / "layout.c").write_text(src)
    exe = tmp_path / "layout"
    from npusim.okk.c.compile import HERE as INCLUDE
    subprocess.run(find_compiler() + ["-std=gnu99", "-I" + INCLUDE, str(tmp_path / "layout.c"), "-o", str(exe)],
                   check=True)
    lines = subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout.split("\n")
    source = "\n".join(decls)
    for line in filter(None, lines):
        name, size, *offsets = line.split()
        st = struct_type(source, name)
        assert ctypes.sizeof(st) == int(size), name
        assert [getattr(st, f).offset for f, _ in st._fields_] == [int(o) for o in offsets], name


from hypothesis import given, settings, strategies as hs  # noqa: E402


@settings(max_examples=25, deadline=None)
@given(n=hs.integers(1, 3), c=hs.integers(1, 130), h=hs.integers(1, 6), w=hs.integers(1, 40))
def test_relu_any_shape_equals_numpy_and_python_cycles(relu, n, c, h, w):
    shape = (n, c, h, w)
    x = np.random.default_rng(c * h + w).standard_normal(shape).astype(np.float32)
    out = G + (-(-x.nbytes // 4096)) * 4096
    with okk.Device(global_mem_bytes=1 << 22) as dev:
        dev.write_system(G, x)
        r = relu.run("relu_contest", dict(N=n, C=c, H=h, W=w, output_addr=out, input_addr=G))
        y = dev.read_system(out, shape)
    with okk.Device(global_mem_bytes=1 << 22) as ref:
        ref.write_system(G, x)
        _relu_python(x, out)
    assert np.array_equal(y, np.maximum(x, 0)) and r.cycles == ref.total_cycles


def test_an_undeclared_okk_function_is_a_compile_error(tmp_path):
    src = tmp_path / "newer.c"
    src.write_text('#include "okk.h"\nvoid k(const void *a) { okk_bdc_npu_bcast(0, 0, 0); }\n')
    with pytest.raises(CompileError, match="okk_bdc_npu_bcast"):
        okk.load_c(src)
    src.write_text('#include "okk.h"\nextern void not_defined_anywhere(void);\nvoid k(const void *a) { not_defined_anywhere(); }\n')
    with pytest.raises(CompileError, match="not_defined_anywhere"):
        okk.load_c(src)


def test_one_pointer_per_element_is_cheap_and_marked(misc):
    import time
    from npusim.okk.c import pointers
    n = 20000
    with npusim.configure(strict=True), okk.Device(global_mem_bytes=1 << 24) as dev:
        t = time.perf_counter()
        misc.run("pointer_per_element", dict(addr=G, n=n, value=2.5))
        assert time.perf_counter() - t < 5          # not 20000 copies of a 4 MiB window
        assert np.array_equal(dev.read_system(G + 4 * n, n), np.full(n, 2.5, np.float32))
    assert not pointers.pending()


def test_a_flush_after_a_long_parallel_region_starts_a_new_section(misc):
    """The C-model flushes at okk_parallel_end once a section holds more than 30000 commands, and its dump
    starts a new section there (the contest sweep: perfect_1889931 matmul 0 reads as 4 sections,
    perfect_1882153 matmul 5 as 2); r.sections splits at the same point, r.cycles stays the sum."""
    with okk.Device():
        tail = misc.run("flush_tail", dict(addr=0, n=0, value=0.0))
        short = misc.run("flush_split", dict(addr=0, n=30000, value=0.0))
        long = misc.run("flush_split", dict(addr=0, n=30001, value=0.0))
    assert len(tail.sections) == 1 and len(short.sections) == 1
    assert len(long.sections) == 2
    assert long.sections[1] == tail.sections[0]             # the three commands after the flush
    assert long.cycles == sum(long.sections) and long.sections[0] > short.sections[0] - tail.sections[0]
