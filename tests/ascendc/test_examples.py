"""The examples under examples/ascendc run and check themselves."""
import importlib.util
import os

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLES = os.path.join(HERE, "..", "..", "examples", "ascendc")


def load(name):
    spec = importlib.util.spec_from_file_location(f"asc_example_{name}", os.path.join(EXAMPLES, name + ".py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("name", ["add_custom", "add_relu_cast_quantise", "leaky_relu", "softmax_rows"])
def test_example_checks_itself(name):
    out = load(name).main()
    assert out[0] is True


def test_add_custom_double_buffering_overlaps_copy_and_compute():
    ok, res = load("add_custom").main()
    core0 = [e for e in res.trace.events if e.core == "aiv0"]
    mte2 = [e for e in core0 if e.engine == "PIPE_MTE2" and e.name == "DataCopy"]
    vec = [e for e in core0 if e.engine == "PIPE_V" and e.name == "Add"]
    assert len(mte2) == 32 and len(vec) == 16
    # the second tile's loads start before the first Add ends is impossible (Add waits for them), but the
    # third tile's loads (other buffer) run while the first tiles compute: MTE2 never idles for V.
    busy = sum(e.dur_ns for e in mte2)
    span = max(e.end_ns for e in core0) - min(e.start_ns for e in core0)
    assert busy / span > 0.9
