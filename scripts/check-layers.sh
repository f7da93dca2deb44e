#!/usr/bin/env bash
# The layers of vpnlab and which of them each may include; fails on any include that points
# up or sideways (a planted `#include "lab/cli/main.h"` in lab/model/ is reported as
# `lab/model/x.cpp:3: model includes cli (lab/cli/main.h)`).
#   scripts/check-layers.sh [ROOT]          check ROOT (default: this checkout)
#   scripts/check-layers.sh --counts [ROOT] also print how many includes go from layer to layer
#   VPNLAB_LAYERS_PLANT=FILE:HEADER         check as if FILE also included HEADER (shows the
#                                           check can fail without touching a source file)
set -euo pipefail
VPNLAB_LAYERS_PLANT="${VPNLAB_LAYERS_PLANT:-}"

counts=0
if [[ "${1:-}" == "--counts" ]]; then counts=1; shift; fi
root="${1:-$(cd "$(dirname "$0")/.." && pwd)}"
cd "$root"

# Folder -> layer. Lowest first; the order is the architecture (README, "How it works").
layer_of() {
  case "$1" in
    lab/base/*) echo base ;;
    lab/model/*) echo model ;;
    lab/record/*) echo record ;;
    lab/runtime/*) echo runtime ;;
    lab/kernel/*) echo kernel ;;
    lab/generators/*) echo generators ;;
    lab/agent/*) echo agent ;;
    lab/backends/netns/*) echo netns_backend ;;
    lab/backends/vm/*) echo vm ;;
    lab/backends/hosts/*) echo hosts ;;
    lab/run/*) echo run ;;
    lab/results/*) echo results ;;
    lab/history/*) echo history ;;
    lab/app/*) echo app ;;
    lab/cli/*) echo cli ;;
    *) echo none ;;
  esac
}

# Layer -> the layers it may include (itself included).
declare -A allowed=(
  [base]="base"
  [model]="base model"
  [record]="base model record"
  [runtime]="base model runtime"
  [kernel]="base runtime kernel"
  [generators]="base runtime generators"
  [agent]="base runtime agent"
  [netns_backend]="base model kernel runtime netns_backend"
  [vm]="base model kernel runtime agent vm"
  [hosts]="base model kernel runtime netns_backend agent hosts"
  [run]="base model record runtime run"
  [results]="base model record results"
  [history]="base model record results history"
  [app]="base model record kernel runtime agent netns_backend vm hosts run results history app"
  [cli]="base model record kernel runtime agent netns_backend vm hosts run results history app cli"
)

declare -A pairs=()
bad=0
while IFS= read -r -d '' file; do
  from=$(layer_of "$file")
  if [[ "$from" == none ]]; then
    echo "$file: not in a layer folder (lab/base, lab/model, lab/record, lab/runtime, lab/kernel, lab/generators, lab/agent, lab/backends/netns, lab/backends/vm, lab/backends/hosts, lab/run, lab/results, lab/history, lab/app, lab/cli)"
    bad=1
    continue
  fi
  while IFS=: read -r line target; do
    to=$(layer_of "$target")
    if [[ "$to" == none ]]; then
      echo "$file:$line: includes \"$target\", which is in no layer folder"
      bad=1
      continue
    fi
    pairs["$from -> $to"]=$(( ${pairs["$from -> $to"]:-0} + 1 ))
    if [[ " ${allowed[$from]} " != *" $to "* ]]; then
      echo "$file:$line: $from includes $to ($target)"
      bad=1
    fi
  done < <(grep -noE '^[[:space:]]*#[[:space:]]*include[[:space:]]+"[^"]+"' "$file" | sed -E 's/^([0-9]+):.*"([^"]+)"/\1:\2/'
           if [[ "${VPNLAB_LAYERS_PLANT%%:*}" == "$file" ]]; then echo "planted:${VPNLAB_LAYERS_PLANT#*:}"; fi)
done < <(find lab -type f \( -name '*.h' -o -name '*.cpp' \) -print0 | sort -z)

if (( counts )); then
  for p in "${!pairs[@]}"; do printf '%5d  %s\n' "${pairs[$p]}" "$p"; done | sort -k2
fi
if (( bad )); then
  echo "hint: a layer may include only the layers below it (scripts/check-layers.sh lists them); move the code down or pass what it needs in" >&2
  exit 1
fi
echo "layers: every include points down"
