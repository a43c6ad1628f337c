"""The part-two examples run and pass their own checks (each layer within its documented bound)."""
import importlib.util
import os

import pytest

from npusim.vppl.parser import VpplSemanticError

EX = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "vppl")


def load(name):
    spec = importlib.util.spec_from_file_location(f"vppl_example_{name}", os.path.join(EX, name + ".py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_gemv_example(capsys):
    load("gemv_bias_relu").main()
    assert "OK" in capsys.readouterr().out


def test_small_cnn_example_layers_within_bounds():
    cnn = load("small_cnn")
    image, w = cnn.test_image(), cnn.make_weights()
    out = cnn.run_vppl(image, w)
    errs = cnn.check(out, image, w)
    assert errs["conv1+relu"] <= 0.5 and errs["end-to-end probability"] <= 0.02
    assert abs(int(out["s"].sum()) - 65536) <= 10
    names = [e.name for e in out["machine"].timeline.trace.events]
    assert names.count("DNN_convolutionLayer") == 16 and names.count("get_array") == 1


def test_small_cnn_text_error_points_at_the_line():
    cnn = load("small_cnn")
    with open(cnn.SOURCE, encoding="utf-8") as f:
        src = f.read().replace("DNN_poolingLayer(2, 2, 124, 124, 62, 62", "DNN_poolingLayer(2, 2, 124, 124, 63, 62", 1)
    with pytest.raises(VpplSemanticError) as e:
        cnn.run_vppl(cnn.test_image(), cnn.make_weights(), source=src)
    assert e.value.param == "output width" and "DNN_poolingLayer" in str(e.value) and "^" in str(e.value)


def test_demo_checks_pass():
    from npusim.vppl import demo_part_two
    checks = demo_part_two.run()
    assert len(checks) == 2 and all(c.ok for c in checks)
