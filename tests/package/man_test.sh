#!/usr/bin/env bash
# The man page as `man` renders it (from the build tree): the sections a reader looks for,
# every verb's subsection, and the ± of the help text intact (help2man outside a UTF-8
# locale writes "??").
#   tests/package/man_test.sh BUILD_DIR
# calls: man grep sed wc
set -euo pipefail
page="$1/vpnlab.1.gz"
fail() { echo "man_test: FAILED: $*" >&2; exit 1; }
[ -f "$page" ] || fail "no $page (help2man builds it with the binary)"
text=$(MANPAGER=cat MANWIDTH=100 man -l "$page" 2>/dev/null)
for heading in NAME SYNOPSIS DESCRIPTION EXAMPLES "EXIT STATUS" ENVIRONMENT FILES "SEE ALSO"; do
  grep -qx "$heading" <<< "$text" || fail "no section '$heading'"
done
# Every verb the binary has (its completion lists them), not a list typed here.
verbs=$("$1/lab/vpnlab" _complete 1 "" | grep -v '^-')
[ "$(wc -l <<< "$verbs")" -ge 10 ] || fail "the binary lists too few verbs: $verbs"
for verb in $verbs; do
  grep -qx "   ${verb^}:" <<< "$text" || fail "no subsection for '$verb'"
done
for code in $("$1/lab/vpnlab" --exit-codes-h2m | sed -n 's/^\.B \([0-9]*\)$/\1/p'); do
  grep -qx "       $code     .*\|       $code .*" <<< "$text" || fail "EXIT STATUS does not give $code"
done
for name in VPNLAB_PRODUCTS VPNLAB_HISTORY VPNLAB_STATE_DIR VPNLAB_CACHE; do
  grep -q "^       $name" <<< "$text" || fail "ENVIRONMENT does not name $name"
done
grep -q "±P" <<< "$text" || fail "the help's ± is not in the page"
! grep -q '??' <<< "$text" || fail "'??' in the page: $(grep -m1 '??' <<< "$text")"
echo "man_test: ok ($(wc -l <<< "$text") lines)"
