#!/usr/bin/env bash
# The data contract holds: every JSON document vpnlab writes validates against the JSON
# Schema it ships (schemas/, draft 2020-12, Debian's python3-jsonschema as the validator).
# Made for real here: a short run (--json, --rows-jsonl; fixed and adaptive sampling) in
# namespaces, its summary.json and environment.json, doctor --json, plan, products, schema,
# compare and diff of the golden runs, history list/series/check/export of a scratch
# history, the scorecard of a suite made of the golden runs; and the golden files of
# tests/data/json. Needs root (the run, doctor).
#   tests/package/schema_test.sh VPNLAB SOURCE_DIR
# calls: python3
set -euo pipefail
[ "$(id -u)" = 0 ] || { echo "schema_test: skipped: needs root (a real run, doctor's probes)"; exit 77; }
vpnlab="$1" src="$2"
schemas="$src/schemas"
validate() { /usr/bin/python3 "$src/tests/scripts/validate_json.py" "$schemas" "$@"; }
fail() { echo "schema_test: FAILED: $*" >&2; exit 1; }
tmp=$(mktemp -d /tmp/vpnlab-schema-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
export VPNLAB_HISTORY="$tmp/history.sqlite"
# Every step's output is a file validated below; a command that fails fails the test.
json() {  # FILE COMMAND...: stdout to FILE; the exit status is the command's
  local out="$1"; shift
  "$@" > "$tmp/$out" 2> "$tmp/$out.err" || { local rc=$?; cat "$tmp/$out.err" >&2; return $rc; }
}

validate --check

# The validator can fail: a document with a key no schema has is refused.
echo '{"schema": 1, "names": [], "extra": true}' > "$tmp/bad.json"
if validate schema "$tmp/bad.json" > "$tmp/bad.out"; then fail "a document with an unknown key validated"; fi
grep -q "'extra' was unexpected" "$tmp/bad.out" || fail "the refusal does not name the key: $(cat "$tmp/bad.out")"

# Without root or a run: the contract's own listings, plans, products.
json names.json "$vpnlab" schema --json
json columns.json "$vpnlab" schema results.csv --json
validate schema "$tmp/names.json" "$tmp/columns.json"
json products.json "$vpnlab" products --json
validate products "$tmp/products.json"
for topo in quick multihop site-to-site wan latency cilium-grid firewall-cost; do
  [ -f "$src/topologies/$topo.toml" ] || continue
  json "plan-$topo.json" "$vpnlab" plan "$src/topologies/$topo.toml" --json
  validate plan "$tmp/plan-$topo.json"
done
json plan-fixed.json "$vpnlab" plan "$src/topologies/quick.toml" --samples 3 --json
validate plan "$tmp/plan-fixed.json"

# The golden runs (bulk; rr/crr, UDP, chains): their summaries, environments and verdicts.
for golden in run-golden run-golden-kinds; do
  cp -r "$src/tests/data/$golden" "$tmp/$golden"
  "$vpnlab" report "$tmp/$golden" > /dev/null
  validate summary.json "$tmp/$golden/summary.json"
  validate environment.json "$tmp/$golden/environment.json"
done
json compare.json "$vpnlab" compare "$tmp/run-golden" baseline wireguard-go --json
validate compare "$tmp/compare.json"

# A real run, fixed count, its test swept over 1 and 2 streams (rows with sweep_of and
# point, summary.json's sweeps): run --json, every rows.jsonl line, the files it wrote.
sed 's/^streams = 1$/sweep = { streams = [1, 2] }/' "$src/topologies/quick.toml" > "$tmp/swept.toml"
grep -q '^sweep = ' "$tmp/swept.toml" || fail "topologies/quick.toml has no 'streams = 1' line to sweep"
json run.json "$vpnlab" run "$tmp/swept.toml" --product baseline --product wireguard-go --samples 2 --duration 1s \
  --out "$tmp/runs" --json --rows-jsonl "$tmp/rows.jsonl"
run_dir=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["run_dir"])' "$tmp/run.json")
validate run "$tmp/run.json"
validate rows.jsonl "$tmp/rows.jsonl"
validate summary.json "$run_dir/summary.json"
grep -q '"sweeps"' "$run_dir/summary.json" || fail "the swept run's summary.json has no sweeps"
validate environment.json "$run_dir/environment.json"
# A variant sweep (rows with rule_packets, environment.json's variants and lab_points): the
# shipped file's bulk test alone (its rr test adds time, not rows of another shape).
/usr/bin/python3 -c 'import sys; t = open(sys.argv[1]).read(); print(t[:t.find("[[bench.test]]\nname = \"rr\"")])' \
  "$src/topologies/firewall-cost.toml" > "$tmp/variant.toml"
grep -q '^sweep = { variant = ' "$tmp/variant.toml" || fail "topologies/firewall-cost.toml has no variant sweep"
! grep -q 'kind = "rr"' "$tmp/variant.toml" || fail "the rr test of topologies/firewall-cost.toml was not left out"
json run-variant.json "$vpnlab" run "$tmp/variant.toml" --product baseline --samples 1 --duration 1s \
  --out "$tmp/runs" --json --rows-jsonl "$tmp/rows-variant.jsonl"
variant_dir=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["run_dir"])' "$tmp/run-variant.json")
validate rows.jsonl "$tmp/rows-variant.jsonl"
validate environment.json "$variant_dir/environment.json"
grep -q '"rule_packets":[1-9]' "$tmp/rows-variant.jsonl" || fail "the variant run's rows count no rule packet"
grep -q '"variants"' "$variant_dir/environment.json" || fail "the variant run's environment.json has no variants"
# Adaptive: the sampling object filled in (run --json and environment.json).
json run-adaptive.json "$vpnlab" run "$src/topologies/quick.toml" --product baseline --product wireguard-go --precision 50% \
  --min-rounds 2 --max-time 1m --duration 1s --out "$tmp/runs" --json
validate run "$tmp/run-adaptive.json"
grep -q '"stopped"' "$tmp/run-adaptive.json" || fail "the adaptive run's JSON has no sampling outcome"
adaptive_dir=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["run_dir"])' "$tmp/run-adaptive.json")
validate environment.json "$adaptive_dir/environment.json"

# diff of two runs of this machine, of two topologies (--force: their differences are listed
# in provenance; exit 1 or 3 may come, the document is what counts).
rc=0
"$vpnlab" diff "$run_dir" "$adaptive_dir" --force --json > "$tmp/diff.json" 2> "$tmp/diff.err" || rc=$?
case "$rc" in 0 | 1 | 3) ;; *) cat "$tmp/diff.err" >&2; fail "diff exited $rc" ;; esac
validate diff "$tmp/diff.json"

# The history both runs went into: its list, a series, a check, an export.
json history.json "$vpnlab" history --json
json series.json "$vpnlab" history --product wireguard-go --metric ratio --json
"$vpnlab" history check --product wireguard-go --json > "$tmp/check.json" || [ $? -eq 4 ] || fail "history check"
validate history "$tmp/history.json" "$tmp/series.json" "$tmp/check.json"
"$vpnlab" history export --jsonl --out "$tmp/export.jsonl" 2> /dev/null
validate history-export "$tmp/export.jsonl"

# doctor: its keys, probed for real (network features in a scratch namespace).
json doctor.json "$vpnlab" doctor --json
validate doctor "$tmp/doctor.json"

# validate and cleanup (--dry-run: it removes nothing, other labs may run beside this one).
json validate.json "$vpnlab" validate "$src/topologies/bridge3.toml" --json
json cleanup.json "$vpnlab" cleanup --dry-run --json
validate validate "$tmp/validate.json"
validate cleanup "$tmp/cleanup.json"
# image list: the cache as it is (read only; empty on a machine without guest images).
json image.json "$vpnlab" image list --json
validate image "$tmp/image.json"

# A scorecard: the golden runs as a finished suite's two scenarios (suites/quick.toml's names),
# so 'suite --resume' measures nothing and writes scorecard.json from their rows.
mkdir -p "$tmp/suite/runs/bulk" "$tmp/suite/runs/rr-crr"
bulk_id=$(sed -n '2s/,.*//p' "$src/tests/data/run-golden/results.csv")
kinds_id=$(sed -n '2s/,.*//p' "$src/tests/data/run-golden-kinds/results.csv")
cp -r "$src/tests/data/run-golden" "$tmp/suite/runs/bulk/$bulk_id"
cp -r "$src/tests/data/run-golden-kinds" "$tmp/suite/runs/rr-crr/$kinds_id"
cat > "$tmp/suite/progress.json" <<JSON
{"schema": 1, "suite": "quick", "file": "suites/quick.toml", "scenarios": [
 {"name": "bulk", "state": "done", "run": "runs/bulk/$bulk_id", "error": "", "budget_s": 120, "wall_s": 60, "exit_code": 0},
 {"name": "rr-crr", "state": "done", "run": "runs/rr-crr/$kinds_id", "error": "", "budget_s": 120, "wall_s": 60, "exit_code": 0}]}
JSON
"$vpnlab" suite "$src/suites/quick.toml" --resume "$tmp/suite" --no-history > "$tmp/suite.out" 2>&1 || { cat "$tmp/suite.out" >&2; fail "suite --resume of a finished suite"; }
validate scorecard.json "$tmp/suite/scorecard.json"
grep -q "\"metric\": \"tps\"" "$tmp/suite/scorecard.json" || fail "the scorecard of the golden runs has no rr/crr cell"
"$vpnlab" suite diff "$tmp/suite" "$tmp/suite" --json > "$tmp/suite-diff.json" || fail "suite diff of a scorecard with itself"
validate suite-diff "$tmp/suite-diff.json"

# The golden files the unit tests pin, each against its schema.
validate plan "$src/tests/data/json/plan-quick.json"
validate validate "$src/tests/data/json/validate-quick.json"
validate cleanup "$src/tests/data/json/cleanup.json"
validate image "$src/tests/data/json/image.json"
validate products "$src/tests/data/json/products.json"
validate diff "$src/tests/data/json/diff.json"
validate schema "$src/tests/data/json/schema-results-csv.json"
validate compare "$src/tests/data/json/compare.json"
validate run "$src/tests/data/json/run.json"
validate history "$src/tests/data/json/history-runs.json" "$src/tests/data/json/history-series.json" "$src/tests/data/json/history-check.json"
echo "schema_test: ok"
