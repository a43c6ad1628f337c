"""`npusim vppl FILE --extern/--externs/--read`: the part-two examples, whose External pointers the host
binds, run from the command line and give the same results as their Python hosts."""
import importlib.util
import os

import numpy as np

from npusim.cli import main

EX = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "vppl")


def load(name):
    spec = importlib.util.spec_from_file_location(f"vppl_cli_{name}", os.path.join(EX, name + ".py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_small_cnn_runs_under_the_cli_and_matches_the_python_host(tmp_path):
    cnn = load("small_cnn")
    cmd = cnn.write_inputs(str(tmp_path)).split()
    assert cmd[:2] == ["npusim", "vppl"]
    out = tmp_path / "s.npy"
    argv = cmd[1:-1] + [cmd[-1] + f":{out}"]             # --read pS=int32:10:OUT.npy
    assert main(argv) == 0
    ref = cnn.run_vppl(cnn.test_image(), cnn.make_weights())["s"]
    assert np.array_equal(np.load(out), ref)
    assert abs(int(ref.sum()) - 65536) <= 10


def test_gemv_with_single_extern_forms(tmp_path):
    g = load("gemv_bias_relu")
    A, x, b = g.problem()
    arrays = g.host_arrays(A, x, b)
    args = ["vppl", os.path.join(EX, "gemv_bias_relu.vppl"), "--extern", f"u={A.shape[0]}",
            "--extern", f"v={A.shape[1]}", "--extern", f"pY=zeros:{2 * arrays['pY'].size}"]
    for k in ("pX", "pB", "pA"):
        np.save(tmp_path / f"{k}.npy", arrays[k])
        args += ["--extern", f"{k}={tmp_path / (k + '.npy')}"]
    args += ["--read", f"pY=int16:{A.shape[0]}:{tmp_path / 'y.npy'}"]
    assert main(args) == 0
    y_text, _ = g.run_text(A, x, b)
    assert np.array_equal(np.load(tmp_path / "y.npy"), y_text)
    err = np.abs(y_text / 2.0 ** g.Q - g.reference(A, x, b)).max()
    assert err <= 0.5 * 2.0 ** -g.Q


def test_unbound_external_says_how_to_bind_it(capsys):
    assert main(["vppl", os.path.join(EX, "gemv_bias_relu.vppl")]) == 1
    out = " ".join(capsys.readouterr().out.split())
    assert "6 External global(s)" in out and "pX : pointer -> --extern pX=FILE.npy" in out
    assert "u : integer -> --extern u=INT" in out and "gemv_bias_relu.py --write-inputs DIR" in out


def test_an_unbound_external_in_python_names_the_cli_options_too():
    import pytest
    from npusim import vppl
    from npusim.vppl.parser import VpplSemanticError
    with pytest.raises(VpplSemanticError) as e:
        vppl.run_with("External n : integer;\nr : integer;\nr = n;\n")
    assert "--extern n=FILE.npy|INT|zeros:NBYTES" in str(e.value) and "1:10" in str(e.value)


def test_bad_extern_and_read_forms_are_usage_errors(tmp_path, capsys):
    f = os.path.join(EX, "gemv_bias_relu.vppl")
    assert main(["vppl", f, "--extern", "pX"]) == 2
    assert main(["vppl", f, "--read", "pY=int16"]) == 2
    assert "expected NAME=DTYPE:COUNT" in " ".join(capsys.readouterr().out.split())


def test_extern_array_of_wrong_shape_for_an_integer_raises(tmp_path, capsys):
    src = tmp_path / "t.vppl"
    src.write_text("External n : integer;\nr : integer;\nr = n + 1;\n")
    np.save(tmp_path / "n.npy", np.array([1, 2]))
    assert main(["vppl", str(src), "--extern", f"n={tmp_path / 'n.npy'}"]) == 1
    assert "one-element integer array" in " ".join(capsys.readouterr().out.split())
    assert main(["vppl", str(src), "--extern", "n=41"]) == 0
    assert "42" in capsys.readouterr().out
