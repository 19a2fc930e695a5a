#!/usr/bin/env python3
"""Two gcreplay builds on one trace: interleaved replays and their median ratio.

The way to tell whether a change makes the replay faster on a machine whose
speed drifts (by up to 2x within minutes, and more from one day to the next
on this project's shared host), and to place a figure measured on another day:
replay the build that measured it beside the current one, in one run, and
scale that figure by the ratio.

A and B are each a gcreplay binary or a git revision of this repository; a
revision is exported with `git archive` into a temporary directory and built
there (meson, --buildtype release unless --buildtype says otherwise), so the
work tree is not touched. B generates the synthetic trace (`gcreplay bench
--keep`, typical mix, `--instructions` warp memory instructions), or A where
A cannot read B's (a build older than the native format version B writes:
gcrt 1.2 files need a reader from 1.2 on; both generators write the same
records), and both replay it with `run -q`, alternately (A B, B A, A B, ...) so that drift slows
both alike. Each replay's wall and CPU time (user + system) come from wait4.

It prints each build's best and median wall time and its best rate (warp
memory instructions per wall second), then the ratios B/A of the pairs' CPU
times and wall times: median, mean and standard deviation. A ratio below 1
means B is faster. --a-rate R (A's rate measured elsewhere, in instructions/s)
adds B's rate at that host speed: R x A's time / B's time (median pair).

Before timing, each build replays the trace once with --json, and the reports'
`total` objects are compared: "same totals" or "totals differ" (printed, not
fatal: a change may mean to alter results). --callgrind adds each build's
instruction count (Ir) for the trace a quarter as long under valgrind's
callgrind, which does not depend on the host's speed (with the host prefetch
level fixed at l2 for builds that have the option, so the count is
deterministic).

Figures, not pass/fail. Usage (from the source root):
  python3 tests/bench/compare_builds.py [--instructions N] [--pairs P] [--config FILE]
                                        [--buildtype T] [--a-rate R] [--callgrind] A B
e.g.  python3 tests/bench/compare_builds.py 67caa82 build/src/gcreplay
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

from bench_util import bench_traces, binary_of, callgrind_events, timed_replay

# What `gcreplay bench` replays without --config.
BUILTIN_CONFIG = {"name": "bench-default", "gpu": {"sms": 80}}


def fail(msg):
    sys.exit(f"compare_builds: {msg}")


def total_of(binary, cfg, trace, work, label):
    out = os.path.join(work, f"report-{label}.json")
    r = subprocess.run([binary, "run", "--config", cfg, "--json", out, trace],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        fail(f"{label}: {binary} run failed:\n{r.stderr}")
    with open(out) as f:
        return json.load(f)["total"]


def callgrind_ir(binary, cfg, trace, work):
    """Instructions of one replay under callgrind."""
    helptext = subprocess.run([binary, "run", "--help"], capture_output=True, text=True).stdout
    extra = ["--host-prefetch", "l2"] if "--host-prefetch" in helptext else []
    return callgrind_events("compare_builds",
                            [binary, "run", "-q", *extra, "--config", cfg, trace], work)[0]


def spread(xs):
    return (statistics.median(xs), statistics.mean(xs),
            statistics.stdev(xs) if len(xs) > 1 else 0.0)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("a", metavar="A", help="gcreplay binary or git revision (the reference)")
    ap.add_argument("b", metavar="B", help="gcreplay binary or git revision (the candidate)")
    ap.add_argument("--instructions", type=int, default=4000000)
    ap.add_argument("--pairs", type=int, default=10)
    ap.add_argument("--config", help="replay config (default: the bench's built-in one)")
    ap.add_argument("--buildtype", default="release")
    ap.add_argument("--a-rate", type=float, help="A's rate measured elsewhere (insns/s)")
    ap.add_argument("--callgrind", action="store_true")
    args = ap.parse_args()
    if args.instructions < 4 or args.pairs < 1:
        fail("--instructions must be at least 4 and --pairs at least 1")

    with tempfile.TemporaryDirectory(prefix="gcreplay-compare-") as work:
        a = binary_of("compare_builds", args.a, "A", work, args.buildtype)
        b = binary_of("compare_builds", args.b, "B", work, args.buildtype)
        cfg = os.path.abspath(args.config) if args.config else os.path.join(work, "builtin.json")
        if not args.config:
            with open(cfg, "w") as f:
                json.dump(BUILTIN_CONFIG, f)
        trace, quarter = bench_traces(b, args.instructions, work,
                                      cfg if args.config else None)
        if subprocess.run([a, "info", trace], stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL).returncode != 0:
            trace, quarter = bench_traces(a, args.instructions, work,
                                          cfg if args.config else None)

        same = total_of(a, cfg, trace, work, "A") == total_of(b, cfg, trace, work, "B")
        times = {"A": [], "B": []}
        for i in range(args.pairs):
            order = ("A", "B") if i % 2 == 0 else ("B", "A")
            for label in order:
                wall, cpu, _ = timed_replay("compare_builds", a if label == "A" else b, cfg,
                                            trace)
                times[label].append((wall, cpu))
        ir = {}
        if args.callgrind:
            ir = {"A": callgrind_ir(a, cfg, quarter, work), "B": callgrind_ir(b, cfg, quarter, work)}

    n = args.instructions
    print(f"compare_builds: {n} warp memory instructions (typical mix), config "
          f"{args.config or 'built-in (80 SMs)'}, {args.pairs} interleaved pairs; "
          f"reports: {'same totals' if same else 'totals differ'}")
    print(f"  A = {args.a}\n  B = {args.b}")
    print(f"{'build':<6} {'best wall-s':>11} {'median wall-s':>13} {'best M insn/s':>13} "
          f"{'median cpu-s':>12}" + (f" {'Ir (1/4 trace)':>15}" if ir else ""))
    for label in ("A", "B"):
        walls = [w for w, _ in times[label]]
        cpus = [c for _, c in times[label]]
        line = (f"{label:<6} {min(walls):11.3f} {statistics.median(walls):13.3f} "
                f"{n / min(walls) / 1e6:13.2f} {statistics.median(cpus):12.3f}")
        if ir:
            line += f" {ir[label]:15d}"
        print(line)
    cpu_r = [b_[1] / a_[1] for a_, b_ in zip(times["A"], times["B"]) if a_[1] > 0]
    wall_r = [b_[0] / a_[0] for a_, b_ in zip(times["A"], times["B"])]
    if cpu_r:
        print("B/A CPU time:  median {:.3f}  mean {:.3f}  sd {:.3f}".format(*spread(cpu_r)))
    print("B/A wall time: median {:.3f}  mean {:.3f}  sd {:.3f}".format(*spread(wall_r)))
    if ir:
        print(f"B/A instructions: {ir['B'] / ir['A']:.3f}")
    if args.a_rate:
        r = statistics.median(wall_r)
        print(f"B at the host speed where A read {args.a_rate / 1e6:.2f} M insn/s: "
              f"{args.a_rate / r / 1e6:.2f} M insn/s (A's rate / median wall ratio)")


if __name__ == "__main__":
    main()
