"""npusim ascendc run KERNEL.cpp --blocks N --input x=FILE.npy ... --tiling FILE.json"""
import json

import numpy as np
import pytest

from npusim.cli import main

from .conftest import needs_gxx
from .public_cases import kernel_path, tiling_b

pytestmark = needs_gxx


def test_run_public_add_custom(tmp_path, capsys):
    x = np.arange(4 * 2048, dtype=np.float32)
    y = np.full(4 * 2048, 0.5, np.float32)
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "y.npy", y)
    (tmp_path / "t.json").write_text(json.dumps(tiling_b()))
    rc = main(["ascendc", "run", kernel_path("add_custom"), "--blocks", "4", "--input", f"x={tmp_path / 'x.npy'}",
               "--input", f"y={tmp_path / 'y.npy'}", "--output", f"z={tmp_path / 'z.npy'}",
               "--tiling", str(tmp_path / "t.json"), "-D", "DTYPE_X=float", "-D", "DTYPE_Y=float",
               "-D", "DTYPE_Z=float", "--trace", str(tmp_path / "trace.json")])
    assert rc == 0
    np.testing.assert_array_equal(np.load(tmp_path / "z.npy"), x + y)
    out = capsys.readouterr().out
    assert "add_custom: 4 block(s)" in out and "DataCopy" in out
    assert json.loads((tmp_path / "trace.json").read_text())


def test_missing_argument_is_named(tmp_path):
    np.save(tmp_path / "x.npy", np.zeros(2048, np.float32))
    with pytest.raises(SystemExit, match="parameter 'y'"):
        main(["ascendc", "run", kernel_path("add_custom"), "--input", f"x={tmp_path / 'x.npy'}",
              "-D", "DTYPE_X=float", "-D", "DTYPE_Y=float", "-D", "DTYPE_Z=float"])
