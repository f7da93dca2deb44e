#!/usr/bin/env bash
# Every shell script vpnlab ships or runs is shellcheck-clean, notes included: the scripts
# under bench/, images/, scripts/ and tests/, .ci/run and the package's maintainer scripts.
# A finding that is meant carries a `# shellcheck disable=SCnnnn  # why` on its line.
#   scripts/check-shell.sh [ROOT]      check ROOT (default: this checkout)
#   VPNLAB_SHELL_PLANT=1               check as if a script held an unquoted expansion
#                                      (shows the check can fail without touching a script)
set -euo pipefail
root="${1:-$(cd "$(dirname "$0")/.." && pwd)}"
cd "$root"
command -v shellcheck >/dev/null || { echo "check-shell: no shellcheck: run scripts/install-deps.sh --tests" >&2; exit 2; }

mapfile -t scripts < <(find bench images scripts tests -name '*.sh' -type f | sort)
scripts+=(.ci/run cmake/deb/postrm)
plant=""
if [[ -n "${VPNLAB_SHELL_PLANT:-}" ]]; then
  plant=$(mktemp -d "${TMPDIR:-/tmp}/vpnlab-shell.XXXXXX")
  trap 'rm -rf -- "$plant"' EXIT
  # shellcheck disable=SC2016  # the planted script's own unquoted $1, written as it is
  printf '#!/usr/bin/env bash\nrm -rf $1/planted\n' >"$plant/planted.sh"
  scripts+=("$plant/planted.sh")
fi
if ! out=$(shellcheck -f gcc "${scripts[@]}" 2>&1); then
  [[ -z "$plant" ]] || out=${out//"$plant"\//scripts/}
  echo "$out" >&2
  echo "check-shell: $(grep -c . <<<"$out") finding(s) in ${#scripts[@]} scripts: fix each, or disable it on its line with the reason" >&2
  exit 1
fi
echo "shell: ${#scripts[@]} scripts, shellcheck clean"
