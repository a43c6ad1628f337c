"""A public kernel as .cpp and as its line-by-line Python port: same bytes, same timeline."""
import importlib.util
import os

import numpy as np

from npusim import ascendc as asc

from .conftest import needs_gxx
from .public_cases import kernel_path

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def _port():
    spec = importlib.util.spec_from_file_location("cannops_add_custom",
                                                  os.path.join(ROOT, "examples", "ascendc", "cannops_add_custom.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@needs_gxx
def test_cpp_and_python_port_agree_on_bytes_and_timeline():
    port = _port()
    rng = np.random.default_rng(3)
    x, y = rng.standard_normal((2, 8 * 2048)).astype(np.float32)
    z_py, z_cpp = np.zeros_like(x), np.zeros_like(x)
    r_py = asc.launch(port.add_custom, 8, x, y, z_py, tiling=port.TILING)
    k = asc.load_cpp(kernel_path("add_custom"), defines={"DTYPE_X": "float", "DTYPE_Y": "float", "DTYPE_Z": "float"})
    r_cpp = asc.launch(k.add_custom, 8, x, y, z_cpp, tiling=port.TILING)
    np.testing.assert_array_equal(z_py, x + y)
    np.testing.assert_array_equal(z_cpp, z_py)
    assert r_cpp.cycles == r_py.cycles
    ev_py = [(e.core, e.engine, e.name, e.start_ns, e.end_ns) for e in r_py.trace.events]
    ev_cpp = [(e.core, e.engine, e.name, e.start_ns, e.end_ns) for e in r_cpp.trace.events]
    assert ev_cpp == ev_py
    assert {e.source.split(":")[0] for e in r_cpp.trace.events} == {"add_custom.cpp"}
    assert {e.source.split(":")[0] for e in r_py.trace.events} == {"cannops_add_custom.py"}
