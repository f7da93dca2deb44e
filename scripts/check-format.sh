#!/usr/bin/env bash
# Every C++ file in the tree is as clang-format writes it with the house's .clang-format
# (Google's style, 120 columns): a reader never meets two layouts, and a review never
# argues about one. A file that is not is named with its first differing line:
# `lab/run/runner.cpp:42:121: error: code should be clang-formatted [-Wclang-format-violations]`.
# Fix: clang-format-14 -i FILE (or every file: scripts/check-format.sh --fix).
#   scripts/check-format.sh [--fix] [ROOT]   check (or rewrite) ROOT (default: this checkout)
#   VPNLAB_FORMAT_PLANT=1                    check as if lab/ held a line of 130 columns
#                                            (shows the check can fail without touching a source)
set -euo pipefail
fix=0
if [[ "${1:-}" == "--fix" ]]; then fix=1; shift; fi
root="${1:-$(cd "$(dirname "$0")/.." && pwd)}"
cd "$root"
format=$(command -v clang-format-14 || true)
[[ -n "$format" ]] || { echo "check-format: no clang-format-14: run scripts/install-deps.sh --tests" >&2; exit 2; }
[[ -f .clang-format ]] || { echo "check-format: no .clang-format in $root" >&2; exit 2; }

mapfile -t files < <(find bench fuzz lab tests \( -name '*.cpp' -o -name '*.h' \) -type f | sort)
if [[ "$fix" == 1 ]]; then
  "$format" -i "${files[@]}"
  echo "format: ${#files[@]} files rewritten as clang-format writes them"
  exit 0
fi
plant=""
if [[ -n "${VPNLAB_FORMAT_PLANT:-}" ]]; then
  # The planted file sits beside a copy of the style, as a file under lab/ would.
  plant=$(mktemp -d "${TMPDIR:-/tmp}/vpnlab-format.XXXXXX")
  trap 'rm -rf -- "$plant"' EXIT
  cp .clang-format "$plant/.clang-format"
  printf 'int planted() { return %s1; }\n' "$(printf '0 + %.0s' {1..38})" >"$plant/planted.cpp"
  files+=("$plant/planted.cpp")
fi
if ! out=$("$format" --dry-run --Werror "${files[@]}" 2>&1); then
  [[ -z "$plant" ]] || out=${out//"$plant"\//lab/}
  grep 'error:' <<<"$out" >&2 || echo "$out" >&2
  echo "check-format: $(grep -c 'error:' <<<"$out") place(s) not as clang-format writes them: run scripts/check-format.sh --fix" >&2
  exit 1
fi
echo "format: ${#files[@]} files as clang-format writes them"
