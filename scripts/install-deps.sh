#!/usr/bin/env bash
# Installs what vpnlab needs on Debian 12 (build + runtime), only what is missing: every
# Debian package, so that building a registry product later needs no apt. It builds no
# registry product (`vpnlab products build NAME|all` does, and `run` builds one it is asked
# for): the first comparison needs none of them.
#   scripts/install-deps.sh           what vpnlab needs to build and run
#   scripts/install-deps.sh --tests   also the tools only the tests use (actionlint, pinned)
# Runs as root; no sudo on the target machines.
set -euo pipefail
tests=0
case "${1:-}" in
  "") ;;
  --tests) tests=1 ;;
  *) echo "usage: scripts/install-deps.sh [--tests]" >&2; exit 2 ;;
esac
build_pkgs=(cmake g++ make pkg-config libnl-3-dev libnl-route-3-dev libnl-idiag-3-dev
  libtomlplusplus-dev libspdlog-dev libboost-dev libboost-filesystem-dev
  nlohmann-json3-dev libsodium-dev libgtest-dev libvirt-dev libarchive-dev
  # The history of runs (lab/history): an embedded SQLite file, no server.
  libsqlite3-dev
  # Variants' firewall rules (lab/kernel/nftables): libnftables inside each node's namespace.
  libnftables-dev
  # The man page (help2man, from the CLI's own help) and the .deb (CPack: dpkg-deb,
  # dpkg-shlibdeps for Depends:, file to find the ELF files); man-db renders the page.
  help2man dpkg-dev file man-db
  # Registry builds' own build needs (vpnlab products build): EasyTier's build script
  # compiles its protocol with protoc. ccache: a second build of the C++ tree reuses objects.
  ccache
  protobuf-compiler)
# The VPN products and their tools. wireguard-tools must come without recommends (it would
# pull a kernel image); libstrongswan-standard-plugins brings GCM and X25519 (openssl).
runtime_pkgs=(iperf3 sockperf iproute2 iputils-ping openssl wireguard-go wireguard-tools nebula openvpn tinc fastd quicktun yggdrasil
  strongswan-charon strongswan-swanctl libcharon-extra-plugins libstrongswan-standard-plugins
  # The VM backend: QEMU, libvirt's QEMU driver (embedded in vpnlab-vmhost: no libvirtd, no
  # libvirt network on the host), busybox for the guest initramfs, kmod's depmod, xz,
  # mmdebstrap for the reproducible guest root (images/debian12-rootfs.toml).
  qemu-system-x86 libvirt-daemon-driver-qemu libvirt-daemon busybox-static kmod xz-utils mmdebstrap
  # The hosts backend: the controller's ssh, and sshd for the tests' emulated hosts (each a
  # namespace running its own sshd; the package's service must never start on this host).
  openssh-client openssh-server)
# The tests' browser: a report is looked at as a reader sees it (headless, a screenshot);
# Debian's package checker for the .deb; a JSON Schema validator for every --json output.
# The shellcheck package: actionlint (scripts/test-tools.sh) checks the workflows' run: steps with it.
# clang-14 with its runtime (libFuzzer, ASan, UBSan): the fuzz tier (scripts/fuzz-tier.sh).
# universal-ctags: where each function in lab/ starts and ends (scripts/check-functions.sh).
# clang-format-14: every C++ file as the house's .clang-format writes it (scripts/check-format.sh).
test_pkgs=(chromium-headless-shell lintian python3-jsonschema shellcheck clang-14 libclang-rt-14-dev universal-ctags
  clang-format-14)
missing=()
for p in "${build_pkgs[@]}" "${runtime_pkgs[@]}" "${test_pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  # A package's service (openssh-server's sshd) must not start on this host: invoke-rc.d
  # asks policy-rc.d, and exit 101 means "not allowed". An existing policy is kept.
  policy=/usr/sbin/policy-rc.d
  own_policy=0
  if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\n# vpnlab install-deps: no service starts during this install\nexit 101\n' > "$policy"
    chmod 755 "$policy"
    own_policy=1
  fi
  trap '[ "$own_policy" = 1 ] && rm -f "$policy"' EXIT
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
  # Installed for the tests and the lab only: their services must not start at the next
  # boot either (sshd; yggdrasil's would join the host to a mesh).
  for unit in openssh-server:ssh.service yggdrasil:yggdrasil.service; do
    if [[ " ${missing[*]} " == *" ${unit%%:*} "* ]] && command -v systemctl >/dev/null; then
      systemctl disable --quiet "${unit#*:}" 2>/dev/null || true
    fi
  done
else
  echo "install-deps: everything present"
fi

# libvirt's privileged QEMU driver refuses to start unless the user it would run QEMU as
# exists (it looks it up before reading any configuration; vpnlab's config then runs QEMU as
# root). Debian creates it in libvirt-daemon-system, which would also start libvirtd and its
# default network on the host: only the system user and group are made here, the same way.
if ! getent passwd libvirt-qemu >/dev/null; then
  getent group libvirt-qemu >/dev/null || groupadd --system libvirt-qemu
  useradd --system --gid libvirt-qemu --no-create-home --home-dir /var/lib/libvirt --shell /usr/sbin/nologin libvirt-qemu
  echo "install-deps: created system user libvirt-qemu (libvirt's QEMU driver needs it to exist)"
fi

# Tools only the tests use that Debian lacks (actionlint), from the Go module proxy: pinned,
# cached (scripts/test-tools.sh).
if [ "$tests" = 1 ]; then
  bash "$(dirname "$0")/test-tools.sh" build
fi
