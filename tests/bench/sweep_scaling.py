#!/usr/bin/env python3
"""Wall time of the bundled sweep (README, "A worked screening") at -j 1 and -j 2.

usage: sweep_scaling.py GCREPLAY [--pairs N] [--shared DIR]

Runs the README's sweep (the example traces and the reference Accel-Sim traces,
four L1 organisations x two L1 sizes, the replication analysis on) into a fresh
folder each time, alternating -j 1 and -j 2 (pairs keep the ratio meaningful
when the machine's speed drifts), and prints each one's wall times, their
medians and the median of the pairs' speed-ups (-j 1 time / -j 2 time). A
figure, not a pass/fail test: the suite does not run it.
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_util import ROOT, readme_sweep  # noqa: E402


def sweep_command(gcreplay, jobs, out, shared):
    return readme_sweep(gcreplay, out, shared, ["-j", str(jobs)])


def timed(cmd):
    t0 = time.perf_counter()
    r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - t0
    if r.returncode != 0:
        sys.exit(f"sweep_scaling: {' '.join(cmd)} failed:\n{r.stderr[-2000:]}")
    return wall


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("gcreplay")
    ap.add_argument("--pairs", type=int, default=5)
    ap.add_argument("--shared", default=os.path.join(os.path.dirname(ROOT), "shared"))
    a = ap.parse_args()
    gcr = os.path.abspath(a.gcreplay)
    one, two, ratios = [], [], []
    with tempfile.TemporaryDirectory() as work:
        timed(sweep_command(gcr, 2, os.path.join(work, "warm"), a.shared))  # page cache
        for i in range(a.pairs):
            t1 = timed(sweep_command(gcr, 1, os.path.join(work, f"j1-{i}"), a.shared))
            t2 = timed(sweep_command(gcr, 2, os.path.join(work, f"j2-{i}"), a.shared))
            one.append(t1)
            two.append(t2)
            ratios.append(t1 / t2)
            print(f"pair {i + 1}: -j 1 {t1:.2f} s, -j 2 {t2:.2f} s, speed-up {t1 / t2:.2f}x",
                  flush=True)
    print(f"median wall: -j 1 {statistics.median(one):.2f} s, -j 2 {statistics.median(two):.2f} s;"
          f" median speed-up {statistics.median(ratios):.2f}x over {a.pairs} pairs"
          f" (min {min(ratios):.2f}x, max {max(ratios):.2f}x)")


if __name__ == "__main__":
    main()
