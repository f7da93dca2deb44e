#!/usr/bin/env bash
# Installs what vpnlab needs on Debian 12 (build + runtime), only what is missing.
# Runs as root; no sudo on the target machines.
set -euo pipefail
build_pkgs=(cmake g++ make pkg-config libnl-3-dev libnl-route-3-dev libnl-idiag-3-dev
  libtomlplusplus-dev libspdlog-dev libboost-dev libboost-filesystem-dev
  nlohmann-json3-dev libsodium-dev libgtest-dev)
# The VPN products and their tools. wireguard-tools must come without recommends (it would
# pull a kernel image); libstrongswan-standard-plugins brings GCM and X25519 (openssl).
runtime_pkgs=(iperf3 iproute2 openssl wireguard-go wireguard-tools nebula openvpn tinc fastd quicktun
  strongswan-charon strongswan-swanctl libcharon-extra-plugins libstrongswan-standard-plugins)
missing=()
for p in "${build_pkgs[@]}" "${runtime_pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "install-deps: everything present"
fi
