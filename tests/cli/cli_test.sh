#!/usr/bin/env bash
# End-to-end tests of the gcreplay command. Usage: cli_test.sh CASE GCREPLAY
# Each case exits 0 on success; failures print what differed.
set -u
case_name=$1
GCR=$(readlink -f "$2")
SRC=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$SRC"
fails=0

fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

# expect_exit CODE CMD...: runs CMD with stdout/stderr in $work/out, $work/err.
expect_exit() {
  local want=$1; shift
  "$@" >"$work/out" 2>"$work/err"
  local got=$?
  [ "$got" -eq "$want" ] || { fail "exit $got (want $want): $*"; sed 's/^/  stderr: /' "$work/err" >&2; }
}

contains() { # file text
  grep -qF -- "$2" "$1" || { fail "$1 lacks: $2"; sed 's/^/  got: /' "$1" | head -5 >&2; }
}

# check_report FILE: the JSON has the report's promised shape.
check_report() {
  python3 - "$1" <<'PY' || fail "report shape: $1"
import json, sys
r = json.load(open(sys.argv[1]))
assert isinstance(r["kernels"], list) and r["kernels"], "no kernels"
for period in r["kernels"] + [r["total"]]:
    for level in ("L1D", "L2"):
        lv = period[level]
        for key in ("accesses", "hits", "misses", "miss_rate"):
            assert key in lv, (level, key)
        assert lv["hits"] + lv["misses"] == lv["accesses"], level
        if lv["accesses"]:
            assert abs(lv["miss_rate"] - lv["misses"] / lv["accesses"]) < 1e-9
        assert lv["misses"] == lv["line_misses"] + lv["sector_misses"], level
        per = lv["per_sm" if level == "L1D" else "per_slice"]
        for col, values in per.items():
            assert sum(values) == lv[col], (level, col)
tot = r["total"]
for level in ("L1D", "L2"):
    for key in ("accesses", "hits", "misses"):
        assert sum(k[level][key] for k in r["kernels"]) == tot[level][key], (level, key)
PY
}

case "$case_name" in
example-configs)
  # Every example config runs on every example trace.
  for cfg in examples/configs/*.json; do
    for tr in examples/traces/*; do
      [ -f "$tr" ] || continue
      case "$tr" in *.md) continue;; esac
      expect_exit 0 "$GCR" run --config "$cfg" --json "$work/r.json" "$tr"
      contains "$work/out" "total"
      check_report "$work/r.json"
    done
  done
  ;;
readme)
  # Every "$ gcreplay ..." line of README.md runs as written (from a scratch
  # directory that sees the repository's examples/ and tests/).
  mkdir "$work/repo"
  ln -s "$SRC/examples" "$work/repo/examples"
  ln -s "$SRC/tests" "$work/repo/tests"
  ln -s "$SRC/../shared" "$work/shared"
  n=0
  while IFS= read -r line; do
    cmd=${line#\$ gcreplay }
    n=$((n + 1))
    (cd "$work/repo" && eval "\"$GCR\" $cmd") >"$work/out" 2>"$work/err" ||
      { fail "README example: gcreplay $cmd"; cat "$work/err" >&2; }
  done < <(grep -E '^\$ gcreplay ' README.md)
  [ "$n" -ge 5 ] || fail "README has only $n runnable examples"
  ;;
determinism)
  expect_exit 0 "$GCR" run -q --config examples/configs/volta80.json --json "$work/a.json" examples/traces/stencil.txt
  expect_exit 0 "$GCR" run -q --config examples/configs/volta80.json --json "$work/b.json" examples/traces/stencil.txt
  cmp -s "$work/a.json" "$work/b.json" || fail "two runs gave different JSON"
  # The effective config a report echoes is itself a config giving the same report.
  for cfg in examples/configs/*.json; do
    expect_exit 0 "$GCR" run -q --config "$cfg" --json "$work/c.json" examples/traces/stencil.txt
    python3 -c 'import json,sys; json.dump(json.load(open(sys.argv[1]))["config"], open(sys.argv[2], "w"))' \
      "$work/c.json" "$work/echo.json"
    expect_exit 0 "$GCR" run -q --config "$work/echo.json" --json "$work/d.json" \
      examples/traces/stencil.txt
    python3 - "$work/c.json" "$work/d.json" <<'PY' || fail "echoed config of $cfg gives another report"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
assert a["kernels"] == b["kernels"] and a["total"] == b["total"] and a["config"] == b["config"]
PY
  done
  ;;
convert-roundtrip)
  for tr in examples/traces/vecadd.txt examples/traces/stencil.txt; do
    expect_exit 0 "$GCR" convert "$tr" "$work/t.gcrt"
    expect_exit 0 "$GCR" convert --level 0 --block-bytes 256 "$work/t.gcrt" "$work/t0.gcrt"
    expect_exit 0 "$GCR" convert "$work/t0.gcrt" "$work/back.txt"
    expect_exit 0 "$GCR" convert "$work/back.txt" "$work/again.txt"
    cmp -s "$work/back.txt" "$work/again.txt" || fail "text -> native -> text is not stable for $tr"
    for f in "$tr" "$work/t.gcrt" "$work/t0.gcrt" "$work/back.txt"; do
      expect_exit 0 "$GCR" run -q --config examples/configs/volta80.json --json "$work/$(basename "$f").json" "$f"
    done
    python3 - "$work"/*.json <<'PY' || fail "reports differ between formats of $tr"
import json, sys
reps = [json.load(open(p)) for p in sys.argv[1:]]
for r in reps[1:]:
    assert r["kernels"] == reps[0]["kernels"] and r["total"] == reps[0]["total"]
# The native reader describes its trace in the report.
gcrt = [r for r in reps if r["traces"][0]["format"] == "gcrt"]
assert gcrt and all(r["traces"][0]["format_details"]["version"] == "1.0" for r in gcrt)
PY
    rm -f "$work"/*.json
  done
  ;;
info)
  expect_exit 0 "$GCR" info examples/traces/vecadd.txt
  contains "$work/out" "text trace"
  contains "$work/out" "_Z6vecaddPKfS0_Pfi"
  expect_exit 0 "$GCR" convert examples/traces/vecadd.txt "$work/v.gcrt"
  expect_exit 0 "$GCR" info --json "$work/v.gcrt"
  python3 - "$work/out" <<'PY' || fail "info --json"
import json, sys
i = json.load(open(sys.argv[1]))
assert i["format"] == "gcrt" and i["records"]["kernel_begin"] == 1
assert i["kernels"][0]["ctas_with_records"] == 32
assert "format_details" in i
PY
  ;;
config-errors)
  while IFS=$'\t' read -r file who text; do
    case "$file" in \#*|"") continue;; esac
    rm -f "$work/r.json"
    expect_exit 1 "$GCR" run --config "tests/cli/configs/$file" --json "$work/r.json" examples/traces/vecadd.txt
    contains "$work/err" "$text"
    if [ "$who" = config ]; then contains "$work/err" "$file"; else contains "$work/err" "vecadd.txt"; fi
    [ ! -e "$work/r.json" ] || fail "$file: a JSON report was written"
    [ -z "$(ls "$work" | grep tmp)" ] || fail "$file: temporary file left behind"
  done < tests/cli/configs/expected.txt
  expect_exit 1 "$GCR" run --config "$work/missing.json" examples/traces/vecadd.txt
  contains "$work/err" "missing.json"
  ;;
trace-errors)
  # Every bad fixture of every format: exit 1, its path and place in the message, no output.
  while IFS=$'\t' read -r file text; do
    case "$file" in \#*|"") continue;; esac
    rm -f "$work/r.json"
    expect_exit 1 "$GCR" run --config examples/configs/volta80.json --json "$work/r.json" "$file"
    contains "$work/err" "$file"
    contains "$work/err" "$text"
    [ ! -e "$work/r.json" ] || fail "$file: a JSON report was written"
    expect_exit 1 "$GCR" convert "$file" "$work/c.gcrt"
    [ ! -e "$work/c.gcrt" ] || fail "$file: convert left an output file"
    [ -z "$(ls "$work" | grep tmp)" ] || fail "$file: temporary file left behind"
    expect_exit 1 "$GCR" info "$file"
  done < tests/cli/trace-errors.txt
  expect_exit 1 "$GCR" run --config examples/configs/volta80.json "$work/nonexistent.gcrt"
  contains "$work/err" "nonexistent.gcrt"
  printf 'hello\n' >"$work/unknown.dat"
  expect_exit 1 "$GCR" run --config examples/configs/volta80.json "$work/unknown.dat"
  contains "$work/err" "not a trace in any known format"
  ;;
json-atomic)
  # A report that cannot be written: error, and nothing claimed on stdout.
  expect_exit 1 "$GCR" run --config examples/configs/volta80.json --json "$work/no/such/dir/r.json" examples/traces/vecadd.txt
  contains "$work/err" "r.json"
  [ ! -s "$work/out" ] || fail "table printed although the JSON failed"
  # An existing report is replaced only by a complete one.
  echo '{"old": true}' >"$work/r.json"
  expect_exit 1 "$GCR" run --config tests/cli/configs/bad-type.json --json "$work/r.json" examples/traces/vecadd.txt
  grep -q '"old"' "$work/r.json" || fail "failed run touched the existing report"
  expect_exit 0 "$GCR" run --config examples/configs/volta80.json --json "$work/r.json" examples/traces/vecadd.txt
  check_report "$work/r.json"
  ;;
usage)
  expect_exit 2 "$GCR"
  expect_exit 2 "$GCR" frobnicate
  expect_exit 2 "$GCR" run examples/traces/vecadd.txt
  contains "$work/err" "--config"
  expect_exit 2 "$GCR" run --config examples/configs/volta80.json
  expect_exit 2 "$GCR" run --bogus
  expect_exit 2 "$GCR" convert onlyone
  expect_exit 2 "$GCR" convert examples/traces/vecadd.txt "$work/out.unknownext"
  contains "$work/err" "extension"
  expect_exit 2 "$GCR" convert --level 42 examples/traces/vecadd.txt "$work/x.gcrt"
  expect_exit 2 "$GCR" convert --to nosuchformat examples/traces/vecadd.txt "$work/x.gcrt"
  expect_exit 2 "$GCR" run --format nosuchformat --config examples/configs/volta80.json examples/traces/vecadd.txt
  expect_exit 2 "$GCR" bench --instructions 12
  for c in run convert info bench; do
    expect_exit 0 "$GCR" "$c" --help
    contains "$work/out" "usage: gcreplay $c"
  done
  expect_exit 0 "$GCR" --version
  expect_exit 0 "$GCR" formats
  contains "$work/out" "gcrt"
  ;;
import-config)
  # The shipped imported configs are what import-config makes of the public files.
  shared=../shared/gpgpusim-configs
  for pair in "SM7_QV100 qv100" "SM86_RTX3070 rtx3070"; do
    set -- $pair
    expect_exit 0 "$GCR" import-config -o "$work/$2.json" "$shared/$1/gpgpusim.config" \
      "$shared/$1/trace.config"
    cmp -s "$work/$2.json" "examples/configs/$2.json" ||
      fail "examples/configs/$2.json differs from a fresh import of $shared/$1"
  done
  expect_exit 0 "$GCR" import-config -o "$work/gtx480.json" "$shared/SM2_GTX480/gpgpusim.config"
  expect_exit 0 "$GCR" run -q --config "$work/gtx480.json" examples/traces/stencil.txt
  # Errors name the file and line; no output is left behind.
  printf -- '# overrides\n-gpgpu_cache:dl1 S:4:128\n' >"$work/bad.config"
  expect_exit 1 "$GCR" import-config -o "$work/out.json" "$shared/SM7_QV100/gpgpusim.config" \
    "$work/bad.config"
  contains "$work/err" "bad.config:2: -gpgpu_cache:dl1 S:4:128: not a GPGPU-Sim cache string"
  [ ! -e "$work/out.json" ] || fail "output written for a bad config"
  expect_exit 2 "$GCR" import-config "$work/bad.config"
  expect_exit 2 "$GCR" import-config -o "$work/out.json"
  expect_exit 0 "$GCR" import-config --help
  contains "$work/out" "usage: gcreplay import-config"
  ;;
fidelity)
  # Against Accel-Sim's own statistics for the reference traces (SM7_QV100 plus
  # -gpgpu_perf_sim_memcpy 0, as they were produced): the same L1D and L2
  # access counts per global read/write (atomics are reads at L2, as in
  # GPGPU-Sim), and miss rates within 2 percentage points, Accel-Sim's pending
  # and MSHR hits counting as hits.
  shared=../shared
  printf -- '-gpgpu_perf_sim_memcpy 0\n' >"$work/memcpy-off.config"
  expect_exit 0 "$GCR" import-config -o "$work/qv100.json" \
    "$shared/gpgpusim-configs/SM7_QV100/gpgpusim.config" \
    "$shared/gpgpusim-configs/SM7_QV100/trace.config" "$work/memcpy-off.config"
  n=0
  for dir in "$shared"/traces/accelsim/*/; do
    [ -f "$dir/accelsim-qv100.json" ] || continue
    n=$((n + 1))
    name=$(basename "$dir")
    expect_exit 0 "$GCR" run -q --config "$work/qv100.json" --json "$work/$name.json" "$dir"
    python3 tests/cli/fidelity.py "$work/$name.json" "$dir/accelsim-qv100.json" "$name" \
      >>"$work/fidelity.txt" || fail "fidelity: $name"
  done
  [ "$n" -ge 5 ] || fail "found only $n reference traces under $shared/traces/accelsim"
  cat "$work/fidelity.txt"
  ;;
progress)
  # Progress goes to stderr only when it is a terminal (script gives a pseudo-terminal).
  script -qec "\"$GCR\" run --config examples/configs/volta80.json examples/traces/vecadd.txt" \
    /dev/null >"$work/tty" 2>&1 || fail "run under a terminal failed"
  contains "$work/tty" "gcreplay: examples/traces/vecadd.txt 100.0%"
  contains "$work/tty" "M warp instructions"
  expect_exit 0 "$GCR" run --config examples/configs/volta80.json examples/traces/vecadd.txt
  [ ! -s "$work/err" ] || fail "progress written although stderr is not a terminal"
  ;;
golden)
  # Full reports compared byte for byte with committed ones. After a deliberate
  # change, regenerate with GCR_UPDATE_GOLDEN=1 and review the diff.
  for pair in "volta80 vecadd" "volta80 stencil" "fermi28 stencil" "volta80-analyses stencil"; do
    set -- $pair
    want=tests/cli/golden/$2--$1.json
    expect_exit 0 "$GCR" run -q --config "examples/configs/$1.json" --json "$work/got.json" \
      "examples/traces/$2.txt"
    if [ "${GCR_UPDATE_GOLDEN:-}" = 1 ]; then
      cp "$work/got.json" "$want"
    elif ! cmp -s "$work/got.json" "$want"; then
      fail "report differs from $want"
      diff "$want" "$work/got.json" | head -20 >&2
    fi
  done
  ;;
bench-small)
  # The benchmark runs end to end (tiny size; figures are not judged here).
  expect_exit 0 "$GCR" bench --instructions 20000 --sms 8
  contains "$work/out" "mem-insn/s"
  contains "$work/out" "peak-RSS-MB"
  ;;
analyses-cost)
  # The analyses' cost benchmark runs end to end (tiny size; figures are not judged).
  expect_exit 0 python3 tests/bench/analyses_cost.py --instructions 20000 --rounds 1 \
    --gcreplay "$GCR"
  for v in plain sharing "reuse_distance@1%" "all, rd@1%"; do
    contains "$work/out" "$v "
  done
  ;;
*)
  echo "unknown case $case_name" >&2
  exit 2
  ;;
esac
[ "$fails" -eq 0 ]
