"""okk.h / okk_shim.c / api_table.py against the generator and npusim.okk's exports (no C compiler needed)."""
import ctypes
import inspect
import re

import pytest

from npusim import okk
from npusim.okk.c import CompileError, find_compiler, generate
from npusim.okk.c.api_table import C_ONLY, FUNCTIONS, MUL_TYPES, OP_TYPES, arguments
from npusim.okk.c.param import ParamError, find_struct, pack, struct_type


def test_committed_files_are_the_generator_output():
    assert generate.stale() == [], "run: python -m npusim.okk.c.generate"


def test_table_is_exactly_npusim_okk_exports():
    table = {n for n, _, _ in FUNCTIONS}
    exported = {n for n in okk.__all__ if n.startswith("okk_")}
    assert table == exported
    assert len(FUNCTIONS) == 139 == len(table)      # Sophgo's okk.h declares 139 functions


@pytest.mark.parametrize("name,ret,args", FUNCTIONS, ids=[f[0] for f in FUNCTIONS])
def test_python_parameters_are_the_c_arguments(name, ret, args):
    params = list(inspect.signature(getattr(okk, name)).parameters)
    assert params == [n for _, n in arguments(args)]


def test_enumerators_equal_npusim_okk_constants():
    for name, a in OP_TYPES:
        assert getattr(okk, name) == okk.OP_TYPE(*a)
    for name, a in MUL_TYPES:
        assert getattr(okk, name) == okk.MUL_TYPE(*a)
    assert okk.S8_OP_S8_TO_S8 == 31 and okk.S16_MUL_U8_TO_S16 == 5


def test_header_declares_every_type_macro_and_function():
    h = generate.header()
    for word in ("} dim4;", "} dim2;", "} Padding;", "} x32;", "} x16;", "} x8;", "} fp32_or_addr_t;",
                 "} x32_or_addr_t;", "} op_type_t;", "} mul_type_t;", "typedef unsigned int local_addr_t;",
                 "typedef unsigned long long system_addr_t;", "#define NPU_NUM okk_npu_num()",
                 "#define LOCAL_MEM_SIZE okk_local_mem_size_per_npu()", "#define OKKERNEL_FUNC_REGISTER(func)",
                 "#define OKKERNEL_ASSERT(assertion)", "#define OKKERNEL_LOG(format, ...)"):
        assert word in h, word
    for name, ret, args in FUNCTIONS:
        assert re.search(rf"\b{name}\(", h), name
        if name not in C_ONLY:      # the call goes through the file:line macro
            assert f"#define {name}(" in h and f"{name}_at(__FILE__, __LINE__" in h


def test_shim_has_one_callback_per_forwarded_function():
    s = generate.shim()
    table = s[:s.index("} okk_callbacks_t;")]
    table = table[table.rindex("typedef struct {"):]
    members = re.findall(r"\(\*(\w+)\)\((void \*source|const char \*file|int kind|void\))", table)
    forwarded = [n for n, _, _ in FUNCTIONS if n not in C_ONLY]
    assert members == [(n, "void *source") for n in forwarded] + [
        ("okk_log", "const char *file"), ("okk_assert_fail", "const char *file"), ("okk_object", "int kind"),
        ("okk_forget", "void)"), ("okk_settle", "void)")]
    assert f"#define OKK_SHIM_FUNCTIONS {len(forwarded)}\n" in s


CONTEST = """
#include "okk.h"
typedef struct {
    int N, C, H, W;   // shape
    unsigned long long output_addr;
    unsigned long long input_addr;
    float scale; short s[3];
} __attribute__((packed)) param_t;
typedef struct { char a; int b; double d; } plain_t;
typedef struct { int *p; } bad_t;
"""


def test_param_layout_packed_and_natural():
    p = struct_type(CONTEST)
    assert [n for n, _ in p._fields_] == ["N", "C", "H", "W", "output_addr", "input_addr", "scale", "s"]
    assert p.output_addr.offset == 16 and p.input_addr.offset == 24 and p.scale.offset == 32
    assert ctypes.sizeof(p) == 42
    q = struct_type(CONTEST, "plain_t")
    assert (q.b.offset, q.d.offset, ctypes.sizeof(q)) == (4, 8, 16)
    v = pack(p, dict(N=1, C=2, H=3, W=4, output_addr=1 << 32, input_addr=(1 << 32) + 64, scale=0.5, s=[1, 2, 3]))
    raw = bytes(v)
    assert raw[:4] == (1).to_bytes(4, "little") and raw[16:24] == (1 << 32).to_bytes(8, "little")


def test_param_errors_are_clear():
    with pytest.raises(ParamError, match="no 'typedef struct"):
        find_struct(CONTEST, "missing_t")
    with pytest.raises(ParamError, match="declarator"):
        struct_type(CONTEST, "bad_t")
    with pytest.raises(ParamError, match="missing: input_addr"):
        pack(struct_type(CONTEST), dict(N=1, C=1, H=1, W=1, output_addr=0, scale=1, s=[0, 0, 0]))
    with pytest.raises(ParamError, match="unknown: Q"):
        pack(struct_type(CONTEST, "plain_t"), dict(a=1, b=2, d=3.0, Q=1))


def test_no_compiler_is_a_clear_error(monkeypatch):
    from npusim import okk
    monkeypatch.setenv("CC", "/nonexistent/cc")
    with pytest.raises(CompileError, match=r"\$CC is '/nonexistent/cc'"):
        okk.load_c(__file__)
    monkeypatch.delenv("CC")
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(CompileError, match="no C compiler found: set \\$CC or install cc, gcc or clang"):
        find_compiler()
