"""The oracle harness itself: loading, memory round trips, cycle records, crash isolation.

Expected cycle numbers are the ones okkernel_cycles.md §2/§5 measured on the same library.
"""

import numpy as np
import pytest

from npusim.okk.oracle.fetch import available

if not available():
    pytest.skip("C-model libraries absent (run: python -m npusim.okk.oracle.fetch)", allow_module_level=True)

from npusim.okk.oracle.cmodel import GLOBAL_START as G, Oracle, parse_dump  # noqa: E402

SH = (1, 64, 1, 1024)


def test_round_trip_and_exp_program(oracle):
    x = np.linspace(-3, 3, 64 * 1024, dtype=np.float32)
    prog = [("ws", G, x.tobytes()), ("call", "okk_initialize", ()),
            ("call", "okk_gdma_32bit_cpy_S2L", (0, G, SH, None, None)),
            ("call", "okk_bdc_exp", (0x8000, 0, 0x10000, SH)),
            ("call", "okk_gdma_32bit_cpy_L2S", (G + 0x400000, 0x8000, SH, None, None)),
            ("call", "okk_poll", ()), ("rs", G + 0x400000, x.nbytes), ("rl", 0, 1024 * 4)]
    r = oracle.run(prog)
    assert r.error is None
    y = np.frombuffer(r.reads[0], np.float32)
    assert np.max(np.abs(y / np.exp(x.astype(np.float64)) - 1)) < 1e-6
    # NPU 0 holds channel 0 at offset 0: the first 1024 inputs
    assert np.frombuffer(r.reads[1], np.float32).tobytes() == x[:1024].tobytes()
    by_name = {c.name: c for c in r.calls}
    assert by_name["okk_gdma_32bit_cpy_S2L"].cycles == 5049
    exp = by_name["okk_bdc_exp"]
    assert [i.cycles for i in exp.instructions] == [64, 1536, 64, 64, 1536, 8320, 64]
    assert exp.cycles == 11648
    assert by_name["okk_gdma_32bit_cpy_L2S"].cycles == 4957
    assert r.totals == [5049 + 11648 + 4957]


def test_parallel_region_overlaps(oracle):
    prog = [("call", "okk_initialize", ()),
            ("call", "okk_gdma_32bit_cpy_S2L", (0, G, SH, None, None)),
            ("call", "okk_parallel_start", ()),
            ("call", "okk_gdma_32bit_cpy_S2L", (0x20000, G, SH, None, None)),
            ("call", "okk_bdc_exp", (0x8000, 0, 0x10000, SH)),
            ("call", "okk_gdma_32bit_cpy_L2S", (G + 0x400000, 0x30000, SH, None, None)),
            ("call", "okk_parallel_end", ()),
            ("call", "okk_poll", ())]
    r = oracle.run(prog)
    # BD 11648 overlaps 5049 + 4957 of GDMA: the region costs max(...) (okkernel_cycles.md §2)
    assert r.totals == [5049 + max(11648, 5049 + 4957)]
    end = [c for c in r.calls if c.name == "okk_parallel_end"][0]
    assert sum(i.cycles for i in end.instructions if i.engine == "BD") == 11648


def test_abort_is_isolated_and_worker_restarts():
    with Oracle("backend") as o:
        bad = o.run([("call", "okk_initialize", ()), ("call", "okk_bdc_exp", (0x8000, 4, 0x10000, SH))])
        assert bad.error is not None and "A_addr" in bad.error
        good = o.run([("ws", G, b"\x01\x02\x03\x04"), ("rs", G, 4)])
        assert good.error is None and good.reads == [b"\x01\x02\x03\x04"]


def test_cmodel_and_backend_agree():
    x = np.random.default_rng(1).standard_normal(64 * 32).astype(np.float32) * 4
    sh = (1, 64, 1, 32)
    prog = [("ws", G, x.tobytes()), ("call", "okk_initialize", ()),
            ("call", "okk_gdma_32bit_cpy_S2L", (0, G, sh, None, None)),
            ("call", "okk_bdc_tanh", (0x8000, 0, 0x10000, sh)),
            ("call", "okk_gdma_32bit_cpy_L2S", (G + 0x10000, 0x8000, sh, None, None)),
            ("call", "okk_poll", ()), ("rs", G + 0x10000, x.nbytes)]
    with Oracle("cmodel") as a, Oracle("backend") as b:
        ra, rb = a.run(prog), b.run(prog)
    assert ra.reads == rb.reads
    assert ra.totals == [] and rb.totals != []   # only the backend build records cycles


def test_parse_dump_rows():
    text = ("|MD_SFU|s:5049|b:1|g:1|e:5112|t:64" + " " * 56
            + "|TENSOR_GDMA|s:5049|b:0|g:2|e:10005|t:4957|dr:1|sz:262144\nAPI_END total_cycle:16697|b:7|g:2\n")
    rows, totals = parse_dump(text)
    assert [(r.engine, r.name, r.cycles) for r in rows] == [("BD", "MD_SFU", 64), ("GDMA", "TENSOR_GDMA", 4957)]
    assert rows[1].direction == "L2S" and rows[1].size == 262144 and rows[1].end == 10005
    assert totals == [16697]
