#!/usr/bin/env python3
"""The README's sweep with its variants sharing a pass of each trace (`sweep --one-pass on`,
the default) against the same sweep with one process per pair (`--one-pass off`).

usage: sweep_onepass.py GCREPLAY [--runs R] [--cpu K] [--shared DIR]

The sweep of the README's "A worked screening": the example traces and the reference
Accel-Sim traces (../shared/traces/accelsim), four L1 organisations of volta80 x two L1
sizes (--vary l1d.ways=256,64), the replication analysis on; 8 variants that can all share a
pass, so each trace is replayed by one process instead of eight. `-j 1`, and every process on
one CPU (--cpu, default: the first this process may use). Each of R rounds runs both into
fresh folders, alternating; the best of the R of each (the least disturbed by other work)
gives the ratio one pass / one process per pair in CPU time (user + system of the sweep and
every replay it ran) and in wall time. Both sweeps' tables must be the same bytes. A figure,
not a pass/fail test: the suite does not run this script.
"""
import argparse
import filecmp
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_util import ROOT, readme_sweep, timed_command  # noqa: E402


def timed_sweep(gcr, one_pass, out, shared):
    """(wall s, CPU s) of the sweep and every replay it ran."""
    cmd = readme_sweep(gcr, out, shared, ["-j", "1", "--one-pass", one_pass])
    return timed_command("sweep_onepass", cmd)[:2]


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("gcreplay")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--cpu", type=int, default=min(os.sched_getaffinity(0)))
    ap.add_argument("--shared", default=os.path.join(os.path.dirname(ROOT), "shared"))
    a = ap.parse_args()
    gcr = os.path.abspath(a.gcreplay)
    os.sched_setaffinity(0, {a.cpu})  # the sweep and its replays inherit it: one CPU
    times = {"on": [], "off": []}
    with tempfile.TemporaryDirectory() as work:
        timed_sweep(gcr, "off", os.path.join(work, "warm"), a.shared)  # page cache
        for i in range(a.runs):
            for mode in ("on", "off"):
                out = os.path.join(work, f"{mode}-{i}")
                times[mode].append(timed_sweep(gcr, mode, out, a.shared))
                print(f"round {i + 1}: --one-pass {mode}: {times[mode][-1][0]:.2f} s wall, "
                      f"{times[mode][-1][1]:.2f} s CPU", flush=True)
        for f in ("summary.csv", "kernels.csv", "failures.csv", "summary.txt"):
            if not filecmp.cmp(os.path.join(work, "on-0", f), os.path.join(work, "off-0", f),
                               shallow=False):
                sys.exit(f"sweep_onepass: {f} differs between --one-pass on and off")
    wall = {m: min(t[0] for t in times[m]) for m in times}
    cpu = {m: min(t[1] for t in times[m]) for m in times}
    print(f"CPU {a.cpu} only, -j 1, best of {a.runs}: one pass {cpu['on']:.2f} s CPU, "
          f"{wall['on']:.2f} s wall; a process per pair {cpu['off']:.2f} s CPU, "
          f"{wall['off']:.2f} s wall; ratio one pass / per pair: {cpu['on'] / cpu['off']:.2f}x "
          f"CPU, {wall['on'] / wall['off']:.2f}x wall")


if __name__ == "__main__":
    main()
