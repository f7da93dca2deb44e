#!/usr/bin/env bash
# Does `vpnlab plan` say how long a run takes? For every shipped topology this machine's
# backend can run (netns; vm and hosts are said and skipped), the plan's estimate beside
# the run's wall time, measured from the command's start to its exit, and where the time
# went by phase (environment.json's timings). Prints figures, asserts nothing. Root.
#   bench/plan_bench.sh [SAMPLES [DURATION [TOPOLOGY...]]]   (default: 2 samples of 2 s, all)
# The target (issue 66): every estimate within 15 % of the wall time.
# calls: date awk jq
set -euo pipefail
cd "$(dirname "$0")/.."
samples="${1:-2}" duration="${2:-2s}"
shift $(($# > 2 ? 2 : $#))
vpnlab=./build/lab/vpnlab
out=$(mktemp -d /tmp/vpnlab-plan-bench.XXXXXX)
topologies=("$@")
[ ${#topologies[@]} -gt 0 ] || topologies=(topologies/*.toml)

printf '%-22s %8s %8s %7s  %s\n' topology plan_s wall_s error "the run's phases (s): bring-up+lab, warm-up, measuring, sample overhead, run wall"
worst=0
for t in "${topologies[@]}"; do
  name=$(basename "$t" .toml)
  plan=$("$vpnlab" plan "$t" --samples "$samples" --duration "$duration" --json 2> "$out/$name.plan.err") || {
    printf '%-22s %s\n' "$name" "not planned: $(head -1 "$out/$name.plan.err")"; continue; }
  backend=$(jq -r .backend <<< "$plan")
  if [ "$backend" != netns ]; then printf '%-22s %s\n' "$name" "skipped: backend $backend"; continue; fi
  estimate=$(jq .bench.estimated_s <<< "$plan")
  t0=$(date +%s.%N)
  rc=0
  "$vpnlab" run "$t" --samples "$samples" --duration "$duration" --out "$out/$name" -q > "$out/$name.log" 2>&1 || rc=$?
  t1=$(date +%s.%N)
  env=("$out/$name"/*/environment.json)
  phases=$(jq -r '.timings.phases as $p | [(($p["bring-up"]//0)+($p["topology build"]//0)+($p["teardown"]//0)+($p["product stop"]//0)+($p["kernel release wait"]//0)+($p["audit"]//0)),
                  ($p["warm-up"]//0), ($p["measuring"]//0), ($p["sample overhead"]//0), (.timings.wall_s)] | map(.*10|round/10) | join(" ")' "${env[0]}" 2>/dev/null || echo "-")
  wall=$(awk -v a0="$t0" -v a1="$t1" 'BEGIN { printf "%.1f", a1 - a0 }')
  err=$(awk -v e="$estimate" -v w="$wall" 'BEGIN { d = 100 * (e - w) / w; printf "%.0f", d < 0 ? -d : d }')
  printf '%-22s %8.0f %8.0f %6s%%  %s%s\n' "$name" "$estimate" "$wall" \
    "$(awk -v e="$estimate" -v w="$wall" 'BEGIN { printf "%+.0f", 100 * (e - w) / w }')" "$phases" "$([ "$rc" = 0 ] || echo "  (exit $rc)")"
  [ "$err" -gt "$worst" ] && worst=$err
done
echo "worst error: ${worst} % (target: within 15 %); runs kept in $out"
