"""``npusim okk run kernel.c --entry NAME --param f=v ... --input f=x.npy --output f=SHAPE``.

Inputs are uploaded to global memory one after another (4 KiB aligned) from okk_global_mem_start_addr();
each ``--input``/``--output`` field of param_t receives its buffer's address, ``--param`` sets the other
fields. Outputs are read back after the run (float32 unless ``SHAPE:dtype``) and can be saved with
``--save field=FILE.npy``.
"""
from __future__ import annotations

import os
import time

import numpy as np

ALIGN = 4096


def register(sub) -> None:
    okk = sub.add_parser("okk", help="OKKernel tools (run an unchanged .c kernel)")
    okk_sub = okk.add_subparsers(dest="okk_command", required=True)
    p = okk_sub.add_parser("run", help="compile and run an OKKernel .c kernel, print the timeline summary")
    p.add_argument("file", help="the kernel .c (includes okk.h)")
    p.add_argument("--entry", required=True, help="the OKKERNEL_FUNC_REGISTER'ed function to run")
    p.add_argument("--param", action="append", default=[], metavar="FIELD=VALUE", help="a param_t field")
    p.add_argument("--input", action="append", default=[], metavar="FIELD=FILE.npy",
                   help="upload an array; FIELD gets its global address")
    p.add_argument("--output", action="append", default=[], metavar="FIELD=SHAPE[:DTYPE]",
                   help="reserve an output (e.g. out=4,64,1,32); FIELD gets its global address")
    p.add_argument("--save", action="append", default=[], metavar="FIELD=FILE.npy", help="save an output")
    p.add_argument("-D", dest="defines", action="append", default=[], metavar="NAME[=VALUE]")
    p.add_argument("-I", dest="include_dirs", action="append", default=[], metavar="DIR")
    p.add_argument("--param-type", default="param_t", help="the struct the kernel casts args to")
    p.add_argument("--trace", help="write Chrome/Perfetto trace JSON here")
    p.add_argument("--plot", help="write a timeline PNG here")
    p.set_defaults(func=cmd_okk_run)


def _pairs(items, what):
    out = {}
    for item in items:
        if "=" not in item:
            raise SystemExit(f"npusim okk run: {what} '{item}' is not FIELD=VALUE")
        k, v = item.split("=", 1)
        out[k.strip()] = v.strip()
    return out


def _number(text: str):
    try:
        return int(text, 0)
    except ValueError:
        return float(text)


def _shape(text: str):
    shape, _, dtype = text.partition(":")
    return tuple(int(s) for s in shape.replace("x", ",").split(",") if s), np.dtype(dtype or "float32")


def _by_source(trace, top: int = 8):
    """The .c lines that issued the most modelled time."""
    from collections import defaultdict

    from rich.table import Table
    acc = defaultdict(lambda: [0, 0.0, ""])
    for e in trace.events:
        a = acc[e.source]
        a[0] += 1
        a[1] += e.dur_ns
        a[2] = e.name
    table = Table(title="top source lines by time")
    for col in ("source", "call", "events", "total us"):
        table.add_column(col, justify="right" if col in ("events", "total us") else "left")
    for src, (n, ns, name) in sorted(acc.items(), key=lambda kv: -kv[1][1])[:top]:
        table.add_row(src, name, str(n), f"{ns / 1e3:,.3f}")
    return table


def cmd_okk_run(args, console) -> int:
    from . import Device, load_c
    from .spec import GLOBAL_MEM_START

    defines = {}
    for d in args.defines:
        k, _, v = d.partition("=")
        defines[k] = v or None
    kernel = load_c(args.file, defines=defines, include_dirs=args.include_dirs)
    fields = {k: _number(v) for k, v in _pairs(args.param, "--param").items()}
    inputs = {k: np.load(v) for k, v in _pairs(args.input, "--input").items()}
    outputs = {k: _shape(v) for k, v in _pairs(args.output, "--output").items()}
    dev = Device()
    addr = GLOBAL_MEM_START
    placed = {}
    with dev:
        for name, arr in inputs.items():
            dev.write_system(addr, np.ascontiguousarray(arr))
            fields[name], placed[name] = addr, (addr, arr.shape, arr.dtype)
            addr += -(-max(arr.nbytes, 1) // ALIGN) * ALIGN
        for name, (shape, dt) in outputs.items():
            nbytes = int(np.prod(shape, dtype=np.int64)) * dt.itemsize
            fields[name], placed[name] = addr, (addr, shape, dt)
            addr += -(-max(nbytes, 1) // ALIGN) * ALIGN
        t0 = time.perf_counter()
        result = kernel.run(args.entry, fields, param_type=args.param_type)
        wall = time.perf_counter() - t0
        results = {n: dev.read_system(placed[n][0], placed[n][1], placed[n][2]) for n in outputs}
    trace = dev.timeline.trace
    console.print(trace.summary())
    console.print(_by_source(trace))
    console.print(f"{args.entry}: {result.cycles:,} Sophgo cycles in {len(result.sections)} section(s) "
                  f"{result.sections}, {result.ncalls} okk calls, {wall:.2f} s of wall time")
    for name, y in results.items():
        finite = y[np.isfinite(y)] if y.dtype.kind == "f" else y
        stats = f"min {finite.min()} max {finite.max()}" if finite.size else "no finite values"
        console.print(f"output {name} {y.shape} {y.dtype} at {placed[name][0]:#x}: {stats}")
    for name, path in _pairs(args.save, "--save").items():
        if name not in results:
            raise SystemExit(f"npusim okk run: --save {name}: no --output {name}")
        np.save(path, results[name])
        console.print(f"saved {name} to {path}")
    if args.trace:
        trace.to_chrome(args.trace)
        console.print(f"trace written to {args.trace} (open it in https://ui.perfetto.dev)")
    if args.plot:
        trace.plot(args.plot, title=os.path.basename(args.file))
        console.print(f"timeline plot written to {args.plot}")
    return 0
