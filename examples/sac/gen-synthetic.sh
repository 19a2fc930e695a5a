#!/bin/sh
# Writes a synthetic text trace (trace-formats/text) built to favour one LLC
# organisation of a multi-chip GPU (see examples/sac/README.md):
#   shared   every CTA reads the same small table (32 KB) over and over: a small
#            truly-shared working set that every chip's SM-side LLC can hold,
#            while memory-side sends 3 of 4 requests over the links -> SM-side.
#   private  every CTA streams its own 64 KB once: large private per-chip
#            streams, all local, nothing to gain from replication -> memory-side.
#   shared-large  every CTA reads a 160-KB table: more than one chip's LLC
#            (64 KB in sac4x4-small.json), less than all four: memory-side holds
#            it once, SM-side copies thrash -> memory-side. The CRD cannot see
#            that pressure (examples/sac/README.md, "Known limits").
# usage: gen-synthetic.sh shared|private|shared-large [CTAS]   (default 64 CTAs of 4 warps)
kind=${1:?usage: gen-synthetic.sh shared|private|shared-large [CTAS]}
ctas=${2:-64}
case $kind in shared|private|shared-large) ;; *) echo "gen-synthetic.sh: unknown kind '$kind'" >&2; exit 2;; esac
awk -v kind="$kind" -v ctas="$ctas" 'BEGIN {
    print "#gcreplay-text 1"
    name = kind; sub(/-/, "_", name)
    printf "kernel 1 sac_%s grid=%d,1,1 block=128,1,1 shmem=0 regs=16\n", name, ctas
    table = 268435456; streams = 1073741824  # 0x10000000, 0x40000000 (awk reads no hex)
    for (c = 0; c < ctas; c++)
        for (w = 0; w < 4; w++)
            for (i = 0; i < 128; i++) {
                if (kind == "shared")   # 256 lines of 128 B, each warp from its own offset
                    line = table + ((w * 64 + c * 8 + i) % 256) * 128
                else if (kind == "shared-large")  # 1280 lines, a CTA covers 512 of them
                    line = table + ((w * 128 + c * 160 + i) % 1280) * 128
                else                    # 512 lines per CTA, 128 per warp, read once
                    line = streams + ((c * 4 + w) * 128 + i) * 128
                printf "%d %d 0x%x load global 4 0xffffffff 0x%x+4\n", c, w, 16 * i, line
                if (i % 4 == 3) printf "%d %d compute 4\n", c, w
            }
    print "end 1"
}'
