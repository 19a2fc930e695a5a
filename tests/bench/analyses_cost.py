#!/usr/bin/env python3
"""What the analyses cost: plain replay vs each analysis alone vs all at once.

Generates one synthetic benchmark trace with `gcreplay bench --keep`, then
replays it with the plain config and with analyses enabled, interleaving the
variants round after round (a noisy shared machine slows every variant of a
round alike), and prints for each variant the best wall time, the best CPU
time (user + system: time-sharing with other processes does not inflate it)
and the peak RSS, each also as a ratio to the plain replay of the same run,
and the median over rounds of the CPU-time ratio to that round's plain
replay ("med x", and of the wall times, "med wx"). The best-of ratios hang
on one lucky plain run; the median of per-round ratios is the steadier
figure when the machine's speed drifts during the measurement. Every variant
runs the analyses on the replay's thread (`--analysis-thread off`), so CPU
times compare like for like; on a machine with two CPUs or more the "thread"
variants add all six with the analyses on a thread of their own, where the
wall time is what shrinks.

The analyses' options are those of examples/configs/volta80-analyses.json;
the config's caches come from --config. Variants:
  plain              no analysis
  <name>             that analysis alone
  reuse_distance@1%  reuse_distance alone, SHARDS-sampled at 1 %
  all                all six, reuse_distance at its default (exact)
  all, rd@1%         all six, reuse_distance sampled at 1 %

--callgrind also runs each variant once under `valgrind --tool=callgrind
--cache-sim=yes` on a trace a quarter as long, with a 4-MB 16-way last-level
cache (a per-core share of a typical server, so results do not depend on the
machine's own): it prints the instructions (Ir), the last-level data misses
(DLm) and callgrind's cycle estimate Ir + 10 x L1 misses + 100 x LL misses.
These runs fix the host prefetch level at l2 (what the replay chooses by timing
would follow valgrind's slowdown), so the counts are deterministic and are the
figures to compare builds with on a noisy machine; the analyses are bound by
cache misses more than by instructions, so the cycle estimate is the one to
read.

Figures, not pass/fail. Usage (from the source root, after ninja -C build):
  python3 tests/bench/analyses_cost.py [--instructions N] [--rounds R]
                                       [--config FILE] [--gcreplay BIN] [--callgrind]
"""
import argparse
import copy
import json
import os
import statistics
import tempfile

from bench_util import bench_traces, callgrind_events, timed_replay

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def variants(base_cfg, analyses, threads):
    """(label, config dict, run options) for every measured variant."""
    def with_analyses(a):
        c = copy.deepcopy(base_cfg)
        c.pop("analyses", None)
        if a:
            c["analyses"] = a
        return c

    one = ["--analysis-thread", "off"]
    out = [("plain", with_analyses(None), one)]
    for name in sorted(analyses):
        out.append((name, with_analyses({name: analyses[name]}), one))
    rd1 = dict(analyses.get("reuse_distance", {}), sampling_rate=0.01)
    out.append(("reuse_distance@1%", with_analyses({"reuse_distance": rd1}), one))
    out.append(("all", with_analyses(analyses), one))
    out.append(("all, rd@1%", with_analyses(dict(analyses, reuse_distance=rd1)), one))
    if threads:
        two = ["--analysis-thread", "on"]
        out.append(("all, thread", with_analyses(analyses), two))
        out.append(("all, rd@1%, thread", with_analyses(dict(analyses, reuse_distance=rd1)), two))
    return out


def callgrind_counts(gcreplay, cfg_path, trace, extra, workdir):
    """(Ir, last-level data misses, estimated cycles) of one replay under callgrind."""
    # Events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw
    ev = callgrind_events("analyses_cost",
                          [gcreplay, "run", "-q", "--host-prefetch", "l2", *extra,
                           "--config", cfg_path, trace],
                          workdir, ["--cache-sim=yes", "--LL=4194304,16,64"])
    ir, l1m, llm = ev[0], ev[3] + ev[4] + ev[5], ev[6] + ev[7] + ev[8]
    return ir, ev[7] + ev[8], ir + 10 * l1m + 100 * llm


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--instructions", type=int, default=4000000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--config", default=os.path.join(ROOT, "examples/configs/volta80.json"))
    ap.add_argument("--gcreplay", default=os.path.join(ROOT, "build/src/gcreplay"))
    ap.add_argument("--callgrind", action="store_true")
    ap.add_argument("--no-thread", action="store_true",
                    help="leave out the variants with the analyses on a thread of their own")
    args = ap.parse_args()
    threads = not args.no_thread and len(os.sched_getaffinity(0)) >= 2

    with open(args.config) as f:
        base_cfg = json.load(f)
    with open(os.path.join(ROOT, "examples/configs/volta80-analyses.json")) as f:
        analyses = json.load(f)["analyses"]

    with tempfile.TemporaryDirectory(prefix="gcreplay-analyses-cost-") as work:
        trace, quarter = bench_traces(args.gcreplay, args.instructions, work, args.config)
        vs = variants(base_cfg, analyses, threads)
        paths = {}
        for i, (label, cfg, _) in enumerate(vs):
            paths[label] = os.path.join(work, f"variant{i}.json")
            with open(paths[label], "w") as f:
                json.dump(cfg, f)

        best = {label: [float("inf"), float("inf"), 0.0] for label, _, _ in vs}
        ratios = {label: [] for label, _, _ in vs}  # per round: CPU time / plain's
        wratios = {label: [] for label, _, _ in vs}  # per round: wall time / plain's
        for _ in range(args.rounds):
            plain = None
            for label, _, extra in vs:
                wall, cpu, rss = timed_replay("analyses_cost", args.gcreplay, paths[label], trace,
                                              extra)
                b = best[label]
                b[0], b[1], b[2] = min(b[0], wall), min(b[1], cpu), max(b[2], rss)
                if plain is None:  # "plain" comes first in every round
                    plain = (wall, cpu)
                ratios[label].append(cpu / plain[1] if plain[1] > 0 else float("nan"))
                wratios[label].append(wall / plain[0] if plain[0] > 0 else float("nan"))
        ir = {}
        if args.callgrind:
            for label, _, extra in vs:
                ir[label] = callgrind_counts(args.gcreplay, paths[label], quarter, extra, work)

    p = best["plain"]
    print(f"analyses cost: {args.instructions} warp memory instructions (typical mix), "
          f"config {os.path.relpath(args.config, ROOT)}, best of {args.rounds} interleaved rounds "
          f"(med x: median of the per-round CPU-time ratios; med wx: of the wall-time ones)")
    head = (f"{'variant':<20} {'wall-s':>7} {'x':>6} {'cpu-s':>7} {'x':>6} {'RSS-MB':>8} {'x':>6}"
            f" {'med x':>6} {'med wx':>6}")
    if ir:
        head += f" | 1/4 trace: {'Ir':>13} {'x':>5} {'DLm':>10} {'x':>5} {'est-cyc':>13} {'x':>5}"
    print(head)
    for label, _, _ in vs:
        b = best[label]
        line = (f"{label:<20} {b[0]:7.2f} {b[0] / p[0]:6.2f} {b[1]:7.2f} {b[1] / p[1]:6.2f} "
                f"{b[2]:8.1f} {b[2] / p[2]:6.2f} {statistics.median(ratios[label]):6.2f} "
                f"{statistics.median(wratios[label]):6.2f}")
        if ir:
            c, c0 = ir[label], ir["plain"]
            line += (f" |            {c[0]:13d} {c[0] / c0[0]:5.2f} {c[1]:10d} "
                     f"{c[1] / max(c0[1], 1):5.2f} {c[2]:13d} {c[2] / c0[2]:5.2f}")
        print(line)


if __name__ == "__main__":
    main()
