#!/usr/bin/env bash
# One door for files and untrusted text (docs/trust.md): outside lab/base, the calls that let a
# link, a FIFO, another user's file, a deep JSON value, a JSON number out of an int's range
# or a raw terminal escape slip in are
# banned (stdio printing bypasses the terminal door under std::cout and std::cerr). Each kind has its
# pattern; a file may keep a kind only through a waiver in scripts/file-door-waivers.txt
# ("PATH KIND reason"), and a waiver nothing needs any more is itself an error (curl's
# checksrc shape), so the list shrinks and never hides a new call.
#   scripts/check-file-door.sh [ROOT]      check ROOT (default: this checkout)
#   VPNLAB_DOOR_PLANT=FILE:TEXT            check as if FILE also had the line TEXT (shows the
#                                          check can fail without touching a source file)
#   VPNLAB_DOOR_EXTRA_WAIVER="PATH KIND R" check as if the waivers also had this line
set -euo pipefail
VPNLAB_DOOR_PLANT="${VPNLAB_DOOR_PLANT:-}"
VPNLAB_DOOR_EXTRA_WAIVER="${VPNLAB_DOOR_EXTRA_WAIVER:-}"
root="${1:-$(cd "$(dirname "$0")/.." && pwd)}"
cd "$root"
waivers=scripts/file-door-waivers.txt

# Kind -> the pattern (grep -E) of its calls, and what to use instead.
declare -A pattern=(
  [raw-open]='(^|[^_a-zA-Z0-9.>:])(::)?(open|openat|creat)[[:space:]]*\('
  [fstream]='\bstd::(i|o)?fstream\b'
  [fopen]='\bfopen[[:space:]]*\('
  [mkstemp]='\bmkstemps?[[:space:]]*\('
  [remove-all]='\bremove_all[[:space:]]*\('
  [path-chmod]='(^|[^_a-zA-Z0-9.>:f])chmod[[:space:]]*\('
  [json-parse]='json::parse[[:space:]]*\('
  [stdio-print]='(^|[^_a-zA-Z0-9.>:])(std::)?(printf|vprintf|puts|fputs|fwrite|fprintf|putchar)[[:space:]]*\('
  [json-int]='\.get<[[:space:]]*(std::)?(int|long|short|unsigned|signed|u?int(8|16|32|64)_t|size_t|mode_t|pid_t|uid_t)\b[^>]*>|\.value\([^,()]+,[[:space:]]*(-?[0-9]+[uUlL]*|(std::)?u?int(8|16|32|64)_t[{(][^)}]*[})])\)'
)
declare -A instead=(
  [raw-open]='read_input_file / OutDir / write_file / open_trusted_dir (lab/base)'
  [fstream]='read_input_file (bounded, regular files only) or OutDir::write'
  [fopen]='read_input_file or OutDir::write'
  [mkstemp]='PrivateDir (a 0700 mkdtemp directory) in lab/base/private_dir.h'
  [remove-all]='remove_tree / remove_tree_at (never follows a link)'
  [path-chmod]='fchmod on the descriptor you wrote through (OutDir, write_file)'
  [json-parse]='parse_json_bounded (lab/base/json_depth.h): depth refused before a value is built'
  [stdio-print]='std::cout / std::cerr (the terminal door, lab/base/terminal_door.h, sits under them) or spdlog'
  [json-int]='whole_number / whole_number_or / whole_number_at (lab/base/json_number.h): a number out of range is refused, never undefined behaviour'
)

declare -A waived=() used=()
while read -r path kind reason; do
  [[ -z "$path" || "$path" == \#* ]] && continue
  if [[ -z "${pattern[$kind]:-}" ]]; then echo "$waivers: '$path $kind': no such kind (${!pattern[*]})"; exit 1; fi
  if [[ -z "$reason" ]]; then echo "$waivers: '$path $kind': a waiver says why"; exit 1; fi
  waived["$path $kind"]=1
done < <(cat "$waivers"; if [[ -n "$VPNLAB_DOOR_EXTRA_WAIVER" ]]; then echo "$VPNLAB_DOOR_EXTRA_WAIVER"; fi)

mapfile -d '' files < <(find lab -type f \( -name '*.h' -o -name '*.cpp' \) -not -path 'lab/base/*' -print0 | sort -z)
bad=0
for kind in "${!pattern[@]}"; do
  # FILE:LINE:TEXT of every call of this kind, comment lines left out; a planted line joins them.
  hits=$( { grep -nHE "${pattern[$kind]}" "${files[@]}" || true
            if [[ -n "$VPNLAB_DOOR_PLANT" ]]; then echo "${VPNLAB_DOOR_PLANT%%:*}:planted:${VPNLAB_DOOR_PLANT#*:}" | grep -E "${pattern[$kind]}" || true; fi
          } | grep -vE '^[^:]+:[^:]+:[[:space:]]*//' || true)
  [[ -z "$hits" ]] && continue
  unwaived=""
  while IFS= read -r hit; do
    file=${hit%%:*}
    if [[ -n "${waived["$file $kind"]:-}" ]]; then used["$file $kind"]=1; continue; fi
    rest=${hit#*:}
    unwaived+="$file:${rest%%:*}: $kind outside lab/base: ${rest#*:}"$'\n'
  done <<< "$hits"
  if [[ -n "$unwaived" ]]; then
    printf '%s' "$unwaived" | cut -c1-200
    echo "  use ${instead[$kind]}, or waive it in $waivers with the reason"
    bad=1
  fi
done

for w in "${!waived[@]}"; do
  if [[ -z "${used[$w]:-}" ]]; then echo "$waivers: '$w' waives nothing any more: remove the line"; bad=1; fi
done
if (( bad )); then
  echo "hint: lab/base is the one door for files and untrusted text (docs/trust.md)" >&2
  exit 1
fi
echo "file door: no raw file call outside lab/base but the ${#waived[@]} waived"
