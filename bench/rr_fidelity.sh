#!/usr/bin/env bash
# Does vpnlab's rr generator (vpnlab-crr rr-client, over one TCP connection) measure what
# sockperf ping-pong measures? On a lab of two pinned nodes (topologies/quick.toml's shape,
# no tunnel), the two clients alternate PAIRS times against their own servers, each for
# SECONDS; prints each one's transactions/s and p50/p99 round trip, and the per-pair ratio.
# sockperf was rr's generator until its client's fixed 2 s sleep after connecting (3.7, no
# option shortens it) cost every rr sample 2.35 s. Prints figures, asserts nothing. Root.
#   bench/rr_fidelity.sh [PAIRS [SECONDS]]   (default: 8 pairs of 2 s)
# calls: sockperf jq awk taskset sort
set -euo pipefail
cd "$(dirname "$0")/.."
pairs="${1:-8}" seconds="${2:-2}"
vpnlab=$PWD/build/lab/vpnlab
crr=$PWD/build/lab/vpnlab-crr
work=$(mktemp -d /tmp/vpnlab-rr-fidelity.XXXXXX)
topology="$work/rrfid.toml"
sed -e 's/^name = "quick"/name = "rrfid"/' topologies/quick.toml > "$topology"
servers=()
cleanup() {
  for pid in "${servers[@]}"; do kill "$pid" 2> /dev/null || true; done
  wait 2> /dev/null || true
  "$vpnlab" down "$topology" -q || true
}
trap cleanup EXIT
"$vpnlab" up "$topology" -q
address=$("$vpnlab" exec "$topology" b -- ip -4 -o addr show dev lan | awk '{ sub("/.*", "", $4); print $4 }')
"$vpnlab" exec "$topology" b -- taskset -c 1 sockperf server --tcp -i 0.0.0.0 -p 5301 > /dev/null 2>&1 &
servers+=($!)
"$vpnlab" exec "$topology" b -- taskset -c 1 "$crr" rr-server 5302 14 > /dev/null 2>&1 &
servers+=($!)
"$vpnlab" exec "$topology" b -- sh -c 'until ss -Hltn | grep -q ":5302 "; do sleep 0.1; done; until ss -Hltn | grep -q ":5301 "; do sleep 0.1; done'

printf '%5s %14s %9s %9s %14s %9s %9s %8s\n' pair sockperf_tps p50_ms p99_ms vpnlab_tps p50_ms p99_ms ratio
for i in $(seq 1 "$pairs"); do
  s=$("$vpnlab" exec "$topology" a -- taskset -c 0 sockperf ping-pong --tcp -i "$address" -p 5301 -m 14 -t "$seconds" 2>&1)
  c=$("$vpnlab" exec "$topology" a -- taskset -c 0 "$crr" rr-client "$address" 5302 14 "$seconds")
  # sockperf prints half round trips (usec); its rate is over its measured part.
  read -r s_tps s50 s99 < <(awk '/Valid Duration/ { for (i = 1; i <= NF; i++) { if ($i ~ /^RunTime=/) { sub("RunTime=", "", $i); t = $i }
                                                      if ($i ~ /^ReceivedMessages=/) { sub("ReceivedMessages=", "", $i); n = $i } } }
                                 /percentile 50.000/ { p50 = $NF } /percentile 99.000/ { p99 = $NF }
                                 END { printf "%.0f %.4f %.4f\n", n / t, 2 * p50 / 1000, 2 * p99 / 1000 }' <<< "$s")
  read -r c_tps c50 c99 < <(jq -r '"\(.transactions / .seconds | round) \(.p50_ms) \(.p99_ms)"' <<< "$c")
  printf '%5s %14s %9.4f %9.4f %14s %9.4f %9.4f %8.3f\n' "$i" "$s_tps" "$s50" "$s99" "$c_tps" "$c50" "$c99" \
    "$(awk -v a="$c_tps" -v b="$s_tps" 'BEGIN { print a / b }')" | tee -a "$work/pairs.txt"
done
awk '{ print $8 }' "$work/pairs.txt" | sort -n | awk '{ r[NR] = $1 } END { m = NR % 2 ? r[(NR + 1) / 2] : (r[NR / 2] + r[NR / 2 + 1]) / 2
  printf "median ratio vpnlab-crr / sockperf: %.3f (range %.3f-%.3f, %d pairs)\n", m, r[1], r[NR], NR }'
