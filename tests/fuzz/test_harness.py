"""The fuzz harness itself classifies what it is shown: each defect kind is detected."""
import numpy as np

from npusim.core.errors import ConstraintError
from npusim.core.memory import Memory
from npusim.fuzz.harness import Trial, Watch, execute


def _trial(call, writable=((0, 8),)):
    def setup():
        return Memory("M", 64)
    return Trial("test", "f", setup, call, lambda m: [Watch(m, 0, 64, writable)],
                 trace=lambda m: m.data.tobytes())


def test_ok_rejected_internal():
    assert execute(_trial(lambda m: m.write_bytes(0, b"abc"))).kind == "ok"
    out = execute(_trial(lambda m: (_ for _ in ()).throw(ConstraintError("f", "x", "a rule", 1))))
    assert (out.kind, out.error_class) == ("rejected", "ConstraintError")
    out = execute(_trial(lambda m: {}["missing"]))
    assert (out.kind, out.error_class) == ("internal", "KeyError")


def test_out_of_footprint_write_and_read_that_changes_memory():
    out = execute(_trial(lambda m: m.write_bytes(6, b"abcd")))
    assert out.kind == "oob_write" and "flat offset 0x8" in out.detail
    out = execute(_trial(lambda m: m.write_bytes(0, b"a"), writable=()))
    assert out.kind == "read_changed"


def test_hang_is_cut_off():
    def spin(m):
        while True:
            pass
    out = execute(_trial(spin), seconds=0.2)
    assert out.kind == "hang"


def test_nondeterminism_is_caught():
    counter = iter(range(10))

    def call(m):
        m.write_bytes(0, bytes([next(counter)]))
    assert execute(_trial(call), twice=True).kind == "nondeterministic"
    assert execute(_trial(lambda m: m.write_bytes(0, b"z")), twice=True).kind == "ok"
