"""npusim.vppl under random and malformed calls and texts: 0 defects in a bounded seeded run, and one
regression test per case issue 17 lists (each would fail on the code before the fix)."""
import time
import warnings

import numpy as np
import pytest

from npusim import vppl
from npusim.core.errors import ConstraintError, NpuSimError
from npusim.fuzz import vppl as fuzz_vppl
from npusim.fuzz.harness import DEFECTS, Tally, execute
from npusim.vppl import spec


def test_every_dot_operator_and_the_text_language_are_drawn():
    rng = np.random.default_rng(3)
    drawn = {fuzz_vppl.draw(rng).api for _ in range(4000)}
    assert set(fuzz_vppl.ROW_NAMES) <= drawn
    assert {"text", "Vector", "vList", "Integer", "alloc_vector", "Machine", "dm_read", "dm_write"} <= drawn


@pytest.mark.parametrize("seed", [21, 22])
def test_bounded_campaign_finds_no_defect(seed):
    rng = np.random.default_rng(seed)
    tally = Tally()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i in range(200):
            trial = fuzz_vppl.draw(rng)
            tally.add(trial, execute(trial, seconds=10.0, twice=i % 4 == 0))
    assert tally.kinds.get("ok", 0) > 20 and tally.kinds.get("rejected", 0) > 20
    assert tally.defects == 0, {k: tally.examples.get(k) for k in DEFECTS}


# ---- the vppl cases ----

def test_500_unary_minus_signs_and_a_10000_term_sum():
    assert vppl.run("x : integer = " + "-" * 500 + "7;")["x"] == 7
    assert vppl.run("x : integer = " + "-" * 501 + "7;")["x"] == -7
    assert vppl.run("x : integer = " + " + ".join(["3"] * 10_000) + ";")["x"] == 30_000
    assert vppl.run("x : integer = " + " - ".join(["1"] * 10_000) + ";")["x"] == 1 - 9_999
    deep = "x : integer = " + "(2*" * 3000 + "1" + ")" * 3000 + ";"
    assert vppl.run(deep)["x"] == 0                   # 2^3000 keeps its low 32 bits: 0
    assert vppl.run("x : integer = 7 - 2 * 3 + 8 / -3;")["x"] == 7 - 6 - 2      # precedence, truncation


def test_vector_length_is_bounded_before_anything_is_allocated():
    t0 = time.perf_counter()
    with pytest.raises(ConstraintError) as e:
        vppl.run("v : i8[10000000000] = 0;")
    assert e.value.param == "length" and str(spec.MAX_VECTOR_ELEMENTS) in e.value.rule
    with pytest.raises(ConstraintError):
        vppl.Vector("i32", spec.MAX_VECTOR_ELEMENTS + 1)
    with pytest.raises(ConstraintError):
        vppl.run("alloc_vector(t, __I8V, 10000000000)")
    assert time.perf_counter() - t0 < 1.0
    assert len(vppl.Vector("i8", spec.MAX_VECTOR_ELEMENTS, 1)) == spec.MAX_VECTOR_ELEMENTS


def test_number_literals():
    assert vppl.run("x : integer = 0x10 + 09;")["x"] == 25          # leading zeros are decimal
    with pytest.raises(ConstraintError) as e:
        vppl.run("x : integer = " + "9" * 5000 + ";")
    assert e.value.param == "literal"


@pytest.mark.parametrize("make, param", [
    (lambda: vppl.Vector("i99", 4), "type"),
    (lambda: vppl.Vector("F16Q16", 4), "type"),
    (lambda: vppl.Vector(None, 4), "type"),
    (lambda: vppl.Vector("i16", 4.0), "length"),
    (lambda: vppl.Vector("i16", True), "length"),
    (lambda: vppl.Vector("i16", 0), "length"),
    (lambda: vppl.Vector("i16", 4, 1.5), "init"),
    (lambda: vppl.Vector("i16", 2, ["a", "b"]), "values"),
    (lambda: vppl.vList(3), "values"),
    (lambda: vppl.Integer(float("nan")), "value"),
    (lambda: vppl.Integer(None).set(None), "value"),
    (lambda: vppl.alloc_vector("w", ["__I16V"], 4), "type"),
    (lambda: vppl.Machine("bogus"), "mode"),
    (lambda: vppl.Machine(reg_bits=12), "reg_bits"),
    (lambda: vppl.Machine(dm_bytes=float("inf")), "dm_bytes"),
    (lambda: vppl.Readings(mul="bogus"), "mul"),
    (lambda: vppl.PointerVariable(0, step=1.5), "step"),
    (lambda: vppl.dm_alloc(None), "nbytes"),
    (lambda: vppl.dm_read(0, np.int16, float("nan")), "count"),
    (lambda: vppl.dm_read(0, "object", 2), "dtype"),
    (lambda: vppl.dm_write(1 << 30, np.zeros(4, np.int8)), "pointer"),
    (lambda: vppl.execute(vppl.TABLE["min$IW"], vppl.Vector("i16", 4), 5), "arguments"),
])
def test_constructors_and_helpers_raise_constraint_errors(make, param):
    with vppl.using(vppl.Machine(dm_bytes=1 << 12)):
        with pytest.raises(ConstraintError) as e:
            make()
    assert e.value.param == param, e.value


def _program_trace(text):
    m = vppl.Machine()
    out = vppl.run_with(text, machine=m)
    events = [(e.core, e.name, e.start_ns, e.end_ns, sorted((e.args or {}).items())) for e in m.timeline.trace.events]
    return {k: np.asarray(v).tolist() for k, v in out.items()}, events


def test_two_runs_give_identical_values_and_traces():
    text = "v : i16[32] = 5, w : i16[32] = 3; alloc_vector(t, __I16V, 32) r : integer; v = v.add$UW(w); t.r_max$IW(v, r);"
    assert _program_trace(text) == _program_trace(text)

    def python_run():
        m = vppl.Machine()
        with vppl.using(m):
            v, w = vppl.Vector("i16", 8, 2), vppl.Vector("i16", 8, 3)      # default names v0, v1 per machine
            v.add_UW(w)
        return v.name, w.name, [sorted(e.args.items()) for e in m.timeline.trace.events]
    assert python_run() == python_run() == ("v0", "v1", [[("target", "v0")]])


def test_errors_are_npusim_errors_with_position():
    with pytest.raises(NpuSimError) as e:
        vppl.run("x : integer = 1;\nv : i16[4] = 0;\nv = v.min$IW(x);")
    assert ":3:" in str(e.value)
