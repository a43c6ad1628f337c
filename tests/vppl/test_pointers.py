"""Pointer variables, External globals, byName arguments and the data memory: declarations in text,
pointer arithmetic, host binding, address errors, uninitialised reads."""
import warnings

import numpy as np
import pytest

from npusim import ConstraintError, configure, vppl
from npusim.core.errors import UninitializedReadError, UninitializedReadWarning
from npusim.vppl import ByName, PointerVariable, dm_alloc, dm_put, dm_read
from npusim.vppl.parser import VpplSemanticError
from npusim.vppl.pointers import deref, load


def test_pointer_declaration_and_arithmetic_in_text():
    src = """
p : pointer = 4096,
q : pointer;
n : integer = 3;
~
p = p + n * 64;
q = p - 32;
"""
    res = vppl.run_with(src)
    assert res["p"] == 4096 + 192 and res["q"] == 4096 + 160


def test_external_bindings_share_the_host_object():
    src = """
External base : pointer,
External count : integer,
External v : i16[4];
~
base = base + 32;
count = count + 1;
v = v.ones$W();
"""
    p, n, v = PointerVariable(64, step=128), vppl.Integer(5), vppl.Vector("i16", 4, 9)
    res = vppl.run_with(src, externals={"base": p, "count": n, "v": v})
    assert p.value == 96 and p.step == 128 and n.value == 6 and v.tolist() == [1, 1, 1, 1]
    assert res["base"] == 96 and res["count"] == 6
    res = vppl.run_with(src, externals={"base": 0, "count": 1, "v": vppl.Vector("i16", 4)})   # plain ints wrap
    assert res["base"] == 32 and res["count"] == 2


@pytest.mark.parametrize("ext,name", [
    ({"base": "x", "count": 1, "v": None}, "base"),
    ({"base": 0, "count": 1.5, "v": None}, "count"),
    ({"base": 0, "count": 1, "v": vppl.Vector("i16", 8)}, "v"),        # wrong length
    ({"base": 0, "count": 1}, "v"),                                   # unbound
])
def test_external_binding_errors_point_at_the_declaration(ext, name):
    src = "External base : pointer,\nExternal count : integer,\nExternal v : i16[4];\n"
    with pytest.raises(VpplSemanticError) as e:
        vppl.run_with(src, externals=ext)
    assert e.value.api == "External" and e.value.param == name
    assert e.value.line == {"base": 1, "count": 2, "v": 3}[name]


def test_byname_and_integer_addresses_deref_to_dm():
    p = PointerVariable(320, step=64)
    m = vppl.machine()
    assert deref("op", "arg", ByName(ByName(p))) == (m.dm, 320, 64)
    assert deref("op", "arg", vppl.Integer(96)) == (m.dm, 96, 0)
    assert deref("op", "arg", 128) == (m.dm, 128, 0)
    with pytest.raises(ConstraintError) as e:
        deref("op", "arg", 1.5)
    assert e.value.param == "arg"
    with pytest.raises(ConstraintError):
        deref("op", "arg", True)


def test_dm_allocator_aligns_and_runs_out():
    a = dm_alloc(3)
    b = dm_alloc(5)
    assert a.value % 32 == 0 and b.value % 32 == 0 and b.value >= a.value + 3
    with pytest.raises(ConstraintError) as e:
        dm_alloc(vppl.machine().dm.size)
    assert e.value.api == "dm_alloc"


def test_access_checks_alignment_and_bounds():
    p = dm_put(np.arange(16, dtype=np.int16))
    with pytest.raises(ConstraintError) as e:
        load("op", "src", PointerVariable(p.value + 1), np.int16, 4)
    assert "multiple of 2" in e.value.rule
    with pytest.raises(ConstraintError) as e:
        load("op", "src", PointerVariable(-2), np.int16, 1)
    assert e.value.param == "src"
    np.testing.assert_array_equal(load("op", "src", p, np.int16, 4, offset=8), [4, 5, 6, 7])


def test_uninitialised_dm_reads_warn_or_raise():
    p = dm_alloc(64)
    with pytest.warns(UninitializedReadWarning):
        load("op", "src", p, np.int16, 4)
    with configure(uninitialized="error"):
        with pytest.raises(UninitializedReadError):
            load("op", "src", p, np.int16, 4)
    q = dm_put(np.zeros(4, np.int16))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        load("op", "src", q, np.int16, 4)


def test_dm_read_write_roundtrip_and_shape():
    p = dm_alloc(24)
    vppl.dm_write(p, np.arange(6, dtype=np.int32))
    assert dm_read(p, np.int32, 6, (2, 3)).tolist() == [[0, 1, 2], [3, 4, 5]]


def test_part_one_pointers_work_as_operands_and_share_the_allocator():
    m = vppl.machine()
    img = np.arange(4 * 64, dtype=np.uint8).reshape(4, 64)
    m.set_image("A", img)
    a = m.dm_store(np.zeros(64, np.int16), "dst")             # part one's vppl.Pointer
    b = dm_alloc(64)
    assert b.value >= a.address + 128 or b.value + 64 <= a.address      # one allocator: no overlap
    vppl.alloc_vector("vT", "__I16V", 16).get_array(a, m.image_pointer("A"), 0, 1, 32, 2, 8)
    assert dm_read(a, np.int16, 64, (2, 32)).tolist() == img[1:3, :32].astype(np.int16).tolist()
    assert deref("op", "arg", a + 32) == (m.dm, a.address + 32, 0)


def test_external_bound_to_a_part_one_pointer_becomes_a_variable():
    m = vppl.Machine()
    p = m.dm_store(np.zeros(8, np.int16), "blk")
    res = vppl.run_with("External q : pointer;\n~\nq = q + 2;\n", machine=m, externals={"q": p})
    assert res["q"] == p.address + 2 and p.address == 0        # the host's immutable pointer is unchanged
