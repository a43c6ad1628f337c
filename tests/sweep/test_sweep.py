"""npusim.sweep: rows in space order with the profiled cost of each config, errors as rows, the same
table from every executor, best / csv / plot."""
import csv
import os
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest

import npusim
from npusim.core.errors import ConstraintError
from npusim.tune import expand

sys.path.insert(0, os.path.dirname(__file__))
import tiled_add as kernels  # noqa: E402

SPACE = {"tile_p": [64, 128, 256], "tile_f": [256, 512]}


@pytest.fixture(scope="module")
def inline():
    return npusim.sweep(kernels.run, SPACE, check=kernels.check, executor="inline", progress=False)


def test_expand_cartesian_in_key_order_and_list_of_dicts():
    assert expand({"a": [1, 2], "b": ["x", "y"]}) == [
        {"a": 1, "b": "x"}, {"a": 1, "b": "y"}, {"a": 2, "b": "x"}, {"a": 2, "b": "y"}]
    assert expand({"a": range(2), "soc": "A"}) == [{"a": 0, "soc": "A"}, {"a": 1, "soc": "A"}]
    assert expand([{"a": 1}, {"a": 3, "b": 2}]) == [{"a": 1}, {"a": 3, "b": 2}]


@pytest.mark.parametrize("space, rule", [({"a": []}, "at least one value"), ({"not a name": [1]}, "identifiers"),
                                         ([{"a": 1}, 3], "only dicts"), (42, "dict of value lists")])
def test_bad_space_is_a_constraint_error(space, rule):
    with pytest.raises(ConstraintError, match=rule):
        npusim.sweep(kernels.run, space, executor="inline", progress=False)


def test_rows_hold_the_profiled_cost_of_each_config(inline):
    assert [r.config for r in inline.rows] == expand(SPACE)
    assert [r.index for r in inline.rows] == list(range(6))
    for r in inline.rows[:4]:
        # the same run profiled by hand gives the same numbers
        with npusim.profile() as prof:
            out = kernels.run(**r.config)
        assert r.passed and r.error is None and kernels.check(out)
        assert r.sim_ns == prof.trace.total_ns > 0
        assert r.instructions == len(prof.trace.events)
        # one dma_copy in, one in, one add, one out per tile
        tiles = (kernels.SHAPE[0] // r.config["tile_p"]) * (kernels.SHAPE[1] // r.config["tile_f"])
        assert r.instructions == 4 * tiles
        vector = sum(e.dur_ns for e in prof.trace.events if e.engine == "vector")
        assert r.busy_ns["vector"] == pytest.approx(vector)
        assert r.util["vector"] == pytest.approx(vector / r.sim_ns)
        clock = max(prof.trace.engines.values())
        assert r.cycles == pytest.approx(r.sim_ns * clock / 1e9)


def test_an_invalid_config_is_a_row_with_its_error(inline):
    bad = [r for r in inline.rows if r.config["tile_p"] == 256]
    assert len(bad) == 2 and len(inline.failed) == 2
    for r in bad:
        assert not r.passed and r.sim_ns is None and r.cycles is None
        assert "256" in r.error and "partition" in r.error
    with pytest.raises(ConstraintError):        # the same config, run directly, raises that error
        kernels.run(256, 256)


def test_a_failed_check_fails_the_row_without_an_exception():
    res = npusim.sweep(kernels.run_wrong, {"tile_p": [128], "tile_f": [512]}, check=kernels.check,
                       executor="inline", progress=False)
    (r,) = res.rows
    assert not r.passed and r.error == "check returned False" and r.sim_ns > 0   # it ran: costs kept
    with pytest.raises(LookupError, match="no configuration"):
        res.best()


def test_best_is_the_fastest_passing_row(inline):
    fastest = min(inline.passed, key=lambda r: r.sim_ns)
    assert inline.best() is fastest and fastest.config["tile_p"] == 128
    assert inline.best("instructions").instructions == min(r.instructions for r in inline.passed)
    assert inline.best("util.vector", maximize=True).util["vector"] == max(r.util["vector"] for r in inline.passed)
    with pytest.raises(ConstraintError, match="numeric result column"):
        inline.best("tile_p")


def test_csv_and_plot(inline, tmp_path):
    inline.to_csv(tmp_path / "rows.csv")
    with open(tmp_path / "rows.csv") as fh:
        recs = list(csv.DictReader(fh))
    assert len(recs) == 6 and recs[0]["tile_p"] == "64" and recs[0]["tile_f"] == "256"
    assert float(recs[2]["sim_ns"]) == inline.rows[2].sim_ns
    assert recs[4]["passed"] == "False" and recs[4]["sim_ns"] == "" and "partition" in recs[4]["error"]
    assert "util.vector" in recs[0]
    inline.plot(tmp_path / "sweep.png")
    assert (tmp_path / "sweep.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_rich_table_renders(inline):
    from rich.console import Console
    console = Console(width=160, record=True, file=open(os.devnull, "w"))
    console.print(inline)
    text = console.export_text()
    assert "6 configs, 4 passed" in text and "NkiValidationError" in text


def _comparable(result):
    return [(r.index, r.config, r.passed, r.error, r.sim_ns, r.cycles, r.instructions, r.busy_ns, r.util)
            for r in result.rows]


def test_local_pool_and_thread_executor_give_the_inline_table(inline):
    pool = npusim.sweep(kernels.run, SPACE, check=kernels.check, executor=2, progress=False)
    assert _comparable(pool) == _comparable(inline)
    assert pool.rows == inline.rows            # Row equality ignores wall time only
    with ThreadPoolExecutor(2) as threads:     # rows of one process run one at a time (shared profile)
        threaded = npusim.sweep(kernels.run, SPACE, check=kernels.check, executor=threads, progress=False)
    assert _comparable(threaded) == _comparable(inline)


def test_dask_local_cluster_gives_the_local_pool_table(inline):
    distributed = pytest.importorskip("distributed", reason="dask.distributed absent (pip install npusim[dask])")
    pool = npusim.sweep(kernels.run, SPACE, check=kernels.check, executor=2, progress=False)
    with distributed.LocalCluster(processes=False, n_workers=2, threads_per_worker=1,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        on_dask = npusim.sweep(kernels.run, SPACE, check=kernels.check, executor=client, progress=False)
        by_address = npusim.sweep(kernels.run, SPACE, check=kernels.check,
                                  executor=cluster.scheduler_address, progress=False)
        lam = npusim.sweep(lambda tile_p, tile_f: kernels.run(tile_p, tile_f), SPACE, executor=client,
                           progress=False)      # Dask pickles closures too
    assert _comparable(on_dask) == _comparable(pool) == _comparable(inline)
    assert _comparable(by_address) == _comparable(pool)
    assert [r.sim_ns for r in lam.rows] == [r.sim_ns for r in pool.rows]
    assert on_dask.executor.startswith("dask")


def test_without_dask_asking_for_it_names_the_extra(monkeypatch):
    import builtins
    real = builtins.__import__

    def no_distributed(name, *a, **k):
        if name == "distributed" or name.startswith("distributed."):
            raise ImportError("No module named 'distributed'")
        return real(name, *a, **k)
    monkeypatch.setattr(builtins, "__import__", no_distributed)
    with pytest.raises(ImportError, match=r"npusim\[dask\]"):
        npusim.sweep(kernels.run, SPACE, executor="tcp://127.0.0.1:8786", progress=False)
    # the local pool needs nothing extra
    assert len(npusim.sweep(kernels.run, {"tile_p": [128], "tile_f": [512]}, executor="inline",
                            progress=False).passed) == 1


@pytest.mark.parametrize("executor", [0, -1, 2.5, object()])
def test_bad_executor_is_a_constraint_error(executor):
    with pytest.raises(ConstraintError, match="executor"):
        npusim.sweep(kernels.run, SPACE, executor=executor, progress=False)


def test_progress_bar_does_not_change_rows(inline, capsys):
    shown = npusim.sweep(kernels.run, SPACE, check=kernels.check, executor="inline", progress=True)
    assert _comparable(shown) == _comparable(inline)
    assert "6/6" in capsys.readouterr().err


def test_check_may_assert_and_a_broken_check_is_a_row():
    space = {"tile_p": [128], "tile_f": [256, 512]}
    asserts = npusim.sweep(kernels.run, space, check=kernels.check_asserts, executor="inline", progress=False)
    assert [r.passed for r in asserts.rows] == [False, True]
    assert asserts.rows[0].error == "AssertionError: tile_f 256 is not the published tile"
    assert asserts.rows[0].sim_ns > 0 and asserts.rows[1].error is None
    broken = npusim.sweep(kernels.run, space, check=kernels.check_array, executor="inline", progress=False)
    assert all(not r.passed and r.error.startswith("ValueError: The truth value") for r in broken.rows)


def test_any_exception_of_run_is_a_row_and_the_sweep_goes_on():
    res = npusim.sweep(kernels.run_raises_value_error, {"tile_p": [128], "tile_f": [256, 512]},
                       check=kernels.check, executor=2, progress=False)
    assert [r.passed for r in res.rows] == [True, False]
    assert res.rows[1].error == "ValueError: tile_f 512 outgrows the kernel's own budget"
    assert res.best().config == {"tile_p": 128, "tile_f": 256}


def test_rich_table_shows_errors_as_plain_text():
    from rich.console import Console
    res = npusim.sweep(kernels.run_raises_value_error, [{"tile_p": 128, "tile_f": 512}], executor="inline",
                       progress=False)
    res.rows[0].error = "ConstraintError: [bold] (got [1, 2])"
    for width in (60, 200):      # errors listed under the table, then in its error column
        console = Console(width=width, record=True, file=open(os.devnull, "w"))
        console.print(res)
        text = console.export_text()
        assert "ConstraintError: [bold] (got [1, 2])" in text
