#!/usr/bin/env bash
# The helpers run where vpnlab's own libraries may not be: the guest agent in a guest
# booted from a minimal image (no libsodium, spdlog or fmt there), the host agent on other
# machines, vpnlab-vmhost and vpnlab-crr beside it. Each may need only the shared libraries
# listed here; a build change that drags in more (a unity batch did: libsodium into the
# guest agent, whose guest then panicked at boot) fails here, naming the library.
#   tests/package/helper_deps_test.sh BIN_DIR
# calls: readelf
set -euo pipefail
bin="$1"
declare -A allowed=(
  [vpnlab-agent]="libboost_filesystem libnl-route-3 libnl-idiag-3 libnl-3 libstdc++ libgcc_s libc libm ld-linux-x86-64"
  [vpnlab-host-agent]="libtomlplusplus libboost_filesystem libsodium libnl-route-3 libnl-idiag-3 libnl-3 libnftables libstdc++ libgcc_s libc libm ld-linux-x86-64"
  [vpnlab-vmhost]="libvirt libstdc++ libgcc_s libc libm ld-linux-x86-64"
  [vpnlab-crr]="libstdc++ libgcc_s libc libm ld-linux-x86-64"
)
bad=0
for helper in "${!allowed[@]}"; do
  [ -x "$bin/$helper" ] || { echo "helper_deps: $bin/$helper: not built" >&2; bad=1; continue; }
  while read -r lib; do
    base="${lib%%.so*}"
    if [[ " ${allowed[$helper]} " != *" $base "* ]]; then
      echo "helper_deps: $helper needs $lib, which is not among what it may need (${allowed[$helper]})" >&2
      bad=1
    fi
  done < <(readelf -d "$bin/$helper" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
done
[ "$bad" = 0 ] && echo "helper_deps: every helper links only what it may"
exit "$bad"
