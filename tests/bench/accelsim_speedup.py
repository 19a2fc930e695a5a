#!/usr/bin/env python3
"""gcreplay against Accel-Sim on Accel-Sim's own traces: wall times and ratios.

For each reference trace in ../shared/traces/accelsim/ (a folder with
kernelslist.g, its kernel files and accelsim-qv100.json), the kernel files are
first decompressed into a scratch folder, as Accel-Sim reads plain text, and
the list made to name the plain files. Each build then replays every trace
with the imported QV100 config (`gcreplay run -q --config
examples/configs/qv100.json`), best of --runs, the builds alternating run by
run so that the machine's drift slows them alike; wall times and peak RSS come
from wait4 and cover the whole process, start-up included; peak RSS from one more run
under GNU time (/usr/bin/time), as a child of Python would count the interpreter's memory.

It prints, per trace: the warp instructions Accel-Sim counted, its wall time
recorded on this project's 2-core machine (`accelsim_wall_seconds_on_a_2_core_vm`),
and for each build its best wall time, its best CPU time (user + system), its
peak RSS and the ratio Accel-Sim's time
/ gcreplay's; then each build's median ratio and its lowest ratio on the traces
that are not tiny real captures (those of fewer than 10,000 warp instructions,
which take Accel-Sim about a second). Before timing, each build writes the JSON
report of each trace, and the reports must be byte-identical across builds
("same reports"), else it says which differ.

BUILD is a gcreplay binary or a git revision of this repository (built in a
temporary folder); the default is build/src/gcreplay. Figures, not pass/fail.
Usage (from the source root):
  python3 tests/bench/accelsim_speedup.py [--runs N] [--traces DIR] [--config FILE] [BUILD ...]
e.g.  python3 tests/bench/accelsim_speedup.py HEAD~1 build/src/gcreplay
"""
import argparse
import filecmp
import gzip
import json
import lzma
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

from bench_util import ROOT, binary_of, timed_replay

WHO = "accelsim_speedup"
TINY_WARP_INSNS = 10000


def plain_copy(src, dst):
    """The trace folder src with its kernel files decompressed into dst, the list naming them."""
    os.makedirs(dst)
    openers = {".xz": lzma.open, ".gz": gzip.open}
    for name in os.listdir(src):
        base, ext = os.path.splitext(name)
        path = os.path.join(src, name)
        if ext in openers:
            with openers[ext](path, "rb") as f, open(os.path.join(dst, base), "wb") as out:
                shutil.copyfileobj(f, out)
        elif ext == ".zst":
            with open(os.path.join(dst, base), "wb") as out:
                subprocess.run(["zstd", "-d", "-c", path], stdout=out, check=True)
        elif name == "kernelslist.g":
            with open(path) as f:
                lines = [l.rstrip("\n") for l in f]
            with open(os.path.join(dst, name), "w") as out:
                for line in lines:
                    for e in (".xz", ".gz", ".zst"):
                        if line.startswith("kernel-") and line.endswith(e):
                            line = line[: -len(e)]
                    out.write(line + "\n")
        elif name.startswith("kernel-"):
            shutil.copy(path, dst)


def peak_rss(gcreplay, cfg, trace):
    """Peak RSS in MB of one replay, from GNU time: a child of this Python process would count
    the interpreter's memory from before its exec. NaN without /usr/bin/time."""
    if not os.access("/usr/bin/time", os.X_OK):
        return float("nan")
    r = subprocess.run(["/usr/bin/time", "-f", "%M", gcreplay, "run", "-q", "--config", cfg,
                        trace], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        sys.exit(f"{WHO}: {gcreplay} run --config {cfg} {trace} failed:\n{r.stderr}")
    return int(r.stderr.strip().splitlines()[-1]) / 1024.0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("builds", metavar="BUILD", nargs="*", default=["build/src/gcreplay"])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--traces", default=os.path.join(os.path.dirname(ROOT), "shared", "traces",
                                                     "accelsim"))
    ap.add_argument("--config", default=os.path.join(ROOT, "examples", "configs", "qv100.json"))
    args = ap.parse_args()
    if args.runs < 1:
        sys.exit(f"{WHO}: --runs must be at least 1")
    names = sorted(n for n in os.listdir(args.traces)
                   if os.path.isfile(os.path.join(args.traces, n, "accelsim-qv100.json")))
    if not names:
        sys.exit(f"{WHO}: no traces with accelsim-qv100.json in {args.traces}")

    with tempfile.TemporaryDirectory(prefix="gcreplay-accelsim-") as work:
        bins = [binary_of(WHO, b, f"B{i}", work) for i, b in enumerate(args.builds)]
        rows = []
        differ = []
        for name in names:
            with open(os.path.join(args.traces, name, "accelsim-qv100.json")) as f:
                ref = json.load(f)
            trace = os.path.join(work, "traces", name)
            plain_copy(os.path.join(args.traces, name), trace)
            reports = []
            for i, b in enumerate(bins):
                out = os.path.join(work, f"{name}-{i}.json")
                r = subprocess.run([b, "run", "-q", "--config", args.config, "--json", out,
                                    trace], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                   text=True)
                if r.returncode != 0:
                    sys.exit(f"{WHO}: {args.builds[i]} on {name} failed:\n{r.stderr}")
                reports.append(out)
            if any(not filecmp.cmp(reports[0], r, shallow=False) for r in reports[1:]):
                differ.append(name)
            walls = [[] for _ in bins]
            cpus = [[] for _ in bins]
            rss = [peak_rss(b, args.config, trace) for b in bins]
            for run in range(args.runs):
                order = range(len(bins)) if run % 2 == 0 else reversed(range(len(bins)))
                for i in order:
                    wall, cpu, _ = timed_replay(WHO, bins[i], args.config, trace)
                    walls[i].append(wall)
                    cpus[i].append(cpu)
            best = [(min(w), min(c), r) for w, c, r in zip(walls, cpus, rss)]
            rows.append((name, ref["stats"]["gpgpu_n_tot_w_icount"],
                         ref["accelsim_wall_seconds_on_a_2_core_vm"], best))

    print(f"{WHO}: best of {args.runs} wall times, config {os.path.relpath(args.config, ROOT)}; "
          + ("same reports" if not differ else "reports differ: " + ", ".join(differ)))
    for i, b in enumerate(args.builds):
        print(f"  build {i} = {b}")
    head = f"{'trace':<16} {'warp insns':>10} {'Accel-Sim s':>11}"
    for i in range(len(bins)):
        head += f" {f'b{i} ms':>8} {f'cpu ms':>7} {f'MB':>6} {f'ratio':>7}"
    print(head)
    for name, insns, acc, best in rows:
        line = f"{name:<16} {insns:>10} {acc:>11.2f}"
        for wall, cpu, rss in best:
            line += f" {wall * 1e3:8.1f} {cpu * 1e3:7.1f} {rss:6.1f} {acc / wall:6.0f}x"
        print(line)
    for i in range(len(bins)):
        ratios = [acc / best[i][0] for _, _, acc, best in rows]
        big = [acc / best[i][0] for _, insns, acc, best in rows if insns >= TINY_WARP_INSNS]
        print(f"build {i}: median ratio {statistics.median(ratios):.0f}x, lowest "
              f"{min(big):.0f}x on the traces of {TINY_WARP_INSNS} warp instructions or more"
              if big else f"build {i}: median ratio {statistics.median(ratios):.0f}x")


if __name__ == "__main__":
    main()
