#!/usr/bin/env bash
# How good is the CI gate's verdict? Prints figures, asserts nothing:
#   - the known effect: a fixed 10-round run of wireguard-go against the same binary whose
#     daemons (both nodes, together) are held to QUOTA % of one CPU by one cgroup quota (a
#     real, repeatable slowdown), measured first;
#   - false alarms: RUNS gated runs of the same build against itself (target: <= 1 of 10);
#   - detections: RUNS gated runs of the slowed copy (target: >= 9 of 10);
#   - wall time per verdict at the requested precision.
# Root; it makes one cgroup (vpnlab-verdict-bench-PID) and removes it at the end.
#   bench/verdict_bench.sh [RUNS] [QUOTA_PERCENT] [PRECISION] [MAX_TIME] [THRESHOLD] [SAMPLE_DURATION]
# calls: date awk grep
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-10}" quota="${2:-60}" precision="${3:-5%}" max_time="${4:-3m}" threshold="${5:-0.1}" duration="${6:-2s}"
vpnlab=./build/lab/vpnlab
wg=$(command -v wireguard-go) || { echo "verdict_bench: wireguard-go is not installed" >&2; exit 1; }
out=$(mktemp -d /tmp/vpnlab-verdict-bench.XXXXXX)

if [ -f /sys/fs/cgroup/cgroup.controllers ]; then
  cg=/sys/fs/cgroup/vpnlab-verdict-bench-$$; mkdir "$cg"; echo "$((quota * 1000)) 100000" > "$cg/cpu.max"
elif [ -f /sys/fs/cgroup/cpu/cpu.cfs_quota_us ]; then
  cg=/sys/fs/cgroup/cpu/vpnlab-verdict-bench-$$; mkdir "$cg"; echo "$((quota * 1000))" > "$cg/cpu.cfs_quota_us"
else
  echo "verdict_bench: no cgroup CPU controller: no CPU quota to slow a build with" >&2; exit 1
fi
trap 'rmdir "$cg" 2>/dev/null || true' EXIT
# A node's mount namespace has its own /sys: the cgroup is reached through this shell's root.
slow="$out/wireguard-go-slow"
printf '#!/bin/sh\necho $$ > /proc/%s/root%s/cgroup.procs || exit 1\nexec %s "$@"\n' "$$" "$cg" "$wg" > "$slow"
chmod 700 "$slow"

echo "verdict_bench: known effect (10 fixed rounds, wireguard-go at ${quota} % of a CPU)"
"$vpnlab" run topologies/quick.toml --product "wireguard-go@base=$wg" --product "wireguard-go@slow=$slow" \
  --samples 10 --duration 2s --out "$out/calibration" -q > /dev/null || true
calibration=("$out"/calibration/*/)  # the one run directory the calibration made
effect=$("$vpnlab" diff "${calibration[0]}" | awk '/@slow/ { print $6, $7; exit }')
echo "  B/A and its 95 % interval: $effect"

gated() {  # gated NAME PR_BINARY -> "exit seconds rounds"
  local t0 t1 rc rounds
  t0=$(date +%s)
  set +e
  bash scripts/ci-gate.sh --product wireguard-go --base "$wg" --pr "$2" --threshold "$threshold" --precision "$precision" \
    --max-time "$max_time" --samples 100 --duration "$duration" --out "$out/$1" > "$out/$1.log" 2>&1
  rc=$?
  set -e
  t1=$(date +%s)
  rounds=$(grep -oP '^sampling: .* after \K[0-9]+' "$out/$1.log" | tail -1 || echo "?")
  echo "$rc $((t1 - t0)) ${rounds:-?} $(grep -oP '^sampling: \K[a-z ]+(?= after)' "$out/$1.log" | tail -1)"
}

# series NAME BINARY: RUNS gated runs; sets fired (exit 3 count) and seconds (their sum).
series() {
  fired=0 seconds=0
  for i in $(seq "$runs"); do
    read -r rc s rounds why < <(gated "$1-$i" "$2")
    echo "  $1 build, run $i: exit $rc, ${s} s, $rounds rounds ($why)"
    [ "$rc" = 3 ] && fired=$((fired + 1))
    seconds=$((seconds + s))
  done
}
minutes() { awk -v s="$1" -v n="$runs" 'BEGIN { printf "%.1f", s / n / 60 }'; }

echo "verdict_bench: precision $precision, max time $max_time, threshold $threshold, known effect B/A $effect"
# VPNLAB_VERDICT_ONLY=slowed skips the same-build half (to measure another effect).
if [ "${VPNLAB_VERDICT_ONLY:-}" != slowed ]; then
  series same "$wg"
  echo "  false alarms: $fired of $runs same-build runs (target <= 1); $(minutes "$seconds") min per verdict"
fi
series slowed "$slow"
echo "  detections: $fired of $runs slowed-build runs (target >= $((runs * 9 / 10))); $(minutes "$seconds") min per verdict"
rm -rf "$out"
