#!/usr/bin/env bash
# Installs what gcreplay needs to build and test on Debian 12, only if missing.
set -eu
# slurm-wlm and munge: the test of `gcreplay sweep --slurm` starts a one-node Slurm of its own
# (tests/cli/slurm_local.sh), not the system's services the packages bring. zstd and xz-utils:
# the compressed-trace test makes its copies with the tools; time: GNU time, which
# tests/bench/accelsim_speedup.py reads peak RSS with.
pkgs=(meson ninja-build pkg-config gcc clang libclang-rt-14-dev libjansson-dev libzstd-dev
      zlib1g-dev liblzma-dev libiberty-dev python3 python3-matplotlib chromium slurm-wlm
      munge zstd xz-utils time)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "installing: ${missing[*]}" >&2
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq "${missing[@]}" >/dev/null
