#!/usr/bin/env bash
# Every program vpnlab or its tests call must be installed by scripts/install-deps.sh: a
# test that skips for a missing program, or a guest (which runs this host's root) that
# lacks one, would otherwise pass on a developer's machine and fail on a fresh one.
# The list is read from the sources, not kept by hand: argv literals in C++ (argv = {"x",
# run_tool({"x", run_in_guest(..., {"x", VPNLAB_REQUIRE_PROGRAM("x"), the ip-command
# baseline of bench/), and every program a product folder names, unless the product is not
# in Debian (packages = []) and not built by `vpnlab products build` either (a [[source]]
# with default = true; its binaries are in the versioned cache), and what test scripts
# declare on a "# calls: a b" line. Exit 1
# names each missing program and where it is called.
# VPNLAB_CHECK_EXTRA="a b" adds names (the test that shows this check can fail uses it).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:$PATH"

declare -A where=()
add() { [ -n "$1" ] && [ -z "${where[$1]:-}" ] && where[$1]="$2"; return 0; }

while IFS=: read -r file line name; do
  add "$name" "$file:$line"
done < <(grep -rnoP 'argv = \{"\K[^"]+|run_tool\(\{"\K[^"]+|run_in_guest\([^{]*\{"\K[^"]+|VPNLAB_REQUIRE_PROGRAM\("\K[^"]+|(up|down)\.push_back\(\{"\K[^"]+' \
           lab tests bench | sed -E 's/^([^:]+):([0-9]+):/\1:\2:/')

for spec in products/*/product.toml; do
  # Not in Debian and no registry build of ours (default = true): bring your own binary.
  grep -qE '^packages = \[\]' "$spec" && ! grep -qE '^default = true' "$spec" && continue
  # binaries = [...] and the first word of every argv (daemon, run, version, counters).
  while IFS= read -r name; do add "$name" "$spec"; done < <(
    grep -oP '^binaries = \[\K[^\]]*' "$spec" | grep -oP '"[^"]+"' | tr -d '"' || true
    grep -oP '^(daemon|run|version|argv) = \["\K[^"{]+' "$spec" || true)
done
# Shell scripts the tests run declare what they call on a line "# calls: a b c".
while IFS=: read -r file line names; do
  for name in $names; do add "$name" "$file:$line"; done
done < <(grep -rnoP '^# calls: \K.*' tests scripts CMakeLists.txt)
for name in ${VPNLAB_CHECK_EXTRA:-}; do add "$name" "VPNLAB_CHECK_EXTRA"; done

missing=0
# A product's registry build (vpnlab products build) is installed in the versioned cache.
built=("${VPNLAB_CACHE:-/var/cache/vpnlab}"/products/*/*/bin)
while IFS= read -r name; do
  if [[ "$name" == /* ]]; then [ -x "$name" ] && continue
  else command -v "$name" >/dev/null 2>&1 && continue
    for dir in "${built[@]}"; do [ -x "$dir/$name" ] && continue 2; done
  fi
  echo "check-programs: missing: '$name' (called in ${where[$name]}): add its package to scripts/install-deps.sh (or its [[source]] build)"
  missing=$((missing + 1))
done < <(printf '%s\n' "${!where[@]}" | sort)
if [ "$missing" -gt 0 ]; then
  echo "check-programs: $missing of ${#where[@]} programs are missing"
  exit 1
fi
echo "check-programs: all ${#where[@]} programs vpnlab and its tests call are installed"
