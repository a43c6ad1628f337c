"""Differential sweep of the public contest kernels (tests/okk/c/public/) over every contest case of their
kind: each .c runs unchanged on npusim and on Sophgo's C-model (``npusim.okk.c.cmodel_route``; needs the
C-model libraries, ``make oracle``), and both are compared with float64 numpy.

    PYTHONPATH=src python benchmarks/okk_contest_sweep.py --out sweep.jsonl        # run (resumable)
    PYTHONPATH=src python benchmarks/okk_contest_sweep.py --out sweep.jsonl --table  # print the table only

Rows: entrant, kind, case, bytes equal, per-section cycles equal, npusim s, C-model s (kernel call), max
relative error vs float64 (the contest metric |out - ref| / max(|out|, |ref|, 1)) and whether it is within
the contest tolerance. Jobs run cheapest first, one C-model process at a time; each finished job is
appended to the JSON-lines file, so a rerun skips what is done. Cases whose buffers do not fit the global
memory (``--global-mib``, default 256 MiB, the C-model worker's default) are listed as skipped with the
reason; ``--retry-skipped --global-mib 1024`` runs them (about 3 GiB of host memory for matmul case 0).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "okk"))

import c_drivers as cd  # noqa: E402

PUBLIC = os.path.join(cd.HERE, "public")
KINDS = ("softmax", "matmul", "depthwise", "conv2d")
GLOBAL_BYTES = 1 << 28          # the C-model worker's global memory (npusim.okk.oracle.cmodel.GLOBAL_BYTES)

# Contest S1 avg_pool cases (host/avg_pool.cpp; examples/okk/pooling.py S1), used with Sophgo's avg / max
# pool demos: (N, C, H, W, kh, kw, top, bottom, left, right, sh, sw, ceil_mode, count_include_pad).
POOL_CASES = dict(enumerate([
    (1, 40, 40, 40, 40, 40, 0, 0, 0, 0, 1, 1, 0, 0), (1, 1024, 32, 32, 16, 16, 0, 0, 0, 0, 16, 16, 0, 0),
    (1, 2048, 28, 28, 28, 28, 0, 0, 0, 0, 1, 1, 0, 0), (1, 64, 22, 92, 5, 5, 0, 0, 0, 0, 5, 5, 0, 0),
    (1, 42, 111, 111, 3, 3, 1, 1, 1, 1, 2, 2, 0, 0), (1, 2048, 5, 5, 3, 3, 1, 1, 1, 1, 1, 1, 0, 0),
    (1, 1008, 28, 28, 1, 1, 0, 0, 0, 0, 2, 2, 0, 0), (300, 2048, 7, 7, 7, 7, 0, 0, 0, 0, 1, 1, 0, 0),
    (300, 1024, 4, 4, 3, 3, 1, 1, 1, 1, 1, 1, 0, 0), (1, 320, 25, 32, 25, 32, 0, 0, 0, 0, 1, 1, 0, 0),
    (1, 192, 100, 75, 3, 3, 1, 1, 1, 1, 1, 1, 1, 0), (1, 288, 63, 63, 3, 3, 0, 0, 0, 0, 1, 1, 1, 0),
    (1, 1024, 4, 4, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1), (1, 1546, 5, 5, 7, 7, 1, 1, 1, 1, 1, 1, 0, 1),
    (1, 32, 1, 156, 1, 4, 0, 0, 1, 1, 1, 2, 0, 1),
    # the demos' own case (tests/okk/test_c_public.py)
    (4, 64, 16, 16, 3, 3, 1, 1, 1, 1, 2, 2, 0, 1)]))
POOL_NAMES = ["N", "C", "H", "W", "kernel_h", "kernel_w", "pad_top", "pad_bottom", "pad_left", "pad_right",
              "stride_h", "stride_w", "ceil_mode", "count_include_pad"]


def entrants() -> list[tuple[str, str]]:
    """(label, directory): the contest entrant of yangcedrus/tpucontest and the five top solutions."""
    return [("entrant", PUBLIC)] + [(d[len("perfect_"):], os.path.join(PUBLIC, d))
                                    for d in sorted(os.listdir(PUBLIC)) if d.startswith("perfect_")]


def work(kind: str, case: int) -> tuple[float, int]:
    """(multiply-adds or elements, bytes of inputs and outputs) of a case: the sweep's cost order."""
    if kind == "softmax":
        n = int(np.prod(cd.CONTEST_SOFTMAX[case]))
        return 20.0 * n, 8 * n
    if kind == "matmul":
        M, K, N = cd.CONTEST_MATMUL[case]
        return float(M) * K * N, 4 * (M * K + K * N + M * N)
    if kind in ("depthwise", "conv2d"):
        t = (cd.CONTEST_DEPTHWISE if kind == "depthwise" else cd.CONTEST_CONV2D)[case]
        if kind == "depthwise":
            N, C, H, W, kh, kw, pt, pb, pl, pr, sh, sw, dh, dw = t
            IC = OC = 1
        else:
            N, IC, OC, H, W, kh, kw, pt, pb, pl, pr, sh, sw, dh, dw = t
            C = 1
        oh, ow = cd.out_hw(H, W, kh, kw, (pt, pb, pl, pr), (sh, sw), (dh, dw))
        macs = float(N) * C * OC * oh * ow * IC * kh * kw
        return macs, 4 * (N * C * IC * H * W + N * C * OC * oh * ow + C * OC * IC * kh * kw)
    N, C, H, W, kh, kw, *_ = POOL_CASES[case]
    return float(N) * C * H * W * max(1, kh * kw // 4), 12 * N * C * H * W


def pool_case(kind: str, case: int, rng):
    """(file, entry, fields, inputs, outputs, reference, tolerance) of a pool demo on a pool case."""
    p = dict(zip(POOL_NAMES, POOL_CASES[case]))
    x = rng.uniform(-1, 1, (p["N"], p["C"], p["H"], p["W"])).astype(np.float32)
    pads, st = (p["pad_top"], p["pad_bottom"], p["pad_left"], p["pad_right"]), (p["stride_h"], p["stride_w"])
    oh, ow = cd.out_hw(p["H"], p["W"], p["kernel_h"], p["kernel_w"], pads, st, ceil_mode=bool(p["ceil_mode"]))
    out = dict(output_addr=(p["N"], p["C"], oh, ow))
    if kind == "avg_pool":
        ref = lambda: cd.avg_pool_ref(x, p["kernel_h"], p["kernel_w"], pads, st, bool(p["ceil_mode"]),  # noqa
                                      bool(p["count_include_pad"]))
        return "ok_device_avg_pool.c", "avg_pool_0", p, dict(input_addr=x), out, ref, 1e-4
    fields = {k: v for k, v in p.items() if k != "count_include_pad"}
    fields["index_addr"] = 0
    ref = lambda: cd.max_pool_ref(x, p["kernel_h"], p["kernel_w"], pads, st, bool(p["ceil_mode"]))  # noqa
    return "ok_device_max_pool.c", "max_pool_0", fields, dict(input_addr=x), out, ref, 1e-4


def jobs():
    out = []
    for who, folder in entrants():
        for kind in KINDS:
            for case in cd.CONTEST[kind]:
                out.append((who, kind, case))
    for kind in ("avg_pool", "max_pool"):
        for case in POOL_CASES:
            out.append(("sophgo demo", kind, case))
    return sorted(out, key=lambda j: work(j[1], j[2])[0])


def max_rel_err(got, ref) -> float:
    got = np.asarray(got, np.float64)
    if got.shape != ref.shape:
        return float("inf")
    den = np.maximum(np.maximum(np.abs(got), np.abs(ref)), 1)
    return float(np.max(np.abs(got - ref) / den)) if got.size else 0.0


def run_job(who: str, kind: str, case: int, cmodel_timeout: float, global_bytes: int = GLOBAL_BYTES) -> dict:
    from npusim import configure, okk
    from npusim.core.errors import RaceError
    from npusim.okk.c.cmodel_route import run_on_cmodel
    from npusim.okk.c.param import pack
    row = dict(entrant=who, kind=kind, case=case)
    macs, nbytes = work(kind, case)
    if nbytes + (1 << 20) > global_bytes:
        row.update(status="skipped", note=f"{nbytes / 2**20:.0f} MiB of buffers > the {global_bytes >> 20} MiB "
                                          "of global memory (--global-mib)")
        return row
    rng = np.random.default_rng(case)
    if kind in KINDS:
        entry, fields, inputs, outputs, ref, tol = cd.contest_case(kind, case, rng)
        folder = dict(entrants())[who]
        path = os.path.join(folder, f"ok_device_{kind}_contest.c")
    else:
        file, entry, fields, inputs, outputs, ref, tol = pool_case(kind, case, rng)
        path = os.path.join(PUBLIC, file)
    kernel = okk.load_c(path)
    t0 = time.perf_counter()
    try:
        try:
            got, r, _ = cd.run(kernel, entry, fields, inputs, outputs, global_mem_bytes=global_bytes)
        except RaceError as e:
            # a GDMA/BDC hazard inside a parallel region: a bug of the kernel on hardware that the eager
            # C-model cannot see; recorded, then compared with the race check off (npusim is eager too)
            row["race"] = str(e)[:300]
            with configure(check_races=False):
                t0 = time.perf_counter()
                got, r, _ = cd.run(kernel, entry, fields, inputs, outputs, global_mem_bytes=global_bytes)
        row["npusim_s"] = time.perf_counter() - t0
        row["npusim_sections"] = list(r.sections)
    except Exception as e:              # noqa: BLE001 - recorded, compared with the C-model's outcome
        got, r = None, None
        row["npusim_s"] = time.perf_counter() - t0
        row["npusim_error"] = f"{type(e).__name__}: {e}"[:300]
    # the C-model: same addresses and param bytes as cd.run
    full, addr, writes, reads = dict(fields), cd.G, [], []
    for name, arr in inputs.items():
        raw = np.ascontiguousarray(arr, np.float32).tobytes()
        writes.append((addr, raw))
        full[name] = addr
        addr += -(-len(raw) // cd.ALIGN) * cd.ALIGN
    for name, shape in outputs.items():
        full[name] = addr
        reads.append((addr, int(np.prod(shape)) * 4))
        addr += -(-int(np.prod(shape)) * 4 // cd.ALIGN) * cd.ALIGN
    t0 = time.perf_counter()
    try:
        cm = run_on_cmodel(path, entry, bytes(pack(kernel.param_type(), full)), writes, reads,
                           timeout=cmodel_timeout, global_bytes=global_bytes)
        row["cmodel_s"], row["cmodel_wall_s"] = cm.seconds, time.perf_counter() - t0
        row["cmodel_sections"] = list(cm.sections)
        cref = {n: np.frombuffer(b, np.float32).reshape(outputs[n]) for n, b in zip(outputs, cm.reads)}
    except Exception as e:              # noqa: BLE001
        cm, cref = None, None
        row["cmodel_wall_s"] = time.perf_counter() - t0
        row["cmodel_error"] = f"{type(e).__name__}: {e}"[:300]
    if got is not None and cref is not None:
        a, b = got["output_addr"], cref["output_addr"]
        row["bytes_equal"] = a.tobytes() == b.tobytes()
        if not row["bytes_equal"]:
            diff = np.flatnonzero(a.view(np.uint32).ravel() != b.view(np.uint32).ravel())
            row["bytes_differ"] = int(diff.size)
            row["first_diff"] = [int(i) for i in diff[:5]]
        row["cycles_equal"] = r.sections == cm.sections
        exact = ref()
        row["max_rel_err_npusim"] = max_rel_err(a, exact)
        row["max_rel_err_cmodel"] = max_rel_err(b, exact)
        row["within_tol"] = row["max_rel_err_npusim"] < tol
        row["tol"] = tol
        row["status"] = "ok" if row["bytes_equal"] and row["cycles_equal"] else "DIFF"
    elif got is None and cref is None:
        row["status"] = "both error"
    else:
        row["status"] = "DIFF"
    return row


def load(path: str) -> list[dict]:
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def table(rows: list[dict]) -> None:
    from rich.console import Console
    from rich.table import Table
    t = Table(title="okk contest sweep: npusim vs Sophgo's C-model (same .c)")
    for col in ("entrant", "kind", "case", "bytes equal", "cycles equal", "npusim s", "C-model s",
                "max rel err", "status"):
        t.add_column(col)
    yes = lambda v: "-" if v is None else ("yes" if v else "NO")  # noqa: E731
    order = {k: i for i, k in enumerate(KINDS + ("avg_pool", "max_pool"))}
    for r in sorted(rows, key=lambda r: (r["entrant"], order[r["kind"]], r["case"])):
        err = r.get("max_rel_err_npusim")
        errs = "-" if err is None else f"{err:.1e}" + ("" if r.get("within_tol") else " > tol")
        note = r.get("note") or r.get("npusim_error") or r.get("cmodel_error") or \
            ("RaceError (kernel bug on hardware; compared with check_races=False)" if r.get("race") else "")
        t.add_row(r["entrant"], r["kind"], str(r["case"]), yes(r.get("bytes_equal")), yes(r.get("cycles_equal")),
                  f"{r['npusim_s']:.2f}" if "npusim_s" in r else "-",
                  f"{r['cmodel_s']:.2f}" if "cmodel_s" in r else "-", errs,
                  r["status"] + (f": {note[:60]}" if note else ""))
    Console(width=200).print(t)
    done = [r for r in rows if r["status"] not in ("skipped",)]
    print(f"{len(rows)} rows: {sum(r['status'] == 'ok' for r in rows)} ok, "
          f"{sum(r['status'] == 'DIFF' for r in rows)} DIFF, {sum(r['status'] == 'both error' for r in rows)} "
          f"both error, {sum(r['status'] == 'skipped' for r in rows)} skipped; "
          f"{sum(not r.get('within_tol', True) for r in done)} outside the contest tolerance")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default="okk_contest_sweep.jsonl")
    ap.add_argument("--table", action="store_true", help="print the table of --out and exit")
    ap.add_argument("--kind", action="append", help="only these kinds (softmax, matmul, ..., avg_pool, max_pool)")
    ap.add_argument("--entrant", action="append", help="only these entrants")
    ap.add_argument("--max-work", type=float, default=float("inf"),
                    help="skip cases above this many multiply-adds (the cost order)")
    ap.add_argument("--cmodel-timeout", type=float, default=300.0)
    ap.add_argument("--global-mib", type=int, default=GLOBAL_BYTES >> 20,
                    help="global memory of npusim's device and the C-model (default 256; more for matmul 0/2/14)")
    ap.add_argument("--retry-skipped", action="store_true", help="run again the rows skipped for memory")
    args = ap.parse_args(argv)
    if args.table:
        table(load(args.out))
        return
    from npusim.okk.oracle.fetch import available
    if not available():
        sys.exit("C-model libraries absent: run python -m npusim.okk.oracle.fetch (make oracle)")
    rows = load(args.out)
    if args.retry_skipped:
        rows = [r for r in rows if r["status"] != "skipped"]
        with open(args.out, "w") as f:
            f.writelines(json.dumps(r) + "\n" for r in rows)
    done = {(r["entrant"], r["kind"], r["case"]) for r in rows}
    for who, kind, case in jobs():
        if (who, kind, case) in done or (args.kind and kind not in args.kind) or \
                (args.entrant and who not in args.entrant):
            continue
        if work(kind, case)[0] > args.max_work:
            row = dict(entrant=who, kind=kind, case=case, status="skipped", note="above --max-work")
        else:
            row = run_job(who, kind, case, args.cmodel_timeout, args.global_mib << 20)
        print(json.dumps(row), flush=True)
        with open(args.out, "a") as f:
            f.write(json.dumps(row) + "\n")
    table(load(args.out))


if __name__ == "__main__":
    main()
