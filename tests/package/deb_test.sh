#!/usr/bin/env bash
# The .deb as a user gets it: installed with dpkg, used from outside the source tree (/),
# then removed, leaving nothing. Skips (77) without root, or when a vpnlab package is
# already installed (it is never replaced or removed by a test).
#   tests/package/deb_test.sh PACKAGE_DIR
# calls: dpkg dpkg-deb dpkg-query man awk mktemp stat mv cmp sed
set -euo pipefail
pkg_dir="$1"
fail() { echo "deb_test: FAILED: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || { echo "deb_test: skipped: needs root (dpkg -i)"; exit 77; }
if dpkg-query -W -f='${Status}' vpnlab 2>/dev/null | grep -q "install ok installed"; then
  echo "deb_test: skipped: a vpnlab package is installed already; not touching it"; exit 77
fi
# shellcheck disable=SC2012  # the newest by time; the names are vpnlab_VERSION_amd64.deb
deb=$(ls -t "$pkg_dir"/vpnlab_*_amd64.deb 2>/dev/null | head -1)
[ -n "$deb" ] || fail "no vpnlab_*_amd64.deb in $pkg_dir (the package.build test makes it)"
out=$(mktemp -d /tmp/vpnlab-deb-test.XXXXXX)
installed=0
# Purge removes /var/cache/vpnlab: the cache this machine built (products, guest images) is
# moved aside for the whole test and put back after it, whatever happens.
cache=/var/cache/vpnlab kept_cache=/var/cache/vpnlab.deb-test-kept
[ ! -e "$kept_cache" ] || fail "$kept_cache exists (an earlier deb_test was killed): move it back to $cache first"
finish() {
  if [ "$installed" = 1 ]; then dpkg --purge vpnlab >/dev/null 2>&1 || true; fi
  if [ -e "$kept_cache" ]; then rm -rf "$cache"; mv "$kept_cache" "$cache"; fi
  rm -rf "$out"
}
trap finish EXIT

# Aside before anything is installed: a failure from here on purges the package, and its
# purge removes /var/cache/vpnlab (a failed check once took the products' cache with it).
[ ! -e "$cache" ] || mv "$cache" "$kept_cache"
echo "deb_test: vpnlab $(dpkg-deb -f "$deb" Version), $(stat -c %s "$deb") bytes"
echo "deb_test: Depends: $(dpkg-deb -f "$deb" Depends)"
dpkg -i "$deb" >/dev/null || fail "dpkg -i $deb"
installed=1
cd /
[ "$(command -v vpnlab)" = /usr/bin/vpnlab ] || fail "vpnlab is not /usr/bin/vpnlab on PATH"
# One version everywhere: the package's is the binary's (0.2.0~dev.COUNT.gHASH) and the man page's.
deb_version=$(dpkg-deb -f "$deb" Version)
[ "$(vpnlab --version | head -1)" = "vpnlab $deb_version" ] || fail "vpnlab --version says '$(vpnlab --version | head -1)', the package $deb_version"
echo "$deb_version" | grep -qE '^[0-9]+\.[0-9]+\.[0-9]+(~dev\.[0-9]+(\.shallow)?\.g[0-9a-f]{7}(\.dirty)?)?$' || fail "version '$deb_version' is not PROJECT_VERSION~dev.COUNT.gHASH"
# A build sorts below the release it leads to, and after the build before it.
base=${deb_version%%~*}
dpkg --compare-versions "$deb_version" lt "$base" || fail "$deb_version does not sort below the release $base"
if [ ! -x /usr/libexec/vpnlab/vpnlab-agent ] || [ ! -x /usr/libexec/vpnlab/vpnlab-vmhost ]; then fail "helpers not in /usr/libexec/vpnlab"; fi
[ -f /usr/share/bash-completion/completions/vpnlab ] || fail "no bash completion"
[ -f /usr/share/man/man1/vpnlab.1.gz ] || fail "no man page"
if command -v man >/dev/null; then
  MANPAGER="cat" man vpnlab 2>/dev/null | grep -q "benchmark VPN implementations" || fail "man vpnlab does not render"
  MANWIDTH=200 MANPAGER="cat" man vpnlab 2>/dev/null | grep -qF "vpnlab $deb_version" || fail "man vpnlab does not carry version $deb_version"
fi
# Completion offers verbs and product names, from the installed binary.
complete_out=$(bash -c 'source /usr/share/bash-completion/completions/vpnlab
  COMP_WORDS=(vpnlab ru); COMP_CWORD=1; _vpnlab; echo "${COMPREPLY[@]}"
  COMP_WORDS=(vpnlab run --product base); COMP_CWORD=3; _vpnlab; echo "${COMPREPLY[@]}"')
echo "$complete_out" | grep -qx "run" || fail "completion of 'ru' gave: $complete_out"
echo "$complete_out" | grep -q "baseline baseline-nooffload" || fail "completion of '--product base' gave: $complete_out"
# The shipped products are found beside the binary, not in a source tree.
vpnlab products --json > "$out/products.json"
grep -q '"products_path": "/usr/share/vpnlab/products' "$out/products.json" || fail "products not looked up in /usr/share/vpnlab/products: $(head -5 "$out/products.json")"
vpnlab validate /usr/share/vpnlab/topologies/quick.toml || fail "vpnlab validate of the installed quick topology"
# The shipped suites, and every topology they name (relative to the suite file), installed.
for suite in seeds quick; do
  file=/usr/share/vpnlab/suites/$suite.toml
  [ -f "$file" ] || fail "no $file"
  while read -r topo; do
    [ -f "/usr/share/vpnlab/suites/$topo" ] || fail "$file names $topo, which is not installed"
  done < <(sed -n 's/^topology = "\(.*\)"/\1/p' "$file")
done
# The data contract as installed is what the binary prints.
for name in summary.json environment.json run rows.jsonl; do
  cmp -s <(vpnlab schema "$name") "/usr/share/vpnlab/schemas/$name.schema.json" || fail "/usr/share/vpnlab/schemas/$name.schema.json is not 'vpnlab schema $name'"
done
# A real run of the installed topology, from /, with valid rows, into a history of the
# test's own (not the machine's): the package's libsqlite3 is used.
VPNLAB_HISTORY="$out/history.sqlite" vpnlab run /usr/share/vpnlab/topologies/quick.toml --product baseline --samples 2 --duration 2s \
  --out "$out" -q > "$out/run.txt" || fail "vpnlab run exited $? ($(tail -3 "$out/run.txt"))"
VPNLAB_HISTORY="$out/history.sqlite" vpnlab history | grep -q "1 run(s)" || fail "the run is not in the history $out/history.sqlite"
csv=$(ls "$out"/*/results.csv)
valid=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "valid") col = i; next } $col == "1" || $col == "true" { n++ } END { print n + 0 }' "$csv")
[ "$valid" = 2 ] || fail "expected 2 valid rows in $csv, got $valid"
mkdir -p "$cache/images/deb-test" && echo x > "$cache/images/deb-test/marker"
dpkg -r vpnlab >/dev/null || fail "dpkg -r vpnlab"
[ -f "$cache/images/deb-test/marker" ] || fail "dpkg -r removed $cache: only purge may"
dpkg --purge vpnlab >/dev/null || fail "dpkg --purge vpnlab"
installed=0
[ ! -e "$cache" ] || fail "$cache is still there after dpkg --purge"
for p in /usr/bin/vpnlab /usr/libexec/vpnlab /usr/share/vpnlab /usr/share/man/man1/vpnlab.1.gz /usr/share/bash-completion/completions/vpnlab; do
  [ ! -e "$p" ] || fail "$p is still there after dpkg --purge"
done
echo "deb_test: installed, ran 2 valid samples from /, removed cleanly"
