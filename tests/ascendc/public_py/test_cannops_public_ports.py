"""Python ports of the public cann-ops kernels in tests/ascendc/public/ (one module cannops_<op>.py each), run
on the inputs and tiling of the .cpp drivers (tests/ascendc/cpp/public_cases.py) with default settings
(auto-sync, all checks): each matches the drivers' numpy reference and, with a C++ compiler, gives the same
output bytes and the same timeline events as the unchanged .cpp kernel."""
import importlib.util
import os
import shutil
import sys

import numpy as np
import pytest

from npusim import ascendc as asc

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("public_cases", os.path.join(os.path.dirname(HERE), "cpp", "public_cases.py"))
public_cases = importlib.util.module_from_spec(_spec)
sys.modules.setdefault("public_cases", public_cases)       # dataclasses look their module up
_spec.loader.exec_module(public_cases)
CASES, kernel_path = public_cases.CASES, public_cases.kernel_path

# case name in public_cases.CASES -> the module holding its port (cannops_<module>.py)
PORTED = {"sqrt": "sqrt", "swi_glu": "swi_glu", "xlogy": "xlogy", "pre_layer_norm": "pre_layer_norm", "is_finite": "is_finite", "heaviside": "heaviside", "heaviside[scalar values]": "heaviside", "tanh[float32]": "tanh", "equal": "compare", "greater": "compare", "logical_not": "family_b", "lerp": "family_b", "muls[float32]": "family_b", "muls[float16]": "family_b", "muls[int32]": "family_b", "muls[int16]": "family_b", "gelu": "family_c", "fast_gelu": "family_c", "clip_by_value": "family_c", "rsqrt": "family_a", "swish": "family_a", "addcmul": "family_a", "addcdiv": "family_a", "reciprocal": "family_b", "neg": "family_b", "exp": "family_b"}


PORTED.update({n: "cast" for n in CASES if n.startswith("cast[") and CASES[n].tiling["TILING_KEY"] in (1, 8)})
PORTED.update({n: "less_equal" for n in CASES if n.startswith("less_equal[")})
PORTED.update({n: "greater_equal" for n in CASES if n.startswith("greater_equal[")})
PORTED.update({n: "less" for n in CASES if n.startswith("less[")})
PORTED.update({"fill": "fill", "is_inf[float16]": "is_inf"})
# Ports whose timeline differs from the .cpp's by design, and the port's extra events: fill.cpp reads its GM
# scalar with a raw `*(__gm__ T*)value` (untimed in the C++ route); Python has no GM dereference, so the port
# uses GlobalTensor::GetValue, one PIPE_S event per core, and the later events start that much later.
EXTRA_PORT_EVENTS = {"fill": ("PIPE_S", "GetValue")}
PORTED.update({"add_custom": "family_b", "add_custom[int8]": "family_b", "sin[float32]": "sin", "cos[float32]": "cos",
               "unalign_add": "simple_binary", "sub_frameworklaunch": "simple_binary", "fast_gelu_grad": "family_c", "logical_or": "family_b"})
DTYPE_ARGS = {"cast": ("DTYPE_X", "DTYPE_Y"), "less_equal": ("DTYPE_X1",), "greater_equal": ("DTYPE_X1",), "less": ("DTYPE_X1", "DTYPE_X2"), "add_custom": ("DTYPE_X",)}   # the build's defines, as keywords
_ASC_TYPES = {"float": asc.float, "half": asc.half, "int32_t": asc.int32_t, "int8_t": asc.int8_t,
              "uint8_t": asc.uint8_t}


def _port(name, op):
    mod_name = f"cannops_{PORTED[name]}"
    spec = importlib.util.spec_from_file_location(mod_name, os.path.join(HERE, f"{mod_name}.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    kernel = getattr(mod, op)
    if op not in DTYPE_ARGS:
        return kernel
    dtypes = {k: _ASC_TYPES[CASES[name].defines[k]] for k in DTYPE_ARGS[op]}

    def with_dtypes(*args, **kw):
        return kernel(*args, **dtypes, **kw)
    with_dtypes.__name__ = op
    return with_dtypes


def _events(r):
    return [(e.core, e.engine, e.name, e.start_ns, e.end_ns, e.cycles) for e in r.trace.events]


def _run(kernel, c, ins):
    out = np.zeros(c.n_out, c.out_dtype)
    if np.issubdtype(c.out_dtype, np.floating):
        out[:] = np.nan
    extra = [np.zeros(c.workspace, np.uint8)] if c.workspace else []
    if c.inplace:
        out = ins[0].copy()
        return out, asc.launch(kernel, c.blocks, out, *extra, tiling=c.tiling)
    return out, asc.launch(kernel, c.blocks, *ins, out, *extra, tiling=c.tiling)


@pytest.mark.parametrize("name", sorted(PORTED))
def test_port_matches_numpy_and_the_cpp(name):
    c = CASES[name]
    ins = c.inputs(np.random.default_rng(0))
    out_py, r_py = _run(_port(name, c.op), c, ins)
    want = c.reference(*ins)
    if c.rtol == 0 and c.atol == 0:
        np.testing.assert_array_equal(out_py, want)
    else:
        np.testing.assert_allclose(out_py, want, rtol=c.rtol, atol=c.atol)
    assert r_py.cycles > 0
    if shutil.which((os.environ.get("CXX") or "g++").split()[0]) is None:
        pytest.skip("no C++ compiler: the .cpp half of the comparison needs g++")
    k = asc.load_cpp(kernel_path(c.op), defines=c.defines)
    out_cpp, r_cpp = _run(getattr(k, c.op), c, ins)
    assert out_cpp.tobytes() == out_py.tobytes()
    if name in EXTRA_PORT_EVENTS:
        extra = EXTRA_PORT_EVENTS[name]
        kept = [e[:3] for e in _events(r_py) if e[1:3] != extra]
        assert [e[:3] for e in _events(r_cpp)] == kept
        assert len(r_py.trace.events) - len(kept) == c.blocks
        return
    assert _events(r_cpp) == _events(r_py)
    assert r_cpp.auto_syncs == r_py.auto_syncs


def test_pre_layer_norm_port_relies_on_auto_sync_as_the_cpp_does():
    """The port, like the .cpp, has no barriers or flags of its own: under sync="manual" the same first race
    (ReduceSum reading Add's result in PIPE_V; the .cpp route prefixes its message with the .cpp file:line,
    a Python kernel's location is in the traceback); the default auto-sync inserts what is missing."""
    import npusim
    c = CASES["pre_layer_norm"]
    ins = c.inputs(np.random.default_rng(0))
    out = np.zeros(c.n_out, c.out_dtype)
    with pytest.raises(npusim.core.errors.RaceError, match=r"ReduceSum reads what Add wrote"):
        asc.launch(_port("pre_layer_norm", c.op), c.blocks, *ins, out, tiling=c.tiling, sync="manual")
    res = asc.launch(_port("pre_layer_norm", c.op), c.blocks, *ins, out, tiling=c.tiling)
    assert res.auto_syncs > 0


def test_every_port_header_names_its_source_and_commit():
    for mod in sorted(set(PORTED.values())):
        head = open(os.path.join(HERE, f"cannops_{mod}.py")).read(1200)
        assert "Hayden727/cann-ops" in head and "eef0ff770ece1497e98bbf063028465a20417dfe" in head, mod
        assert "op_kernel/" in head, mod


def test_is_inf_float_key_breaks_the_same_rule_in_both_routes():
    """is_inf's float key casts float -> half in place over a partial overlap: the port stops at the same
    ConstraintError (Cast, overlap) as the unchanged .cpp."""
    from npusim.core.errors import ConstraintError
    c = CASES["is_inf[float16]"]
    x = np.random.default_rng(0).uniform(-1e30, 1e30, c.n_out).astype(np.float32)
    t = dict(c.tiling, TILING_KEY=2)
    routes = [_port("is_inf[float16]", "is_inf")]
    if shutil.which((os.environ.get("CXX") or "g++").split()[0]) is not None:
        routes.append(asc.load_cpp(kernel_path("is_inf"), defines=c.defines).is_inf)
    msgs = []
    for kernel in routes:
        with pytest.raises(ConstraintError, match=r"Cast") as e:
            asc.launch(kernel, c.blocks, x, np.zeros(c.n_out, np.uint8), np.zeros(32, np.uint8), tiling=t)
        msgs.append(str(e.value).split(": ", 1)[-1] if "is_inf.h" in str(e.value) else str(e.value))
    assert len(set(msgs)) == 1, msgs
