"""get_array: byte crop (type 0) and byte -> F16Qq (types 8..15) against numpy slicing; every stated
limit raises naming its argument; pointers, External globals and byName arguments; VPPL text."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from npusim import ConstraintError, vppl
from npusim.vppl import ByName, PointerVariable, dm_alloc, dm_read


def image(h=64, w=256, seed=0):
    return np.random.default_rng(seed).integers(0, 256, (h, w), dtype=np.uint8)


def setup(img):
    m = vppl.machine()
    buf = m.set_image("A", img)
    return buf, vppl.alloc_vector("vT", "__I16V", 16)


def test_byte_crop_matches_numpy_slice():
    img = image()
    buf, t = setup(img)
    dst = dm_alloc(10 * 64)
    t.get_array(dst, buf, 32, 5, 64, 10, 0)
    got = dm_read(dst, np.uint8, 10 * 64, (10, 64))
    np.testing.assert_array_equal(got, img[5:15, 32:96])
    assert t.valid and np.array_equal(t.a.view(np.uint8)[:32], img[14, 32:64])   # last row went through


@pytest.mark.parametrize("q", range(8, 16))
def test_f16q_conversion_is_p_over_256(q):
    img = image(seed=q)
    buf, t = setup(img)
    dst = dm_alloc(4 * 32 * 2)
    t.get_array(dst, buf, 64, 3, 32, 4, q)
    raw = dm_read(dst, np.int16, 4 * 32, (4, 32))
    np.testing.assert_array_equal(raw.astype(np.float64) / 2.0 ** q, img[3:7, 64:96] / 256.0)   # lossless


def test_width_rounds_up_to_32():
    img = image()
    buf, t = setup(img)
    dst = dm_alloc(3 * 64)
    t.get_array(dst, buf, 0, 0, 33, 3, 0)                  # 33 -> 64 columns, row pitch 64
    np.testing.assert_array_equal(dm_read(dst, np.uint8, 3 * 64, (3, 64)), img[0:3, 0:64])


def test_widest_transfers():
    img = image(8, 512)
    buf, t = setup(img)
    dst = dm_alloc(2 * 512)
    t.get_array(dst, buf, 0, 0, 512, 2, 0)
    np.testing.assert_array_equal(dm_read(dst, np.uint8, 1024, (2, 512)), img[:2])
    dst2 = dm_alloc(2 * 160 * 2)
    t.get_array(dst2, buf, 96, 1, 160, 2, 12)
    np.testing.assert_array_equal(dm_read(dst2, np.int16, 320, (2, 160)), img[1:3, 96:256].astype(np.int16) << 4)


@pytest.mark.parametrize("args,param", [
    ((0, 0, 513, 1, 0), "width"),        # byte copy: at most 512
    ((0, 0, 161, 1, 12), "width"),       # to F16Qq: at most 160
    ((0, 0, 0, 1, 0), "width"),
    ((16, 0, 32, 1, 0), "x"),            # x a multiple of 32
    ((0, 0, 32, 1, 7), "type"),          # 0 or 8..15
    ((0, 0, 32, 1, 16), "type"),
    ((0, 0, 32, 0, 0), "height"),
    ((0, -1, 32, 1, 0), "y"),
    ((224, 0, 64, 1, 0), "width"),       # the rounded width leaves the row
    ((0, 60, 32, 8, 0), "y"),            # rows below the image: address error
])
def test_limits_raise_naming_the_argument(args, param):
    buf, t = setup(image())
    dst = dm_alloc(4096)
    with pytest.raises(ConstraintError) as e:
        t.get_array(dst, buf, *args)
    assert e.value.param == param


def test_destination_alignment_and_target_allocation():
    buf, t = setup(image())
    with pytest.raises(ConstraintError) as e:
        t.get_array(PointerVariable(16), buf, 0, 0, 32, 1, 0)
    assert e.value.param == "destination"
    with pytest.raises(ConstraintError) as e:
        vppl.Vector("i16", 16).get_array(PointerVariable(0), buf, 0, 0, 32, 1, 0)
    assert e.value.param == "target"
    with pytest.raises(ConstraintError) as e:
        t.get_array(PointerVariable(vppl.machine().dm.size - 32), buf, 0, 0, 64, 1, 0)
    assert e.value.param == "destination"


def test_source_needs_aligned_rows_and_a_step():
    m = vppl.machine()
    t = vppl.alloc_vector("vT", "__I16V", 16)
    buf = m.set_image("B", image(8, 100))                  # step 100: rows not 32-byte aligned
    with pytest.raises(ConstraintError) as e:
        t.get_array(PointerVariable(0), buf, 0, 0, 32, 2, 0)
    assert e.value.param == "source"
    t.get_array(PointerVariable(0), buf, 0, 0, 32, 1, 0)           # a single row is fine
    with pytest.raises(ConstraintError) as e:
        t.get_array(PointerVariable(0), PointerVariable(64), 0, 0, 32, 1, 0)   # a DM pointer without a step
    assert e.value.param == "source"
    with pytest.raises(ConstraintError) as e:
        t.get_array(PointerVariable(0), "A", 0, 0, 32, 1, 0)
    assert e.value.param == "source"


def test_source_in_data_memory_with_step_and_byname_arguments():
    img = image(16, 64)
    src = vppl.dm_put(img, step=64)
    t = vppl.alloc_vector("vT", "__I16V", 16)
    dst = vppl.Integer(dm_alloc(8 * 32 * 2).value)        # an integer variable holding an address
    t.get_array(ByName(dst), ByName(src), 32, 8, 32, 8, 10)
    np.testing.assert_array_equal(dm_read(dst, np.int16, 256, (8, 32)), img[8:16, 32:64].astype(np.int16) << 2)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 3), st.integers(0, 40), st.integers(1, 96), st.integers(1, 20), st.sampled_from([0, 8, 11, 15]))
def test_property_matches_numpy(xb, y, w, h, ptype):
    vppl.reset()
    img = image(64, 256, seed=w)
    buf, t = setup(img)
    x = 32 * xb
    wr = -(-w // 32) * 32
    dst = dm_alloc(h * wr * 2)
    t.get_array(dst, buf, x, y, w, h, ptype)
    want = img[y:y + h, x:x + wr]
    if ptype == 0:
        np.testing.assert_array_equal(dm_read(dst, np.uint8, h * wr, (h, wr)), want)
    else:
        np.testing.assert_array_equal(dm_read(dst, np.int16, h * wr, (h, wr)), want.astype(np.int16) << (ptype - 8))


SRC = """
External pDst : pointer,
vT : i16[16];
x : integer = 32,
y : integer = 2;
~
alloc_vector(vW, __I16V, 16)
use_image(pImg, A)
vW = vW.get_array(pDst, pImg, x, y, 64, 3, 12);
pDst = pDst + 384;
vW = vW.get_array(pDst, pImg, 0, y + 3, 32, 1, 0);
"""


def test_vppl_text_with_external_pointer_and_use_image():
    img = image()
    m = vppl.Machine()
    with vppl.using(m):
        dst = dm_alloc(1024)
    base = dst.value
    res = vppl.run_with(SRC, machine=m, images={"A": img}, externals={"pDst": dst})
    assert res["pDst"] == base + 384 == dst.value          # an External global is shared with the host
    with vppl.using(m):
        np.testing.assert_array_equal(dm_read(base, np.int16, 192, (3, 64)), img[2:5, 32:96].astype(np.int16) << 4)
        np.testing.assert_array_equal(dm_read(base + 384, np.uint8, 32), img[5, 0:32])
    assert [e.name for e in m.timeline.trace.events].count("get_array") == 2


def test_vppl_text_errors_point_at_the_operator():
    from npusim.vppl.parser import VpplSemanticError
    bad = SRC.replace("0, y + 3, 32, 1, 0", "16, y, 32, 1, 0")
    m = vppl.Machine()
    with pytest.raises(VpplSemanticError) as e:
        vppl.run_with(bad, machine=m, images={"A": image()}, externals={"pDst": 0})
    assert e.value.param == "x" and e.value.line == 11
    with pytest.raises(VpplSemanticError) as e:
        vppl.run_with(SRC, machine=vppl.Machine(), images={"A": image()})
    assert e.value.api == "External"
