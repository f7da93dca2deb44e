#!/usr/bin/env bash
# Text is formatted by fmt (fmt::format, spdlog), not by snprintf into a fixed buffer: a
# buffer too small truncates a figure silently, and a format's types are checked only by a
# warning. The layers the helpers link (lab/base, lab/kernel, lab/model, lab/agent and
# lab/backends: the guest agent's image and a remote host need not have libfmt) keep
# snprintf; everywhere else a call is reported as
# `lab/results/summary.cpp:12: snprintf into a fixed buffer: use fmt::format`.
#   scripts/check-text-format.sh [ROOT]      check ROOT (default: this checkout)
#   VPNLAB_TEXT_PLANT=FILE:TEXT              check as if FILE also had the line TEXT (shows
#                                            the check can fail without touching a source)
# calls: grep find sort
set -euo pipefail
root="${1:-$(cd "$(dirname "$0")/.." && pwd)}"
cd "$root"
pattern='(^|[^_a-zA-Z0-9])(std::)?v?snprintf[[:space:]]*\('
mapfile -d '' files < <(find lab -type f \( -name '*.h' -o -name '*.cpp' \) \
  -not -path 'lab/base/*' -not -path 'lab/kernel/*' -not -path 'lab/model/*' -not -path 'lab/agent/*' \
  -not -path 'lab/backends/*' -print0 | sort -z)
hits=$( { grep -nHE "$pattern" "${files[@]}" || true
          if [[ -n "${VPNLAB_TEXT_PLANT:-}" ]]; then
            echo "${VPNLAB_TEXT_PLANT%%:*}:planted:${VPNLAB_TEXT_PLANT#*:}" | grep -E "$pattern" || true
          fi
        } | grep -vE '^[^:]+:[^:]+:[[:space:]]*//' || true)
if [[ -n "$hits" ]]; then
  while IFS= read -r hit; do
    file=${hit%%:*} rest=${hit#*:}
    echo "$file:${rest%%:*}: snprintf into a fixed buffer: use fmt::format"
  done <<< "$hits"
  echo "hint: fmt checks the format against its arguments and never truncates (the helpers' layers are exempt)" >&2
  exit 1
fi
echo "text format: no snprintf outside the helpers' layers (${#files[@]} files)"
