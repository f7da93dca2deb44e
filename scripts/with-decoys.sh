#!/usr/bin/env bash
# Runs a command (the test suite) beside two decoys: idle processes named wireguard-go and
# tailscaled, outside any lab, in a session of their own, as a user's own VPN daemons would
# be. The suite must check only what its own labs made and signal only what it started, so
# it passes beside them; the decoys are ended afterwards by their pids, and the command's
# exit status is returned. A decoy that the command ended is a failure too.
#   scripts/with-decoys.sh COMMAND [ARG]...
set -euo pipefail
[ "$#" -gt 0 ] || { echo "usage: scripts/with-decoys.sh COMMAND [ARG]..." >&2; exit 2; }
dir=$(mktemp -d)
pids=()
# shellcheck disable=SC2317  # run by the EXIT trap
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  rm -rf "$dir"
}
trap cleanup EXIT
for name in wireguard-go tailscaled; do
  cp /bin/sleep "$dir/$name"
  setsid "$dir/$name" 86400 </dev/null >/dev/null 2>&1 &
  pids+=("$!")
done
echo "with-decoys: wireguard-go pid ${pids[0]} and tailscaled pid ${pids[1]} run outside any lab"
rc=0
"$@" || rc=$?
for p in "${pids[@]}"; do
  if ! kill -0 "$p" 2>/dev/null; then
    echo "with-decoys: the decoy pid $p was ended during the command: a test signalled a process it did not start" >&2
    rc=1
  fi
done
exit "$rc"
