"""The npusim command: info, run (with trace and plot), demo."""
import json
import os
import subprocess
import sys
import textwrap

import npusim
from npusim.cli import main

SRC = os.path.dirname(os.path.dirname(npusim.__file__))


def test_info_lists_every_target(capsys):
    assert main(["info"]) == 0
    out = capsys.readouterr().out
    for t in ("okk", "nki", "ascendc", "vppl"):
        assert t in out


def test_run_profiles_a_script_and_writes_trace_and_plot(tmp_path, capsys):
    script = tmp_path / "kernel.py"
    script.write_text(textwrap.dedent("""
        from npusim.core import Timeline
        tl = Timeline({"vector": 1e9, "scalar": 1e9}, core="nc0")
        tl.place("vector", "nisa.tensor_scalar", 640)
        tl.place("scalar", "nisa.activation", 320)
    """))
    trace, plot = tmp_path / "out.json", tmp_path / "out.png"
    assert main(["run", str(script), "--trace", str(trace), "--plot", str(plot)]) == 0
    out = capsys.readouterr().out
    assert "nisa.tensor_scalar" in out and "0.640 us" in out
    names = {e["args"]["name"] for e in json.loads(trace.read_text())["traceEvents"] if e["name"] == "thread_name"}
    assert names == {"vector", "scalar"}
    assert plot.read_bytes()[:4] == b"\x89PNG"


def test_demo_core_writes_trace_and_plot(tmp_path):
    out = tmp_path / "demo"
    r = subprocess.run([sys.executable, "-m", "npusim", "demo", "--target", "core", "--out", str(out)],
                       capture_output=True, text=True, timeout=120,
                       env={**os.environ, "PYTHONPATH": SRC})
    assert r.returncode == 0, r.stdout + r.stderr
    assert "double buffering overlaps" in r.stdout
    assert (out / "core.json").exists() and (out / "core.png").exists()
