"""``npusim ascendc run KERNEL.cpp --blocks 8 --input x=FILE.npy ... --tiling FILE.json``: an unchanged Ascend
C kernel file on the simulator (load_cpp + launch), with the timeline summary and the outputs saved."""
from __future__ import annotations

import json
import os

import numpy as np

WORKSPACE_NAMES = ("workspace", "usrWorkspace", "userWorkspace")


def register(subparsers) -> None:
    p = subparsers.add_parser("ascendc", help="Ascend C: run an unchanged .cpp kernel")
    sub = p.add_subparsers(dest="ascendc_command", required=True)
    r = sub.add_parser("run", help="compile a kernel .cpp with g++ and run it over blocks")
    r.add_argument("file")
    r.add_argument("--kernel", help="the extern \"C\" __global__ kernel to run (default: the only / first one)")
    r.add_argument("--blocks", type=int, default=1, help="block_num (default 1)")
    r.add_argument("--input", action="append", default=[], metavar="NAME=FILE.npy",
                   help="a GM argument read from an .npy file (NAME is the kernel's parameter name)")
    r.add_argument("--output", action="append", default=[], metavar="NAME=FILE.npy[:DTYPE:SHAPE]",
                   help="a GM argument written to an .npy file after the run; DTYPE and SHAPE (e.g. "
                        "float16:8x2048) default to those of the first input")
    r.add_argument("--tiling", metavar="FILE.json", help="tiling data: a JSON object of the tiling struct's "
                   "fields (\"TILING_KEY\" sets the key TILING_KEY_IS tests)")
    r.add_argument("--define", "-D", action="append", default=[], metavar="NAME[=VALUE]",
                   help="a -D macro, e.g. DTYPE_X=half")
    r.add_argument("--include", "-I", action="append", default=[], metavar="DIR", help="an include directory")
    r.add_argument("--soc", default=None, help="SoC (default Ascend910B1)")
    r.add_argument("--sync", choices=("auto", "manual"), default="auto",
                   help="auto (default): insert the flags and PIPE_V barriers the compiler's auto-sync would; "
                        "manual: report each missing one as a race (--cce-auto-sync=off)")
    r.add_argument("--no-check-pipe-v", action="store_true",
                   help="do not report (or, with --sync auto, insert a barrier for) a PIPE_V read-after-write")
    r.add_argument("--trace", help="write Chrome/Perfetto trace JSON here")
    r.set_defaults(func=cmd_run)


def _pair(text: str, what: str) -> tuple[str, str]:
    if "=" not in text:
        raise SystemExit(f"--{what} {text!r}: expected NAME=...")
    k, v = text.split("=", 1)
    return k.strip(), v.strip()


def _output_array(spec: str, like: np.ndarray | None) -> tuple[str, np.ndarray]:
    path, *rest = spec.split(":")
    if rest:
        dtype = np.dtype(rest[0])
        shape = tuple(int(n) for n in rest[1].split("x")) if len(rest) > 1 else like.shape
    elif like is not None:
        dtype, shape = like.dtype, like.shape
    else:
        raise SystemExit(f"--output {spec!r}: give :DTYPE:SHAPE (there is no input to copy them from)")
    return path, np.zeros(shape, dtype)


def cmd_run(args, console) -> int:
    from . import launch, load_cpp
    defines = {}
    for d in args.define:
        k, _, v = d.partition("=")
        defines[k] = v if v else None
    mod = load_cpp(args.file, defines=defines, include_dirs=tuple(args.include))
    name = args.kernel or mod.names[0]
    kernel = getattr(mod, name)
    inputs = {k: np.load(v) for k, v in map(lambda s: _pair(s, "input"), args.input)}
    first = next(iter(inputs.values()), None)
    outputs = {k: _output_array(v, first) for k, v in map(lambda s: _pair(s, "output"), args.output)}
    tiling = None
    if args.tiling:
        with open(args.tiling) as f:
            tiling = json.load(f)
    values = []
    params = list(kernel.params)
    if tiling is not None and params:
        params = params[:-1]                      # the last parameter takes the tiling
    for p in params:
        if p in inputs:
            values.append(inputs[p])
        elif p in outputs:
            values.append(outputs[p][1])
        elif p in WORKSPACE_NAMES:
            values.append(None)
        else:
            raise SystemExit(f"{name}: no --input or --output for parameter {p!r} (parameters: {', '.join(kernel.params)})")
    while values and values[-1] is None:          # trailing workspaces: load_cpp fills them with null
        values.pop()
    res = launch(kernel, args.blocks, *values, soc=args.soc, tiling=tiling, check_pipe_v=not args.no_check_pipe_v,
                 sync=args.sync)
    console.print(res.trace.summary())
    console.print(f"{name}: {args.blocks} block(s), {res.cycles:,.0f} cycles ({res.us:,.3f} us) on {res.soc.name}")
    for k, (path, arr) in outputs.items():
        np.save(path, arr)
        console.print(f"{k} -> {os.path.abspath(path)}")
    if args.trace:
        res.trace.to_chrome(args.trace)
        console.print(f"trace written to {args.trace}")
    return 0
