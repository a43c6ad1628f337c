"""``npusim nki FILE --target ...`` runs a kernel script on the chosen chip."""
import os

from npusim.cli import main

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "nki")


def test_nki_subcommand_sets_the_target(tmp_path, capsys):
    script = tmp_path / "k.py"
    script.write_text(
        "import numpy as np\n"
        "import npusim.nki as nki\n"
        "import npusim.nki.isa as nisa\n"
        "@nki.jit\n"
        "def k(a):\n"
        "    print('nc version', int(nisa.get_nc_version()))\n"
        "nki.simulate(k)(np.zeros((2, 2), np.float32))\n")
    trace = tmp_path / "t.json"
    before = os.environ.get("NEURON_PLATFORM_TARGET_OVERRIDE")
    assert main(["nki", str(script), "--target", "trn1", "--trace", str(trace)]) == 0
    assert "nc version 2" in capsys.readouterr().out
    assert trace.exists()
    assert os.environ.get("NEURON_PLATFORM_TARGET_OVERRIDE") == before     # restored


def test_nki_subcommand_runs_an_example(tmp_path, capsys):
    assert main(["nki", os.path.join(EXAMPLES, "affine_rows.py"), "--target", "trn3"]) == 0
    out = capsys.readouterr().out
    assert "matches numpy" in out and "nisa.tensor_scalar" in out
