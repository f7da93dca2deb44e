#!/usr/bin/env bash
# Builds the products that come from a language registry (a [[source]] table in their
# product.toml: go = module paths, or cargo = a crate, at a pinned version) into a
# versioned cache, ${VPNLAB_CACHE:-/var/cache/vpnlab}/products/NAME/VERSION/bin, with the
# registry's own client (`go install MODULE@vVERSION`, `cargo install --locked --version`).
# A build that is there already is skipped (its "built" file says how it was made), so a
# second install builds nothing. A build that fails leaves a "failed" file with the command's
# last lines, names product, version and command here, and the rest still builds: the core
# (vpnlab and the Debian products) never depends on a registry.
#   scripts/build-products.sh [NAME...]   only these products (default: every folder)
# Only this tree's products/ are built, never a user's products directory: building a crate
# runs its build scripts, so what is built is what this repository pins and reviews.
# Reads one value per line in [[source]]: version, go (a string or a one-line array; an entry
# "PACKAGE@vX" has a version of its own: a helper from another module, as Tailscale's
# headscale), cargo, module_version (the go version when it is not "v" + version), rename
# (["built=run-as"]), default, build (another product's build at the same version: built
# there, once) (products/README.md).
set -uo pipefail
cd "$(dirname "$0")/.."
cache="${VPNLAB_CACHE:-/var/cache/vpnlab}/products"
# Found without a login shell: rustup puts cargo in ~/.cargo/bin, Go's tarball in /usr/local/go.
export PATH="$PATH:/usr/local/go/bin:${HOME:-/root}/.cargo/bin"
# The machine's own Go, never a toolchain fetched because a module asks for a newer one.
export GOTOOLCHAIN=local GOFLAGS="${GOFLAGS:--buildvcs=false}"

# Prints "version|kind|what|module_version|renames|build" per [[source]] of a product.toml
# ('|', not a tab: read would merge a run of tabs and shift the empty fields).
sources_of() {
  awk '
    function flush() { if (in_src && version != "" && kind != "") print version "|" kind "|" what "|" modver "|" rename "|" build; version = kind = what = modver = rename = build = "" }
    /^\[\[source\]\]/ { flush(); in_src = 1; next }
    /^\[/ { flush(); in_src = 0; next }
    !in_src { next }
    {
      line = $0; sub(/#.*/, "", line)
      if (match(line, /^[ \t]*version[ \t]*=[ \t]*"[^"]*"/)) { split(line, q, "\""); version = q[2] }
      else if (match(line, /^[ \t]*module_version[ \t]*=[ \t]*"[^"]*"/)) { split(line, q, "\""); modver = q[2] }
      else if (match(line, /^[ \t]*build[ \t]*=[ \t]*"[^"]*"/)) { split(line, q, "\""); build = q[2] }
      else if (match(line, /^[ \t]*cargo[ \t]*=[ \t]*"[^"]*"/)) { split(line, q, "\""); kind = "cargo"; what = q[2] }
      else if (match(line, /^[ \t]*rename[ \t]*=/)) { n = split(line, q, "\""); for (i = 2; i <= n; i += 2) rename = rename (rename == "" ? "" : " ") q[i] }
      else if (match(line, /^[ \t]*go[ \t]*=/)) {
        kind = "go"; what = ""; n = split(line, q, "\"")
        for (i = 2; i <= n; i += 2) what = what (what == "" ? "" : " ") q[i]
      }
    }
    END { flush() }' "$1"
}

# Every value becomes an argument of go or cargo: none may start with '-' (an option) or hold
# more than a module path's characters.
valid_source() {  # version what module_version renames
  [[ "$1" =~ ^[a-z0-9][a-z0-9.-]*$ ]] || return 1
  local w
  for w in $2; do [[ "$w" =~ ^[A-Za-z0-9][A-Za-z0-9._~/-]*(@v[0-9A-Za-z.+-]+)?$ ]] || return 1; done
  [ -z "$3" ] || [[ "$3" =~ ^v[0-9A-Za-z.+-]+$ ]] || return 1
  for w in $4; do [[ "$w" =~ ^[A-Za-z0-9._-]+=[A-Za-z0-9._-]+$ ]] || return 1; done
}

# `go install PACKAGE@VERSION` asks the module proxy for the module's newest version (to
# warn of a deprecation); where that listing is refused (headscale here) the install fails
# although the version itself is served. Then the module is fetched at that version alone
# (`go mod download`, found by trimming the package path) and the package built inside it,
# with the module's own go.mod and go.sum: the same pinned code.
go_build_in_module() {  # bindir package@version
  local bindir=$1 pkg=${2%@*} ver=${2##*@} mod dir
  mod=$pkg
  while [ -n "$mod" ]; do
    if dir=$(go mod download -json "$mod@$ver" 2>/dev/null | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p') && [ -n "$dir" ]; then
      echo "build-products: building $pkg in its module $mod@$ver ($dir)"
      local rel=${pkg#"$mod"}
      rel=${rel#/}
      (cd "$dir" && go build -trimpath -o "$bindir/$(basename "$pkg")" "./$rel")
      return
    fi
    [[ "$mod" == */* ]] || break
    mod=${mod%/*}
  done
  echo "build-products: no module of $pkg at $ver"
  return 1
}

build_one() {  # name version kind what module_version renames
  local name=$1 version=$2 kind=$3 what=$4 modver=$5 renames=$6
  if ! valid_source "$version" "$what" "$modver" "$renames"; then
    echo "build-products: $name: [[source]] version '$version' ($kind '$what') is not a plain version and module path; not built" >&2
    return 1
  fi
  local dir="$cache/$name/$version" start cmd log
  if [ -f "$dir/built" ]; then
    echo "build-products: $name $version: cached ($(head -1 "$dir/built"))"
    return 0
  fi
  rm -rf "$dir" && mkdir -p "$dir/bin"
  log="$dir/build.log"
  start=$(date +%s)
  case "$kind" in
    go)
      command -v go >/dev/null || { echo "no 'go' on this machine" > "$dir/failed"; echo "build-products: $name $version: not built: no 'go'"; return 1; }
      local args=() m
      for m in $what; do
        if [[ "$m" == *@* ]]; then args+=("$m"); else args+=("$m@${modver:-v$version}"); fi
      done
      cmd="go install ${args[*]}"
      local built=0
      for m in "${args[@]}"; do
        GOBIN="$dir/bin" go install "$m" >> "$log" 2>&1 && continue
        grep -q "loading deprecation" "$log" && go_build_in_module "$dir/bin" "$m" >> "$log" 2>&1 && continue
        built=1; break
      done
      [ "$built" -eq 0 ] ;;
    cargo)
      command -v cargo >/dev/null || { echo "no 'cargo' on this machine" > "$dir/failed"; echo "build-products: $name $version: not built: no 'cargo'"; return 1; }
      cmd="cargo install --locked --version $version $what"
      cargo install --locked --quiet --version "$version" --root "$dir" "$what" > "$log" 2>&1 ;;
  esac
  local rc=$? took=$(( $(date +%s) - start ))
  if [ "$rc" -ne 0 ]; then
    # The first lines that say what went wrong (a build script's panic sits above cargo's
    # summary), then the last ones.
    { echo "$cmd failed (exit $rc) after ${took} s:"; grep -m 3 -E 'error|panicked|not found' "$log"; tail -3 "$log"; } > "$dir/failed"
    echo "build-products: $name $version: NOT BUILT: $cmd (exit $rc); what it said:" >&2
    tail -n +2 "$dir/failed" | sed 's/^/  /' >&2
    return 1
  fi
  local pair  # a command named otherwise than the product runs it ("wireguard=wireguard-go")
  for pair in $renames; do mv "$dir/bin/${pair%%=*}" "$dir/bin/${pair#*=}" || return 1; done
  printf '%s in %d s on %s\n' "$cmd" "$took" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" > "$dir/built"
  echo "build-products: $name $version: built in ${took} s ($cmd)"
}

names=("$@")
if [ "${#names[@]}" -eq 0 ]; then
  for spec in products/*/product.toml; do names+=("$(basename "$(dirname "$spec")")"); done
fi
all_start=$(date +%s)
failed=0
for name in "${names[@]}"; do
  spec="products/$name/product.toml"
  [ -f "$spec" ] || { echo "build-products: no $spec" >&2; failed=$((failed + 1)); continue; }
  while IFS='|' read -r version kind what modver renames build; do
    # Another product's build (build = "easytier"): made under its name, once.
    if [ -n "$build" ] && ! [[ "$build" =~ ^[a-z0-9-]+$ ]]; then
      echo "build-products: $name: [[source]] build '$build' is not a product name; not built" >&2; failed=$((failed + 1)); continue
    fi
    build_one "${build:-$name}" "$version" "$kind" "$what" "$modver" "$renames" || failed=$((failed + 1))
  done < <(sources_of "$spec")
done
echo "build-products: done in $(( $(date +%s) - all_start )) s, $failed not built"
# Not built is not fatal: `vpnlab products` shows such a product as "not built: REASON".
exit 0
