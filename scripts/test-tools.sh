#!/usr/bin/env bash
# Tools only the tests use that Debian does not package, each from its language registry at
# a pinned version with the registry's own client, into the versioned cache
# ${VPNLAB_CACHE:-/var/cache/vpnlab}/tools/NAME/VERSION/bin (a second install builds nothing).
#   scripts/test-tools.sh build        build what is missing (install-deps.sh calls this)
#   scripts/test-tools.sh path NAME    print the tool's path; exit 1 when it is not built
# A build that fails says so and leaves the rest installed: the test that needs the tool
# skips, naming why (its "failed" file).
set -uo pipefail
cache="${VPNLAB_CACHE:-/var/cache/vpnlab}/tools"
export PATH="$PATH:/usr/local/go/bin"
export GOTOOLCHAIN=local GOFLAGS="${GOFLAGS:--buildvcs=false}"
# NAME VERSION GO-PACKAGE: actionlint checks the GitHub workflows (and, through shellcheck,
# the shell in their run: steps).
tools=("actionlint 1.7.12 github.com/rhysd/actionlint/cmd/actionlint")

build_one() {
  local name="$1" version="$2" package="$3" dir="$cache/$1/$2"
  if [ -x "$dir/bin/$name" ]; then echo "test-tools: $name $version: cached"; return 0; fi
  command -v go > /dev/null || { mkdir -p "$dir"; echo "no 'go' on this machine" > "$dir/failed"; echo "test-tools: $name $version: not built: no 'go'"; return 1; }
  mkdir -p "$dir/bin"
  local started=$SECONDS log
  if log=$(GOBIN="$dir/bin" go install "$package@v$version" 2>&1); then
    rm -f "$dir/failed"
    echo "test-tools: $name $version: built in $((SECONDS - started)) s (go install $package@v$version)"
  else
    tail -5 <<< "$log" > "$dir/failed"
    echo "test-tools: $name $version: not built (go install $package@v$version): $(tail -1 <<< "$log")"
    return 1
  fi
}

case "${1:-}" in
  build)
    for t in "${tools[@]}"; do
      read -r name version package <<< "$t"
      build_one "$name" "$version" "$package" || true
    done ;;
  path)
    for t in "${tools[@]}"; do
      read -r name version _ <<< "$t"
      [ "$name" = "${2:-}" ] || continue
      bin="$cache/$name/$version/bin/$name"
      [ -x "$bin" ] || { echo "$name $version is not built: $(cat "$cache/$name/$version/failed" 2>/dev/null || echo 'scripts/install-deps.sh builds it')" >&2; exit 1; }
      echo "$bin"
      exit 0
    done
    echo "test-tools: no tool named '${2:-}'" >&2; exit 2 ;;
  *) echo "usage: scripts/test-tools.sh build | path NAME" >&2; exit 2 ;;
esac
