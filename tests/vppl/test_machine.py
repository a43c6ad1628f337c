"""The machine: image buffers from numpy and PNG, fixed-point declarations, modes, the timeline."""
import numpy as np
import pytest

from npusim import ConstraintError, vppl
from npusim.cli import main as cli_main
from npusim.vppl.machine import load_image


def test_image_buffer_from_numpy_keeps_the_pixels():
    img = (np.arange(48) * 5).astype(np.uint8).reshape(6, 8)
    m = vppl.Machine()
    buf = m.set_image("a", img)
    assert buf.name == "A" and buf.step == 8 and np.array_equal(buf.array(), img)


def test_image_buffer_rules():
    m = vppl.Machine()
    with pytest.raises(ConstraintError, match="A and B"):
        m.set_image("C", np.zeros((2, 2), np.uint8))
    with pytest.raises(ConstraintError, match="2-D"):
        m.set_image("A", np.zeros(4, np.uint8))
    with pytest.raises(ConstraintError, match="8-bit"):
        m.set_image("A", np.full((2, 2), 300))


def test_png_loads_as_8_bit_grey(tmp_path):
    import matplotlib.image as mpimg
    img = (np.arange(64) * 4).astype(np.uint8).reshape(8, 8)
    p = tmp_path / "frame.png"
    mpimg.imsave(p, np.stack([img] * 3, axis=-1))
    assert np.array_equal(load_image(str(p)), img)


def test_cli_pina_binds_image_buffer_a(tmp_path, capsys):
    import matplotlib.image as mpimg
    p = tmp_path / "a.png"
    mpimg.imsave(p, np.zeros((4, 4, 3), np.uint8))
    src = tmp_path / "img.vppl"
    src.write_text("use_image(pA, A)\nn : integer = 1;\n")
    assert cli_main(["vppl", "--PINA", str(p), str(src)]) == 0
    assert cli_main(["vppl", str(src)]) == 1
    assert "--PINA" in capsys.readouterr().out


def test_fixed_point_vectors_store_raw_integers():
    r = vppl.run("x : F16Q12[4] = 4096,\ny : F32Q16[2] = vList[65536, -32768];")
    assert r["x"].dtype == np.int16 and r["x"].tolist() == [4096] * 4
    v = vppl.Vector("F16Q12", 4, 6144)
    assert v.to_float().tolist() == [1.5] * 4
    assert vppl.Vector("F32Q16", 2, [65536, -32768]).to_float().tolist() == [1.0, -0.5]
    with pytest.raises(ValueError):
        vppl.elem_type("F16Q16")


def test_mode_names_are_checked():
    with pytest.raises(ValueError):
        vppl.Machine("gen3")


def test_scalar_and_simd_instructions_issue_in_order():
    m = vppl.Machine()
    from npusim.vppl.interpreter import Program
    Program("a : i16[64] = 1, n : integer;\nn = 3;\na = a.e_set$W(n);\nn = n + 1;").run(m)
    ev = m.timeline.trace.events
    assert [e.name for e in ev] == ["assign", "e_set$W", "assign"]
    assert ev[1].start_ns == ev[0].end_ns and ev[2].start_ns == ev[1].end_ns
    assert ev[1].cycles == 1 + 2                         # 128 bytes = two 512-bit registers
    assert m.timeline.now_ns == pytest.approx((1 + 3 + 1) * 20.0)   # 50 MHz: 20 ns per cycle


def test_data_memory_pointers_are_aligned_bounded_and_capacity_checked():
    from npusim import OutOfBoundsError
    m = vppl.Machine(dm_bytes=256)
    p = m.dm_store(np.arange(10, dtype=np.int16), "coeffs")
    q = m.dm_store(np.arange(3, dtype=np.uint8), "bias")
    assert p.address == 0 and q.address == 32                   # 32-byte aligned (seed: get_array)
    assert p.view("int16", 10).read().tolist() == list(range(10))
    assert (p + 4).view("int16", 2).read().tolist() == [2, 3]
    with pytest.raises(OutOfBoundsError):
        q.view("int32", 100)
    with pytest.raises(ConstraintError, match="at most 256 bytes"):
        m.dm_store(np.zeros(300, np.uint8), "big")


def test_use_image_gives_a_pointer_with_the_row_step():
    from npusim.vppl.interpreter import Program
    img = np.arange(96, dtype=np.uint8).reshape(4, 24)
    m = vppl.Machine()
    m.set_image("B", img)
    env = Program("use_image(pB, B)").run(m)
    p = env["pB"]
    assert isinstance(p, vppl.Pointer) and p.step == 24
    assert np.array_equal(p.view("uint8", (4, 24)).read(), img)
