#!/usr/bin/env python3
"""Side-by-side L1 organisations of the Tag-Split Cache paper on synthetic traces.

Usage: python3 examples/tsc_compare.py GCREPLAY [--check] [--warps-per-sm N]

Writes three text traces (trace-formats/text) into a temporary directory:
  gather     every lane reads 4 bytes 136 B apart (a 34-float record per thread,
             as kmeans' invert_mapping reads it), one feature after the other:
             poor spatial locality per instruction, reuse across instructions;
  random     every lane reads 4 bytes at a random place of a 64-KB table;
  coalesced  every warp streams 128 contiguous bytes per load (perfectly
             coalesced), each line read once;
then replays each under examples/configs/fermi15-tsc.json as the 128-B
baseline, the sector cache, 64-B and 32-B lines (private L1s), TSC, TSC+,
DSC-2 and DSC-4, and prints per organisation: L1 requests, misses per memory
instruction (the paper's miss rate), MPKI, and L1->L2 / L2->L1 traffic in 32-B
packets normalised to the 128-B baseline.

The private runs have no per-instruction figures of their own: TSC replays
the same four conventional caches beside itself (l1d.tsc.baselines), and the
script takes them from there, after checking that each reference's request
and miss counts equal its private run's (they must: warps interleave the
same way whatever hits). --check exits 1 unless TSC has fewer misses and less
traffic than the baseline on the scattered traces and is no worse than it on
the coalesced one (within the TSC+ sampler cost for TSC+).
"""
import copy
import json
import os
import random
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
BASE_CONFIG = os.path.join(HERE, "configs", "fermi15-tsc.json")


def write_trace(path, kind, ctas, warps_per_cta):
    rnd = random.Random(7)
    lines = ["#gcreplay-text 1", f"# {kind}: synthetic trace written by examples/tsc_compare.py",
             f"kernel 1 {kind} grid={ctas},1,1 block={32 * warps_per_cta},1,1 shmem=0 regs=16"]
    for cta in range(ctas):
        for w in range(warps_per_cta):
            tid0 = (cta * warps_per_cta + w) * 32
            if kind == "gather":
                for i in range(34):
                    lines.append(f"{cta} {w} 0x100 load global 4 0xffffffff "
                                 f"{0x10000000 + tid0 * 136 + i * 4:#x}+136")
                    lines.append(f"{cta} {w} compute 4")
            elif kind == "random":
                for i in range(32):
                    addrs = " ".join(f"{0x20000000 + rnd.randrange(1 << 14) * 4:#x}"
                                     for _ in range(32))
                    lines.append(f"{cta} {w} 0x200 load global 4 0xffffffff {addrs}")
                    lines.append(f"{cta} {w} compute 4")
            else:  # coalesced
                for i in range(32):
                    base = 0x30000000 + ((cta * warps_per_cta + w) * 32 + i) * 128
                    lines.append(f"{cta} {w} 0x300 load global 4 0xffffffff {base:#x}+4")
                    lines.append(f"{cta} {w} compute 4")
    lines.append("end 1")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def variants(base):
    """name -> config, for every organisation compared."""
    out = {}
    base = copy.deepcopy(base)
    # One CTA per SM at a time, so the warps of one CTA make the working set.
    base["gpu"]["max_ctas_per_sm"] = 1

    def private(line, sectored):
        c = copy.deepcopy(base)
        c["l1d"]["organization"] = "private"
        del c["l1d"]["tsc"]
        c["l1d"]["sectored"] = sectored
        if line != 128:
            # Fixed small lines: coalescing at the line size (one request per
            # line touched); same capacity and ways. The coalescer's line size
            # is every cache's, so the L2 uses that line too. The Fermi hash
            # is defined for 128-B lines only: linear index.
            c["coalescer"]["line_bytes"] = line
            c["l1d"]["index"] = "linear"
        return c

    out["base128"] = private(128, False)
    out["sector"] = private(128, True)
    out["line64"] = private(64, False)
    out["line32"] = private(32, False)
    tsc = copy.deepcopy(base)
    tsc["l1d"]["tsc"]["baselines"] = ["line128", "sector", "line64", "line32"]
    out["tsc"] = tsc
    plus = copy.deepcopy(base)
    plus["l1d"]["tsc"]["mode"] = "adaptive"
    out["tsc+"] = plus
    for k in (2, 4):
        d = copy.deepcopy(base)
        d["l1d"]["organization"] = "dsc"
        del d["l1d"]["tsc"]
        d["l1d"]["dsc"] = {"tags_per_frame": k}
        out[f"dsc{k}"] = d
    return out


def run(gcr, config, trace, work, name):
    cpath = os.path.join(work, name + ".json")
    rpath = os.path.join(work, name + ".report.json")
    with open(cpath, "w") as f:
        json.dump(config, f)
    subprocess.run([gcr, "run", "-q", "--config", cpath, "--json", rpath, trace], check=True,
                   stdout=subprocess.DEVNULL)
    with open(rpath) as f:
        return json.load(f)["total"]


def main():
    args = sys.argv[1:]
    if not args:
        print(__doc__, file=sys.stderr)
        return 2
    gcr = os.path.abspath(args[0])
    check = "--check" in args
    warps = 8
    if "--warps-per-sm" in args:
        warps = int(args[args.index("--warps-per-sm") + 1])
    with open(BASE_CONFIG) as f:
        base = json.load(f)
    configs = variants(base)
    failures = []
    with tempfile.TemporaryDirectory() as work:
        for kind in ("gather", "random", "coalesced"):
            trace = os.path.join(work, kind + ".txt")
            # CTAs of `warps` warps, one per SM at a time, 4 rounds.
            write_trace(trace, kind, 15 * 4, warps)
            tot = {n: run(gcr, c, trace, work, f"{kind}-{n}") for n, c in configs.items()}
            kilo = tot["tsc"]["instructions"]["warp_total"] / 1000.0
            refs = tot["tsc"]["L1D"]["tsc"]["references"]
            rows = {}
            for name, ref in (("base128", "line128"), ("sector", "sector"),
                              ("line64", "line64"), ("line32", "line32")):
                l1 = tot[name]["L1D"]
                r = refs[ref]
                if (r["requests"], r["misses"]) != (l1["accesses"], l1["misses"]):
                    failures.append(f"{kind}: reference {ref} ({r['requests']} requests, "
                                    f"{r['misses']} misses) differs from its private run "
                                    f"({l1['accesses']}, {l1['misses']})")
                rows[name] = r
            rows["tsc"] = tot["tsc"]["L1D"]["tsc"]["metrics"]
            rows["tsc+"] = tot["tsc+"]["L1D"]["tsc"]["metrics"]
            rows["dsc2"] = tot["dsc2"]["L1D"]["dsc"]["metrics"]
            rows["dsc4"] = tot["dsc4"]["L1D"]["dsc"]["metrics"]
            b = rows["base128"]
            print(f"{kind}: {tot['tsc']['instructions']['memory']} warp memory instructions, "
                  f"{tot['tsc']['instructions']['warp_total']} warp instructions")
            print(f"  {'L1':8} {'requests':>9} {'miss%':>6} {'miss/insn':>9} {'MPKI':>8} {'L1->L2':>7} "
                  f"{'L2->L1':>7} {'used':>6}")
            for name, m in rows.items():
                util = m["utilisation"]["used_share"]
                print(f"  {name:8} {m['requests']:9d} {100 * m['miss_rate']:6.2f} "
                      f"{m['miss_rate_per_insn']:9.4f} "
                      f"{m['misses'] / kilo:8.2f} "
                      f"{m['packets']['l1_to_l2'] / b['packets']['l1_to_l2']:7.3f} "
                      f"{m['packets']['l2_to_l1'] / b['packets']['l2_to_l1']:7.3f} "
                      f"{'-' if util is None else format(util, '6.3f')}")
            if tot["tsc+"]["L1D"]["tsc"].get("adaptive"):
                ad = tot["tsc+"]["L1D"]["tsc"]["adaptive"]
                print(f"  TSC+ ends in {ad['mode_now']} mode after {ad['switches']} switches; "
                      f"follower requests fine/coarse "
                      f"{ad['follower_requests']['fine']}/{ad['follower_requests']['coarse']}")
            t = rows["tsc"]
            if rows["tsc"]["requests"] != b["requests"]:
                failures.append(f"{kind}: TSC made {t['requests']} requests, the baseline "
                                f"{b['requests']}")
            if kind != "coalesced":
                for key in ("misses", ):
                    if not t[key] < b[key]:
                        failures.append(f"{kind}: TSC {key} {t[key]} not below {b[key]}")
                if not t["packets"]["l2_to_l1"] < b["packets"]["l2_to_l1"]:
                    failures.append(f"{kind}: TSC L2->L1 traffic not below the baseline's")
            else:
                for name in ("tsc", "tsc+"):
                    m = rows[name]
                    # TSC+'s coarse sampler sets may fetch what fine mode would
                    # not: allow at most their share of the requests.
                    slack = 0 if name == "tsc" else b["misses"] * 8 // (32 * 15)
                    if m["misses"] > b["misses"] + slack:
                        failures.append(f"coalesced: {name} misses {m['misses']} exceed the "
                                        f"baseline's {b['misses']} by more than {slack}")
    for f in failures:
        print("FAIL:", f, file=sys.stderr)
    return 1 if check and failures else 0


if __name__ == "__main__":
    sys.exit(main())
