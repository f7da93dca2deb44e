#!/usr/bin/env bash
# scripts/test-tools.sh build against a cache where every tool is already built: each must
# say "cached" under its own name and version and build nothing (a second install builds
# nothing). It broke once when the table's line reached build_one as one word.
set -euo pipefail
script="$1/scripts/test-tools.sh"
cache=$(mktemp -d)
trap 'rm -rf "$cache"' EXIT
while read -r name version; do
  mkdir -p "$cache/tools/$name/$version/bin"
  printf '#!/bin/sh\n' > "$cache/tools/$name/$version/bin/$name"
  chmod +x "$cache/tools/$name/$version/bin/$name"
  expected+=("test-tools: $name $version: cached")
done < <(sed -n 's/^tools=("\([^ ]*\) \([^ ]*\) .*/\1 \2/p' "$script")
[ "${#expected[@]}" -gt 0 ] || { echo "FAIL: no tool read from $script's table" >&2; exit 1; }
out=$(VPNLAB_CACHE="$cache" bash "$script" build 2>&1) || { echo "FAIL: build exited $?:"; echo "$out"; exit 1; } >&2
for line in "${expected[@]}"; do
  grep -qxF "$line" <<< "$out" || { echo "FAIL: expected '$line', got:"; echo "$out"; exit 1; } >&2
done
path=$(VPNLAB_CACHE="$cache" bash "$script" path "$(cut -d" " -f2 <<< "${expected[0]}")")
[ -x "$path" ] || { echo "FAIL: path printed '$path'" >&2; exit 1; }
echo "ok: ${#expected[@]} tool(s) cached, none rebuilt"
