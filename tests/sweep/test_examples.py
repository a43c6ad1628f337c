"""The tuning examples in examples/sweep/: every row is what the engines' documented limits and the
kernel's loop structure say it must be (which tilings are refused, how many instructions each issues)."""
import os

import npusim
from npusim.tune.kernel_file import load_module

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "sweep")


def example(name):
    return load_module(os.path.join(EXAMPLES, name))


def test_nki_matmul_tiles_refused_exactly_past_the_engine_limits():
    mod = example("tune_nki_matmul.py")
    space = {"tile_m": [64, 256], "tile_n": [512, 1024], "tile_k": [64, 128]}     # a corner of mod.SPACE
    res = npusim.sweep(mod.run, space, check=mod.check, executor=2, progress=False)
    assert len(res.passed) == 2
    for r in res.rows:
        c = r.config
        # nc_matmul: stationary free size <= 128, moving free size <= 512, contraction <= 128 partitions
        legal = c["tile_m"] <= 128 and c["tile_n"] <= 512 and c["tile_k"] <= 128
        assert r.passed == legal, (c, r.error)
        if legal:     # per output tile: K/tile_k x (2 loads + matmul), then copy + store
            tiles = (mod.M // c["tile_m"]) * (mod.N // c["tile_n"])
            assert r.instructions == tiles * (3 * (mod.K // c["tile_k"]) + 2)
        else:
            assert "NkiValidationError" in r.error
    assert res.best() is min(res.passed, key=lambda r: r.sim_ns)


def test_okk_conv2d_instruction_counts_follow_the_tiling(tmp_path):
    mod = example("tune_okk_conv2d.py")
    res = npusim.sweep(mod.run, {"oc_tile": [16, 64], "rows": [8, 32]}, check=mod.check, executor=2,
                       progress=False)
    assert len(res.passed) == 4
    oh = mod.SHAPE[2]
    for r in res.rows:
        groups, steps = -(-mod.OC // r.config["oc_tile"]), -(-oh // r.config["rows"])
        assert r.instructions == groups * (1 + 3 * steps)        # weights, then GDMA in / conv / GDMA out
        assert set(r.busy_ns) == {"BDC", "GDMA"}
    res.plot(tmp_path / "conv.png")
    assert (tmp_path / "conv.png").stat().st_size > 1000


def test_ascendc_example_main_prints_the_best_per_soc(tmp_path, capsys):
    mod = example("tune_ascendc_add.py")
    assert mod.main(["--plot", str(tmp_path / "asc.png"), "--workers", "2"]) == 0
    text = capsys.readouterr().out
    for soc in ("Ascend910B1", "Ascend310P3", "Ascend310B1"):
        assert f"{soc}: best buffer_num=" in text
    assert "24 passed" in text and (tmp_path / "asc.png").exists()
