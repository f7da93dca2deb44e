#!/usr/bin/env bash
# Usage errors exit 2 in the words of the program that refuses them, and ci-gate.sh passes
# a TERM on to vpnlab and waits for it (issue 29). No root: a stand-in plays vpnlab for the
# signal, the real binary answers the usage cases.
#   tests/scripts/usage_test.sh VPNLAB_BINARY SOURCE_ROOT
# calls: mktemp sleep kill cat grep
set -uo pipefail
vpnlab="$1" root="$2"
gate="$root/scripts/ci-gate.sh"
dir=$(mktemp -d /tmp/vpnlab-usage-test.XXXXXX)
trap 'rm -rf "$dir"' EXIT
failed=0
expect() {  # expect CODE TEXT -- COMMAND...: exit CODE and TEXT on stderr
  local code="$1" text="$2"; shift 3
  "$@" > "$dir/out" 2> "$dir/err"
  local rc=$?
  if [ "$rc" != "$code" ] || ! grep -qF -- "$text" "$dir/err"; then
    echo "usage_test: FAILED: $* exited $rc (expected $code) with: $(cat "$dir/err")" >&2
    failed=1
  else
    echo "usage_test: ok: $* -> $code: $text"
  fi
}
expect 2 "ci-gate: error: --product needs a value" -- bash "$gate" --product
expect 2 "ci-gate: error: --threshold-cpu needs a value" -- bash "$gate" --product x --base y --pr z --threshold-cpu
expect 2 "ci-gate: error: --samples 3 is below 5: the gate takes 5 rounds before its first look; give --samples 5 or more" \
  -- bash "$gate" --product x --base y --pr z --samples 3
expect 2 "ci-gate: error: unknown argument '--min-rounds'" -- bash "$gate" --min-rounds 3
expect 2 "--max-time belongs to adaptive sampling: add --precision P" -- "$vpnlab" plan "$root/topologies/quick.toml" --max-time 5m
expect 2 "--min-rounds belongs to adaptive sampling: add --precision P" -- "$vpnlab" run "$root/topologies/quick.toml" --min-rounds 3
expect 1 "this is a mesh-scale file ([scale]), not a topology" -- "$vpnlab" validate "$root/topologies/mesh-scale.toml"

# TERM to ci-gate while "vpnlab" measures: passed on, waited for, exit 130.
cat > "$dir/vpnlab" <<'STAND_IN'
#!/usr/bin/env bash
trap 'sleep 0.3; echo torn-down > "$(dirname "$0")/teardown"; exit 130' TERM
echo started > "$(dirname "$0")/started"
while :; do sleep 0.05; done
STAND_IN
chmod 755 "$dir/vpnlab"
bash "$gate" --product x --base /bin/true --pr /bin/true --vpnlab "$dir/vpnlab" --out "$dir/out-dir" > "$dir/gate.out" 2> "$dir/gate.err" &
gate_pid=$!
for _ in $(seq 100); do [ -e "$dir/started" ] && break; sleep 0.05; done
kill -TERM "$gate_pid"
wait "$gate_pid"
rc=$?
if [ "$rc" = 130 ] && [ "$(cat "$dir/teardown" 2>/dev/null)" = torn-down ] && grep -q "ci-gate: interrupted" "$dir/gate.err"; then
  echo "usage_test: ok: TERM to ci-gate reached vpnlab, which tore down before the gate exited 130"
else
  echo "usage_test: FAILED: TERM to ci-gate: exit $rc, teardown '$(cat "$dir/teardown" 2>/dev/null)', stderr: $(cat "$dir/gate.err")" >&2
  failed=1
fi
[ "$failed" = 0 ] && echo "usage_test: passed"
exit "$failed"
