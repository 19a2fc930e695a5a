#!/usr/bin/env python3
"""One trace pass, many memory systems: the time and peak memory of replaying N variants in
one `gcreplay run --config ... --config ...` against the same N variants run one by one.

usage: onepass.py GCREPLAY [--instructions N] [--runs R] [--cpu K]

On the bench's typical trace (`gcreplay bench --keep`, N warp memory instructions), with
variants of examples/configs/volta80.json that share a pass:
  4 variants: the L1 at 128, 64, 32 and 16 KB (l1d.ways 256, 128, 64, 32);
  8 variants: private, shared, DC-L1 (Sh40+C10) and COLAB L1s, each at 128 and 32 KB.
Every process runs on one CPU (--cpu, default: the first this process may use), one after
the other. Each of R rounds times the one-pass run and the separate runs, alternating; the
best of the R of each (the least disturbed by other work) gives the ratio one pass /
separate, in CPU time (user + system) and in wall time. Peak RSS (ru_maxrss) of the one-pass
process is set beside the largest of the separate ones': the difference is what the extra
variants' caches take. The targets of the issue that asked for it are printed beside the
ratios; they are figures, not a pass/fail test, and the suite does not run this script.
"""
import argparse
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_util import ROOT, bench_traces, timed_command  # noqa: E402

BASE = os.path.join(ROOT, "examples", "configs", "volta80.json")
ORGS = {"private": "volta80.json", "shared": "volta80-shared.json",
        "dcl1": "volta80-dcl1-sh40-c10.json", "colab": "volta80-colab.json"}
TARGETS = {4: 0.5, 8: 0.4}


def variant_configs(work, n):
    """The n variants' config files (names say what changes)."""
    paths = []
    if n == 4:
        for ways in (256, 128, 64, 32):
            cfg = json.load(open(BASE))
            cfg["l1d"]["ways"] = ways
            paths.append((f"private-{ways * 4 * 128 // 1024}k", cfg))
    else:
        for org, file in ORGS.items():
            for ways in (256, 64):
                cfg = json.load(open(os.path.join(ROOT, "examples", "configs", file)))
                cfg["l1d"]["ways"] = ways
                paths.append((f"{org}-{ways * 4 * 128 // 1024}k", cfg))
    out = []
    for name, cfg in paths:
        path = os.path.join(work, f"{name}.json")
        json.dump(cfg, open(path, "w"))
        out.append(path)
    return out


def timed(cmd):
    """(wall s, CPU s, peak RSS MB) of one process."""
    return timed_command("onepass", cmd)


def run_cmd(gcr, configs, trace):
    cmd = [gcr, "run", "-q", "--analysis-thread", "off"]
    for c in configs:
        cmd += ["--config", c]
    return cmd + [trace]


def measure(gcr, configs, trace, runs):
    one = []  # (wall, cpu, rss) of the one-pass run, per round
    sep = []  # (wall sum, cpu sum, largest rss) of the separate runs, per round
    for _ in range(runs):
        one.append(timed(run_cmd(gcr, configs, trace)))
        each = [timed(run_cmd(gcr, [c], trace)) for c in configs]
        sep.append((sum(e[0] for e in each), sum(e[1] for e in each), max(e[2] for e in each)))
    return one, sep


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("gcreplay")
    ap.add_argument("--instructions", type=int, default=4000000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--cpu", type=int, default=min(os.sched_getaffinity(0)))
    a = ap.parse_args()
    gcr = os.path.abspath(a.gcreplay)
    os.sched_setaffinity(0, {a.cpu})  # the replays inherit it: one CPU
    with tempfile.TemporaryDirectory() as work:
        trace, _ = bench_traces(gcr, a.instructions, work)
        print(f"trace: the bench's typical mix, {a.instructions} warp memory instructions; "
              f"CPU {a.cpu} only; best of {a.runs}")
        print(f"{'variants':>8}  {'one pass cpu-s':>14}  {'separate cpu-s':>14}  "
              f"{'ratio cpu':>9}  {'ratio wall':>10}  {'target':>6}  "
              f"{'RSS one pass MB':>15}  {'RSS largest separate MB':>23}")
        for n in (4, 8):
            configs = variant_configs(work, n)
            one, sep = measure(gcr, configs, trace, a.runs)
            best_one = min(one, key=lambda r: r[1])
            best_sep = min(sep, key=lambda r: r[1])
            wall_ratio = min(r[0] for r in one) / min(r[0] for r in sep)
            print(f"{n:>8}  {best_one[1]:>14.2f}  {best_sep[1]:>14.2f}  "
                  f"{best_one[1] / best_sep[1]:>8.2f}x  {wall_ratio:>9.2f}x  "
                  f"{'<=' + format(TARGETS[n], '.1f'):>6}  {max(r[2] for r in one):>15.1f}  "
                  f"{max(r[2] for r in sep):>23.1f}")
            print(f"          variants: {', '.join(os.path.basename(c)[:-5] for c in configs)}")


if __name__ == "__main__":
    main()
