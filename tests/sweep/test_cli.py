"""`npusim sweep` round trip (csv, png, best printed) and `npusim run` of scripts ending in sys.exit."""
import csv
import json
import os

import pytest

from npusim.cli import main
from npusim.tune.cli import parse_param

HERE = os.path.dirname(os.path.abspath(__file__))


def test_parse_param_types():
    assert parse_param("tile=64,128") == ("tile", [64, 128])
    assert parse_param("scale=0.5,1") == ("scale", [0.5, 1])
    assert parse_param("soc=Ascend910B1,Ascend310P3") == ("soc", ["Ascend910B1", "Ascend310P3"])
    for bad in ("tile", "tile=", "=1,2", "2x=1"):
        with pytest.raises(SystemExit, match="NAME=V1,V2"):
            parse_param(bad)


def test_sweep_cli_round_trip(tmp_path, capsys):
    out_csv, out_png = tmp_path / "rows.csv", tmp_path / "sweep.png"
    code = main(["sweep", os.path.join(HERE, "cli_kernel.py"), "--param", "tile_p=64,128,256",
                 "--param", "tile_f=256,512", "--workers", "2", "--csv", str(out_csv), "--plot", str(out_png),
                 "--no-progress"])
    text = capsys.readouterr().out
    assert code == 0
    with open(out_csv) as fh:
        recs = list(csv.DictReader(fh))
    fastest = min((r for r in recs if r["passed"] == "True"), key=lambda r: float(r["sim_ns"]))
    assert f"best by sim_ns: tile_p={fastest['tile_p']} tile_f={fastest['tile_f']}" in text
    assert [(r["tile_p"], r["tile_f"], r["passed"]) for r in recs] == [
        ("64", "256", "True"), ("64", "512", "True"), ("128", "256", "True"), ("128", "512", "True"),
        ("256", "256", "False"), ("256", "512", "False")]
    assert out_png.read_bytes()[:4] == b"\x89PNG"


def test_sweep_cli_exit_1_when_nothing_passes(capsys):
    code = main(["sweep", os.path.join(HERE, "cli_kernel.py"), "--param", "tile_p=256", "--param",
                 "tile_f=512", "--workers", "1", "--no-progress"])
    assert code == 1 and "no configuration" in capsys.readouterr().out


def test_sweep_cli_rejects_a_file_without_run(tmp_path, capsys):
    f = tmp_path / "k.py"
    f.write_text("x = 1\n")
    assert main(["sweep", str(f), "--param", "a=1", "--no-progress"]) == 2
    # (the console wraps long lines where the temporary path's length puts the break: join them)
    assert "defines no run" in " ".join(capsys.readouterr().out.split())


@pytest.mark.parametrize("status", [0, 3])
def test_run_writes_outputs_and_reports_a_scripts_sys_exit(tmp_path, capsys, status):
    trace, plot = tmp_path / "t.json", tmp_path / "t.png"
    code = main(["run", os.path.join(HERE, "exits_script.py"), str(status), "--trace", str(trace), "--plot", str(plot)])
    text = capsys.readouterr().out
    assert code == status
    assert "ran the tiled add" in text and f"exited with status {status}" in text
    assert "npusim timeline: 16 events" in text          # the summary of what ran before sys.exit
    events = [e for e in json.loads(trace.read_text())["traceEvents"] if e["ph"] == "X"]
    assert len(events) == 16
    assert plot.read_bytes()[:4] == b"\x89PNG"


def test_sweep_cli_scheduler_without_dask_names_the_extra(monkeypatch, capsys):
    import builtins
    real = builtins.__import__

    def no_distributed(name, *a, **k):
        if name == "distributed" or name.startswith("distributed."):
            raise ImportError("No module named 'distributed'")
        return real(name, *a, **k)
    monkeypatch.setattr(builtins, "__import__", no_distributed)
    code = main(["sweep", os.path.join(HERE, "cli_kernel.py"), "--param", "tile_p=128", "--param", "tile_f=512",
                 "--scheduler", "tcp://127.0.0.1:1", "--no-progress"])
    assert code == 2 and "npusim[dask]" in capsys.readouterr().out


def test_sweep_cli_on_a_dask_scheduler_address(capsys):
    distributed = pytest.importorskip("distributed", reason="dask.distributed absent (pip install npusim[dask])")
    with distributed.LocalCluster(processes=False, n_workers=1, threads_per_worker=1,
                                  dashboard_address=None) as cluster:
        code = main(["sweep", os.path.join(HERE, "cli_kernel.py"), "--param", "tile_p=64,128", "--param",
                     "tile_f=256", "--scheduler", cluster.scheduler_address, "--no-progress"])
    text = capsys.readouterr().out
    assert code == 0 and "best by sim_ns: tile_p=128 tile_f=256" in text and "dask" in text
