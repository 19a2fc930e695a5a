#!/bin/sh
# Writes a synthetic text trace (trace-formats/text) built to favour one LLC
# organisation of a 4-chip GPU such as sac4x4-small.json (64-KB LLC per chip);
# examples/sac/README.md gives the figures.
#   shared        every CTA reads the same small table (32 KB) over and over: a
#                 small truly-shared working set that every chip's SM-side LLC
#                 can hold, while memory-side sends 3 of 4 requests over the
#                 links -> SM-side.
#   private       every CTA streams its own 64 KB once: large private per-chip
#                 streams, all local, nothing to gain from replication ->
#                 memory-side.
#   shared-large  every CTA reads 512 lines of a 160-KB table: more than one
#                 chip's LLC: SM-side copies thrash -> memory-side.
#   homed-large   two kernels: in the first, chip q touches quarter q of a
#                 128-KB table (so its pages are homed on all four chips); in
#                 the second every CTA reads the whole table. SM-side copies
#                 thrash -> memory-side; SAC's CRD at the home chips cannot see
#                 that (crd.at = "home"), one at the requesters can.
#   hot-sets      for sac4x4-sets512.json, whose LLC places the 4-KB page p in
#                 set indices 2p and 2p+1 (mod 32) of every slice: each warp
#                 reads, in turn, a line of a hot table of LINES lines from
#                 line FIRST (every chip re-reads it) and the next line of its
#                 own stream (read once). Only the sets the table falls in
#                 hit, so the SM-side hit rate differs from set to set: a
#                 test of which sets the CRD samples.
# usage: gen-synthetic.sh KIND [CTAS]   (default 64 CTAs of 4 warps)
#        gen-synthetic.sh hot-sets CTAS FIRST LINES
kind=${1:?usage: gen-synthetic.sh shared|private|shared-large|homed-large [CTAS] | hot-sets CTAS FIRST LINES}
ctas=${2:-64}
first=0 lines=0
case $kind in shared|private|shared-large|homed-large) ;;
hot-sets) first=${3:?hot-sets needs CTAS FIRST LINES} lines=${4:?hot-sets needs CTAS FIRST LINES};;
*) echo "gen-synthetic.sh: unknown kind '$kind'" >&2; exit 2;; esac
awk -v kind="$kind" -v ctas="$ctas" -v first="$first" -v lines="$lines" '
function load(c, w, i, addr) {
    printf "%d %d 0x%x load global 4 0xffffffff 0x%x+4\n", c, w, 16 * (i % 64), addr
    if (i % 4 == 3) printf "%d %d compute 4\n", c, w
}
function kernel(id, name) {
    printf "kernel %d sac_%s grid=%d,1,1 block=128,1,1 shmem=0 regs=16\n", id, name, ctas
}
BEGIN {
    print "#gcreplay-text 1"
    table = 268435456; streams = 1073741824  # 0x10000000, 0x40000000 (awk reads no hex)
    if (kind == "homed-large") {
        kernel(1, "homed_place")           # 1024 lines; chip q = CTA block q touches quarter q
        per_chip = ctas / 4
        for (c = 0; c < ctas; c++)
            for (w = 0; w < 4; w++)
                for (i = 0; i < 4; i++) {
                    q = int(c / per_chip); k = ((c % per_chip) * 16 + w * 4 + i) % 256
                    load(c, w, i, table + (q * 256 + k) * 128)
                }
        print "end 1"
        kernel(2, "homed_reuse")           # every warp 256 lines of the table
        for (c = 0; c < ctas; c++)
            for (w = 0; w < 4; w++)
                for (i = 0; i < 256; i++)
                    load(c, w, i, table + ((c * 16 + w * 256 + i) % 1024) * 128)
        print "end 2"
        exit
    }
    if (kind == "hot-sets") {
        kernel(1, "hot_sets")              # 256 loads per warp, every other one hot
        for (c = 0; c < ctas; c++)
            for (w = 0; w < 4; w++)
                for (i = 0; i < 256; i++) {
                    if (i % 2 == 0)         # the table, from an offset per warp
                        line = table + (first + ((c * 4 + w) * 7 + i / 2) % lines) * 128
                    else                    # 128 lines of its own, read once
                        line = streams + ((c * 4 + w) * 128 + (i - 1) / 2) * 128
                    load(c, w, i, line)
                }
        print "end 1"
        exit
    }
    name = kind; sub(/-/, "_", name)
    kernel(1, name)
    for (c = 0; c < ctas; c++)
        for (w = 0; w < 4; w++)
            for (i = 0; i < 128; i++) {
                if (kind == "shared")   # 256 lines of 128 B, each warp from its own offset
                    line = table + ((w * 64 + c * 8 + i) % 256) * 128
                else if (kind == "shared-large")  # 1280 lines, a CTA covers 512 of them
                    line = table + ((w * 128 + c * 160 + i) % 1280) * 128
                else                    # 512 lines per CTA, 128 per warp, read once
                    line = streams + ((c * 4 + w) * 128 + i) * 128
                load(c, w, i, line)
            }
    print "end 1"
}'
