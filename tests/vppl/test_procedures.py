"""Procedures with byName parameters in VPPL text (procedures.py): byName binds the caller's variable
(assignments inside change it; operators take a byName pointer like the pointer variable), plain
parameters are copies, locals are scoped to a call; wrong calls point at line and column."""
import os
import sys

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from npusim import vppl
from npusim.vppl import dm_alloc, dm_read
from npusim.vppl.parser import VpplSemanticError, VpplSyntaxError


def image(h=16, w=128, seed=0):
    return np.random.default_rng(seed).integers(0, 256, (h, w), dtype=np.uint8)


def test_byname_integer_is_changed_plain_integer_is_a_copy():
    res = vppl.run("""
procedure bump(byName r : integer, n : integer)
begin
    r = r + n * 3;
    n = 1000;
end;
a : integer = 5,
b : integer = 7;
bump(a, b);
bump(a, b + 1);
""")
    assert res["a"] == 5 + 7 * 3 + 8 * 3 and res["b"] == 7


def test_byname_vector_is_changed_by_a_dot_operator_plain_vector_is_a_copy():
    src = """
procedure lower(byName acc : i16[8], v : i16[8])
begin
    acc = acc.min$IW(v);
    v = v.min$IW(acc);
end;
vA : i16[8] = vList[1, -2, 3, 40, 5, 60, 7, -8],
vB : i16[8] = vList[10, -20, 30, 4, 50, 6, 70, 32767];
lower(vA, vB);
"""
    a = np.array([1, -2, 3, 40, 5, 60, 7, -8])
    b = np.array([10, -20, 30, 4, 50, 6, 70, 32767])
    res = vppl.run(src)
    np.testing.assert_array_equal(res["vA"].astype(np.int64), np.minimum(a, b))
    np.testing.assert_array_equal(res["vB"].astype(np.int64), b)     # by value: the caller's vB unchanged


def test_byname_pointer_in_get_array_and_pointer_arithmetic_reach_the_caller():
    src = """
External pDst : pointer;
procedure crop_rows(byName dst : pointer, byName src : pointer, y : integer, rows : integer)
begin
    alloc_vector(vW, __I16V, 16)
    vW = vW.get_array(dst, src, 32, y, 64, rows, 12);
    dst = dst + rows * 128;
end;
use_image(pImg, A)
crop_rows(pDst, pImg, 2, 3);
crop_rows(pDst, pImg, 9, 1);
"""
    img = image()
    m = vppl.Machine()
    with vppl.using(m):
        dst = dm_alloc(1024)
    base = dst.value
    res = vppl.run_with(src, machine=m, images={"A": img}, externals={"pDst": dst})
    assert res["pDst"] == base + 4 * 128 == dst.value          # the byName pointer moved the caller's
    assert "vW" not in res                                       # a local: gone after the call
    with vppl.using(m):
        got = dm_read(base, np.int16, 4 * 64, (4, 64)).astype(np.int64)
    want = np.concatenate([img[2:5, 32:96], img[9:10, 32:96]]).astype(np.int64) * 16   # p/256 in F16Q12
    np.testing.assert_array_equal(got, want)
    assert [e.name for e in m.timeline.trace.events].count("get_array") == 2


def test_plain_pointer_parameter_is_a_copy():
    res = vppl.run("""
procedure advance(p : pointer, byName q : pointer)
begin
    p = p + 64;
    q = p;
end;
pA : pointer = 4096,
pB : pointer = 0;
advance(pA, pB);
""")
    assert res["pA"] == 4096 and res["pB"] == 4096 + 64


def test_locals_shadow_globals_and_calls_nest():
    res = vppl.run("""
k : integer = 100,
total : integer = 0;
procedure add(byName t : integer, n : integer)
begin
    k : integer = n * 2;
    t = t + k;
end;
procedure twice(byName t : integer)
begin
    add(t, 1);
    add(t, k);
end;
twice(total);
""")
    assert res["k"] == 100 and res["total"] == 2 + 200


def test_recursion_is_bounded():
    # the language has no conditionals, so a procedure calling itself never stops: a clear error
    with pytest.raises(VpplSemanticError) as e:
        vppl.run("procedure f(byName a : integer)\nbegin\n    a = a + 1;\n    f(a);\nend;\nx : integer = 0;\nf(x);\n")
    assert e.value.param == "calls" and e.value.api == "f"


@pytest.mark.parametrize("call, param, col", [
    ("scale(pA, 64);", "arguments", 1),          # too few
    ("scale(pA, pB, 64, 1);", "arguments", 1),   # too many
    ("scale(pA + 0, pB, 64);", "src", 7),        # a byName argument must be a variable name
    ("scale(n, pB, 64);", "src", 7),             # wrong kind: an integer for a byName pointer
    ("scale(pA, vX, 64);", "dst", 11),           # wrong kind: a vector for a byName pointer
    ("scale(pA, pB, vX);", "n", 15),             # a vector for an integer parameter
    ("scal(pA, pB, 64);", "directive", 1),       # unknown procedure
])
def test_wrong_calls_point_at_line_and_column(call, param, col):
    src = ("procedure scale(byName src : pointer, byName dst : pointer, n : integer)\nbegin\n"
           "    dst = src + n;\nend;\npA : pointer = 64, pB : pointer = 0, n : integer = 1;\n"
           "vX : i16[8] = 0;\n" + call + "\n")
    with pytest.raises(VpplSemanticError) as e:
        vppl.run(src)
    assert e.value.param == param and (e.value.line, e.value.column) == (7, col)
    assert "\n    " + call in str(e.value) and "^" in str(e.value)


def test_errors_inside_a_body_point_at_the_body_line():
    with pytest.raises(VpplSemanticError) as e:
        vppl.run("procedure f(byName a : integer)\nbegin\n    a = a / 0;\nend;\nx : integer = 1;\nf(x);\n")
    assert e.value.line == 3


def test_duplicate_names_are_errors():
    with pytest.raises(VpplSemanticError) as e:
        vppl.run("procedure f(a : integer, a : integer)\nbegin\nend;\n")
    assert e.value.param == "a"
    with pytest.raises(VpplSemanticError) as e:
        vppl.run("procedure f()\nbegin\nend;\nprocedure f()\nbegin\nend;\n")
    assert e.value.line == 4
    with pytest.raises(VpplSemanticError) as e:      # a local named like a parameter
        vppl.run("procedure f(a : integer)\nbegin\n    a : integer = 1;\nend;\nf(1);\n")
    assert e.value.rule == "each name is declared once"


def test_procedures_are_declared_at_top_level():
    with pytest.raises(VpplSyntaxError):
        vppl.run("procedure f()\nbegin\n    procedure g()\n    begin\n    end;\nend;\n")


def test_the_documented_example_runs():
    from npusim.vppl.docs_procedures import SECTION
    example = SECTION.split("```\n")[1]
    pre = "External pB : pointer;\nuse_image(pA, A)\nalloc_vector(vT, __I16V, 16)\n"
    img = image()
    m = vppl.Machine()
    with vppl.using(m):
        dst = dm_alloc(4 * 64 * 2)
    base = dst.value
    res = vppl.run_with(pre + example, machine=m, images={"A": img}, externals={"pB": dst})
    assert res["pB"] == base + 8 and "k" not in res
    with vppl.using(m):
        got = dm_read(base, np.int16, 4 * 64, (4, 64)).astype(np.int64)
    np.testing.assert_array_equal(got, img[0:4, 0:64].astype(np.int64) * 16)


def test_dnn_and_blas_take_byname_pointers_like_pointer_variables():
    """The part-two text through a procedure with byName pointers writes the same bytes as without."""
    sys.path.insert(0, os.path.dirname(__file__))   # importlib mode: the part-two text test sits beside us
    from test_text_part_two import TEXT, read_all, setup
    head, ops = TEXT.split("~\n")
    body = "".join("    " + line + "\n" for line in ops.strip().splitlines())
    names = ["pX", "pY", "pB", "pA", "pIn", "pW", "pBias", "pP", "pO", "pS"]
    params = ", ".join(f"byName {n} : pointer" for n in names)
    proc_text = head + f"procedure layers({params})\nbegin\n{body}end;\nlayers({', '.join(names)});\n"
    m1, m2 = vppl.Machine(), vppl.Machine()
    e1, e2 = setup(m1), setup(m2)
    vppl.run_with(TEXT, machine=m1, externals=e1)
    vppl.run_with(proc_text, machine=m2, externals=e2)
    for a, b in zip(read_all(m1, e1), read_all(m2, e2)):
        np.testing.assert_array_equal(a, b)
    assert np.any(read_all(m2, e2)[0] != 0)
    assert [e.name for e in m2.timeline.trace.events if e.engine == "simd"][-4:] == \
        ["FPBLmAvX_uB", "DNN_convolutionLayerNPN", "DNN_conv32to16", "DNN_softmax"]


def _wrap32(x):
    return (x + 2 ** 31) % 2 ** 32 - 2 ** 31


@given(st.lists(st.tuples(st.integers(-2 ** 31, 2 ** 31 - 1), st.integers(-1000, 1000)), min_size=1, max_size=6))
@settings(max_examples=30, deadline=None)
def test_byname_accumulates_across_calls_like_python(calls):
    lines = ["procedure mac(byName acc : integer, byName last : integer, a : integer, b : integer)",
             "begin", "    t : integer = a * b;", "    acc = acc + t;", "    last = t;", "    a = 0;", "end;",
             "s : integer = 0, l : integer = 0, x : integer = 0;"]
    want_s = 0
    for a, b in calls:
        lines.append(f"x = {a};")
        lines.append(f"mac(s, l, x, {b});")
        want_s = _wrap32(want_s + _wrap32(a * b))
    res = vppl.run("\n".join(lines) + "\n")
    assert res["s"] == want_s and res["l"] == _wrap32(calls[-1][0] * calls[-1][1])
    assert res["x"] == calls[-1][0]                      # by value: a = 0 inside did not reach x


def test_plain_pointer_parameter_from_use_image_keeps_memory_and_step():
    src = """
External pDst : pointer;
procedure crop(byName dst : pointer, src : pointer)
begin
    alloc_vector(vW, __I16V, 16)
    src = src + 32;
    vW = vW.get_array(dst, src, 0, 1, 32, 2, 0);
end;
use_image(pImg, A)
crop(pDst, pImg);
crop(pDst, pImg);
"""
    img = image()
    m = vppl.Machine()
    with vppl.using(m):
        dst = dm_alloc(64)
    vppl.run_with(src, machine=m, images={"A": img}, externals={"pDst": dst})
    with vppl.using(m):
        got = dm_read(dst, np.uint8, 64, (2, 32))
    np.testing.assert_array_equal(got, img[1:3, 32:64])       # the copy moved once per call, not twice


def test_motion_example_counts_match_numpy(capsys):
    import importlib.util
    path = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "vppl", "motion_proc.py")
    spec = importlib.util.spec_from_file_location("vppl_example_motion_proc", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    f = mod.frames()
    assert mod.main() == (12, 12) == (mod.reference(f[0], f[1], 30), mod.reference(f[1], f[2], 30))
    assert "numpy agrees" in capsys.readouterr().out
