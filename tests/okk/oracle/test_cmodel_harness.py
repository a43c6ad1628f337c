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


@pytest.mark.parametrize("func", ["okk_bdc_exp_tunable", "okk_bdc_sigmoid", "okk_bdc_rsqrt",
                                  "okk_bdc_taylor_exp", "okk_bdc_reciprocal"])
def test_acceptance_library_agrees_on_random_batches(func):
    """libcmodel_bm1684.so is the acceptance oracle; the suite runs libbackend (it records cycles).
    A random batch of each kind gives the same bytes on both. libcmodel executes the queued
    commands only at okk_poll (see test_cmodel_library_runs_commands_at_poll), so every call gets
    its own okk_initialize .. okk_poll section before its read-back."""
    from npusim.okk.oracle.bdc_cases import add_case
    from npusim.okk.oracle.differential import seeded
    from npusim.okk.oracle.programs import Builder
    rng = seeded("libraries", func)
    b = Builder()
    b.call("okk_initialize")
    for i in range(60):
        add_case(b, rng, func, f"case {i}", "strided" if func == "okk_bdc_reciprocal" else "domain")
    b.call("okk_poll")
    steps = []
    for st in b.steps:
        if st[0] == "call" and st[1] == func:
            steps += [("call", "okk_initialize", ()), st, ("call", "okk_poll", ())]
        else:
            steps.append(st)
    with Oracle("cmodel") as a:
        ra = a.run(steps)
    rb = _backend().run(steps)
    assert ra.error is None and rb.error is None
    assert len(ra.reads) == len(b.labels) and ra.reads == rb.reads


def test_cmodel_library_runs_commands_at_poll():
    """libcmodel_bm1684.so queues GDMA and BDC commands (its worker threads may run them any time before
    okk_poll returns); libbackend runs each at issue (which the differential batches rely on: they read
    back before the poll)."""
    x = np.float32([1, 2, 3, 4])
    sh = (1, 1, 1, 4)
    steps = [("ws", G, x.tobytes()), ("wl", 0, bytes(16)), ("wl", 128, bytes(16)),
             ("call", "okk_initialize", ()), ("call", "okk_gdma_32bit_cpy_S2L", (0, G, sh, None, None)),
             ("rl", 0, 16), ("call", "okk_bdc_neg", (128, 0, sh, None, None)), ("rl", 128, 16),
             ("call", "okk_poll", ()), ("rl", 0, 16), ("rl", 128, 16)]
    with Oracle("cmodel") as a:
        ra = a.run(steps)
    rb = _backend().run(steps)
    zeros, neg = bytes(16), (-x).tobytes()
    assert ra.reads[2:] == [x.tobytes(), neg]                       # done by the poll
    assert ra.reads[0] in (zeros, x.tobytes()) and ra.reads[1] in (zeros, neg)   # queued or already run
    assert rb.reads == [x.tobytes(), neg, x.tobytes(), neg]


def _backend():
    from npusim.okk.oracle.differential import shared_oracle
    return shared_oracle()


def test_parse_dump_rows():
    text = ("|MD_SFU|s:5049|b:1|g:1|e:5112|t:64" + " " * 56
            + "|TENSOR_GDMA|s:5049|b:0|g:2|e:10005|t:4957|dr:1|sz:262144\nAPI_END total_cycle:16697|b:7|g:2\n")
    rows, totals = parse_dump(text)
    assert [(r.engine, r.name, r.cycles) for r in rows] == [("BD", "MD_SFU", 64), ("GDMA", "TENSOR_GDMA", 4957)]
    assert rows[1].direction == "L2S" and rows[1].size == 262144 and rows[1].end == 10005
    assert totals == [16697]


def test_several_poll_sections_attach_to_their_calls(oracle):
    """Sections with one engine only, and an empty section, keep their instructions apart."""
    sh = (1, 64, 1, 32)
    prog = [("call", "okk_initialize", ()), ("call", "okk_gdma_32bit_cpy_S2L", (0, G, sh, None, None)),
            ("call", "okk_poll", ()),
            ("call", "okk_initialize", ()), ("call", "okk_poll", ()),
            ("call", "okk_initialize", ()), ("call", "okk_bdc_neg", (0x8000, 0, sh, None, None)),
            ("call", "okk_bdc_rsqrt", (0x9000, 0, sh)), ("call", "okk_poll", ())]
    r = oracle.run(prog)
    got = {c.name: [(i.engine, i.name, i.cycles) for i in c.instructions] for c in r.calls if c.instructions}
    assert got == {"okk_gdma_32bit_cpy_S2L": [("GDMA", "TENSOR_GDMA", 290)],
                   "okk_bdc_neg": [("BD", "MD_SCALAR", 2)],
                   "okk_bdc_rsqrt": [("BD", "MD_SFU", 54)]}
    assert r.totals == [290, 0, 56]
