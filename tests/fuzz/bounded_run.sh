#!/usr/bin/env bash
# A short libFuzzer run for the test suite: bounded_run.sh FUZZER SECONDS CORPUS ARTIFACT_PREFIX
#
# Fuzzes from the inputs of CORPUS (left as it is: what the run finds goes to a temporary
# directory, removed at the end) for SECONDS, with the memory and time limits of
# campaign.sh. A crash, a sanitizer report, a leak, a timeout or too much memory fails the
# run, with the input saved as ARTIFACT_PREFIX<kind>-<sha1>. (libFuzzer's own exit status for
# a crash, 77, would read as "skipped" to meson: it is 1 here.)
set -eu
fuzzer=$1 seconds=$2 corpus=$3 prefix=$4
found=$(mktemp -d)
trap 'rm -rf "$found"' EXIT
"$fuzzer" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -error_exitcode=1 \
  -print_final_stats=1 -artifact_prefix="$prefix" "$found" "$corpus"
