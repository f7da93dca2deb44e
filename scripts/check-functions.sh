#!/usr/bin/env bash
# No function in lab/ longer than VPNLAB_FUNCTION_LINES (80) lines, from its first line to
# its closing brace as universal-ctags finds them: a function that does one phase fits on a
# screen and a half. A longer one is reported as
# `lab/run/environment.cpp:119: describe_environment is 86 lines (at most 80): split it by phase`.
#   scripts/check-functions.sh [ROOT]      check ROOT (default: this checkout)
#   scripts/check-functions.sh --longest N also list the N longest
#   VPNLAB_FUNCTION_PLANT=LINES            check as if lab/ also held a function of LINES lines
#                                          (shows the check can fail without touching a source)
set -euo pipefail
limit="${VPNLAB_FUNCTION_LINES:-80}"
longest=0
if [[ "${1:-}" == "--longest" ]]; then longest="$2"; shift 2; fi
root="${1:-$(cd "$(dirname "$0")/.." && pwd)}"
cd "$root"
if ! ctags --version 2>/dev/null | grep -q "Universal Ctags"; then
  echo "check-functions: no universal-ctags: run scripts/install-deps.sh --tests" >&2
  exit 2
fi

files=(lab)
if [[ -n "${VPNLAB_FUNCTION_PLANT:-}" ]]; then
  [[ "$VPNLAB_FUNCTION_PLANT" =~ ^[1-9][0-9]*$ ]] || { echo "check-functions: VPNLAB_FUNCTION_PLANT is a number of lines" >&2; exit 2; }
  plant=$(mktemp -d "${TMPDIR:-/tmp}/vpnlab-functions.XXXXXX")
  trap 'rm -rf -- "$plant"' EXIT
  {
    echo "int planted() {"
    for ((i = 2; i < VPNLAB_FUNCTION_PLANT; i++)); do echo "  (void)0;"; done
    echo "}"
  } >"$plant/planted.cpp"
  files+=("$plant/planted.cpp")
fi

# One line per function: LINES PATH FIRST NAME. --excmd=number keeps the source out of the
# output, so a tab in a line cannot shift the fields.
table=$(ctags -R --languages=C++ --kinds-C++=f --fields=+ne --excmd=number -f - "${files[@]}" |
  awk -F'\t' '{
    end = 0
    for (i = 4; i <= NF; i++) if ($i ~ /^end:/) end = substr($i, 5)
    first = $3; sub(/;".*/, "", first)
    path = $2; sub(/.*\/planted\.cpp$/, "lab/planted.cpp", path)
    if (end > 0) print end - first + 1, path, first, $1
  }' | sort -k1,1nr -k2,2 -k3,3n)

if ((longest > 0)); then head -n "$longest" <<<"$table"; fi
over=$(awk -v limit="$limit" '$1 > limit' <<<"$table")
if [[ -n "$over" ]]; then
  awk -v limit="$limit" '{ printf "%s:%s: %s is %d lines (at most %d): split it by phase\n", $2, $3, $4, $1, limit }' <<<"$over" >&2
  exit 1
fi
echo "functions: $(wc -l <<<"$table") in lab/, none over $limit lines (longest: $(head -n1 <<<"$table" | awk '{ print $4 " in " $2 ", " $1 }'))"
