#!/usr/bin/env python3
"""Writes a broadcast-heavy text trace: every CTA reads one shared lookup table
(the data every SM wants a copy of) and streams through its own slice of a
private array. Used to compare L1 organisations (see README.md here).

Usage: broadcast.py OUT.txt [--ctas N] [--table-kb K] [--warps W]

Each CTA's W warps split the table between them, so every CTA reads the
whole table once, each warp starting at a different offset so SMs do not
walk the table in lockstep. Every table load is one fully coalesced 128-B
line (32 lanes x 4 bytes); after each table load the warp reads one line of
its private stream (never reused). Loads of the table therefore repeat
across SMs (replicas under private L1s) while private loads always miss.
"""
import argparse

LINE = 128
TABLE = 0x7F0000000000
PRIVATE = 0x7F1000000000


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out")
    ap.add_argument("--ctas", type=int, default=160)
    ap.add_argument("--warps", type=int, default=4)
    ap.add_argument("--table-kb", type=int, default=48)
    a = ap.parse_args()
    lines = a.table_kb * 1024 // LINE
    if lines % a.warps:
        ap.error("table lines must divide evenly among the warps")
    per_warp = lines // a.warps
    with open(a.out, "w") as f:
        f.write("#gcreplay-text 1\n")
        f.write(f"# broadcast.py --ctas {a.ctas} --warps {a.warps} --table-kb {a.table_kb}\n")
        f.write(f"kernel 1 broadcast grid={a.ctas},1,1 block={32 * a.warps},1,1 shmem=0 regs=32\n")
        for cta in range(a.ctas):
            for w in range(a.warps):
                start = (cta * 7) % per_warp  # spread the order across CTAs
                stream = PRIVATE + ((cta * a.warps + w) * per_warp) * LINE
                for i in range(per_warp):
                    t = w * per_warp + (start + i) % per_warp
                    f.write(f"{cta} {w} compute 4\n")
                    f.write(f"{cta} {w} 0x100 load global 4 0xffffffff 0x{TABLE + t * LINE:x}+4\n")
                    f.write(f"{cta} {w} 0x110 load global 4 0xffffffff 0x{stream + i * LINE:x}+4\n")
        f.write("end 1\n")


if __name__ == "__main__":
    main()
