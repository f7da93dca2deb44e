#!/usr/bin/env bash
# The .deb passes Debian's own checks: lintian reports no error and no warning (its
# informational tags are printed, not failed on). Also what lintian does not check: the
# changelog's newest entry is the package's version and the copyright file is DEP-5.
#   tests/package/lintian_test.sh PACKAGE_DIR
# calls: lintian dpkg-deb zcat
set -euo pipefail
pkg_dir="$1"
fail() { echo "lintian_test: FAILED: $*" >&2; exit 1; }
# shellcheck disable=SC2012  # the newest by time; the names are vpnlab_VERSION_amd64.deb
deb=$(ls -t "$pkg_dir"/vpnlab_*_amd64.deb 2>/dev/null | head -1)
[ -n "$deb" ] || fail "no vpnlab_*_amd64.deb in $pkg_dir (the package.build test makes it)"
version=$(dpkg-deb -f "$deb" Version)
echo "lintian_test: $deb"
# --fail-on: exit non-zero on an error or a warning; root is told "not recommended" only.
if ! out=$(lintian --fail-on error,warning --info "$deb" 2>&1); then
  echo "$out" >&2
  fail "lintian reports errors or warnings (above)"
fi
grep -v "running with root privileges" <<< "$out" || true
tmp=$(mktemp -d /tmp/vpnlab-lintian-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
dpkg-deb -x "$deb" "$tmp"
head=$(zcat "$tmp/usr/share/doc/vpnlab/changelog.gz" | head -1)
[ "$head" = "vpnlab ($version) unstable; urgency=medium" ] || fail "the changelog's newest entry is '$head', the package $version"
grep -qx "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/" "$tmp/usr/share/doc/vpnlab/copyright" ||
  fail "usr/share/doc/vpnlab/copyright is not DEP-5"
maintainer=$(dpkg-deb -f "$deb" Maintainer)
zcat "$tmp/usr/share/doc/vpnlab/changelog.gz" | grep -qF -- " -- $maintainer  " || fail "the changelog is not signed by the Maintainer ($maintainer)"
echo "lintian_test: ok (vpnlab $version: no error, no warning)"
