#!/bin/sh
# Installs the gauntlet release this copy of the repository belongs to, for the
# machine it runs on, into a folder outside the checkout under review:
#
#   ci/install.sh [--dir DIR]     install DIR/bin/gauntlet (default: the runner's temp folder)
#   ci/install.sh --cache-key     print a cache key for DIR that changes with the release
#
# The archive is downloaded from the release named by ci/release/URL and
# ci/release/VERSION and checked against the SHA-256 that ci/release/SHA256SUMS
# recorded when the release was cut; an archive that does not match is refused
# and nothing is installed. gauntlet is built from source (cargo, hosted
# providers only) only when the release has no archive for this machine: none is
# recorded (a commit between releases) or the server answers 404.
#
# GAUNTLET_TARGET overrides the platform (a Rust target triple).
set -eu

here="$(cd "$(dirname "$0")" && pwd -P)"
root="$(dirname "$here")"
release="$here/release"

fail() {
    code="$1"
    shift
    if [ "${GITHUB_ACTIONS:-}" = true ]; then
        echo "::error::gauntlet install: $*" >&2
    else
        echo "gauntlet install: error: $*" >&2
    fi
    exit "$code"
}
say() { echo "gauntlet install: $*" >&2; }

dir=""
mode=install
while [ $# -gt 0 ]; do
    case "$1" in
        --dir)
            [ $# -ge 2 ] || fail 2 "--dir needs a folder"
            dir="$2"
            shift 2
            ;;
        --dir=*)
            dir="${1#--dir=}"
            shift
            ;;
        --cache-key)
            mode=key
            shift
            ;;
        -h | --help)
            sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'
            exit 0
            ;;
        *) fail 2 "unknown argument \`$1\` (usage: install.sh [--dir DIR] [--cache-key])" ;;
    esac
done

for file in VERSION URL SHA256SUMS; do
    [ -f "$release/$file" ] || fail 2 "$release/$file is missing: run this script from a gauntlet checkout"
done
# The fallback builds these sources: the action's own copy, at the release it pins.
[ -f "$root/crates/cli/Cargo.toml" ] || fail 2 "$root/crates/cli is missing: run this script from a whole gauntlet checkout"
version="$(tr -d ' \r\n' <"$release/VERSION")"
url="$(tr -d ' \r\n' <"$release/URL")"
# Only digits and dots: the version goes into a file name, a URL and a cache key.
printf '%s\n' "$version" | grep -Eqx '[0-9]+\.[0-9]+\.[0-9]+' ||
    fail 2 "$release/VERSION holds \`$version\`, not a version such as 0.1.0"

if command -v sha256sum >/dev/null 2>&1; then
    sha256() { sha256sum "$1" | cut -d ' ' -f 1; }
elif command -v shasum >/dev/null 2>&1; then
    sha256() { shasum -a 256 "$1" | cut -d ' ' -f 1; }
else
    fail 2 "neither sha256sum nor shasum is installed, so the download cannot be verified"
fi

# The platform, as the Rust target the release archive is named after.
target="${GAUNTLET_TARGET:-}"
if [ -z "$target" ]; then
    os="$(uname -s)"
    arch="$(uname -m)"
    case "$arch" in
        x86_64 | amd64) arch=x86_64 ;;
        aarch64 | arm64) arch=aarch64 ;;
    esac
    case "$os" in
        Linux) target="$arch-unknown-linux-musl" ;;
        Darwin) target="$arch-apple-darwin" ;;
        MINGW* | MSYS* | CYGWIN* | Windows_NT) target="$arch-pc-windows-msvc" ;;
        *) target="$arch-$os" ;;
    esac
fi
exe=""
case "$target" in *windows*) exe=.exe ;; esac
asset="gauntlet-v$version-$target.tar.gz"
expected="$(awk -v a="$asset" '$2 == a || $2 == "*" a { print $1; exit }' "$release/SHA256SUMS")"

# What the installed folder holds, as a key: the archive's checksum, or for a
# build from source the version and a digest of the sources it was built from.
if [ -n "$expected" ]; then
    key="gauntlet-$version-$target-$(printf %.16s "$expected")"
else
    sources="$(mktemp)"
    (cd "$root" && find Cargo.toml Cargo.lock crates rules -type f 2>/dev/null | LC_ALL=C sort | while IFS= read -r f; do
        printf '%s %s\n' "$(sha256 "$f")" "$f"
    done) >"$sources"
    key="gauntlet-$version-$target-source-$(sha256 "$sources" | cut -c 1-16)"
    rm -f "$sources"
fi
if [ "$mode" = key ]; then
    echo "$key"
    exit 0
fi

if [ -z "$dir" ]; then
    dir="${GAUNTLET_INSTALL_DIR:-${RUNNER_TEMP:-${AGENT_TEMPDIRECTORY:-${TMPDIR:-/tmp}}}/gauntlet}"
fi
case "$dir" in /*) ;; *) dir="$PWD/$dir" ;; esac
mkdir -p "$dir"
dir="$(cd "$dir" && pwd -P)"
# The checkout belongs to the change under review: a binary installed there could
# be one the change committed.
for checkout in "${GITHUB_WORKSPACE:-}" "${CI_PROJECT_DIR:-}" "${BUILD_SOURCESDIRECTORY:-}"; do
    [ -n "$checkout" ] && [ -d "$checkout" ] || continue
    checkout="$(cd "$checkout" && pwd -P)"
    case "$dir/" in
        "$checkout"/*) fail 2 "refusing to install into $dir, inside the checkout under review ($checkout): pass --dir with a folder outside it, such as the runner's temp folder" ;;
    esac
done

bin="$dir/bin/gauntlet$exe"
if [ -x "$bin" ] && [ "$(cat "$dir/.gauntlet-install" 2>/dev/null)" = "$key" ]; then
    say "gauntlet $version ($target) is already installed in $dir"
    exit 0
fi

work="$(mktemp -d "$dir/.install.XXXXXX")"
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM

# Moves the binary into place in one rename, so no half-written gauntlet is ever run.
place() {
    mkdir -p "$dir/bin"
    chmod +x "$1"
    mv -f "$1" "$bin"
    echo "$key" >"$work/marker"
    mv -f "$work/marker" "$dir/.gauntlet-install"
    say "installed $("$bin" --version 2>/dev/null || echo "gauntlet $version") in $dir/bin"
}

from_source() {
    command -v cargo >/dev/null 2>&1 || fail 1 "no release archive of gauntlet $version for $target ($1), and cargo is not installed to build it from source: install Rust (https://rustup.rs) or use a platform the release ships"
    say "no release archive of gauntlet $version for $target ($1): building it from source, hosted providers only (several minutes)"
    # From a folder of our own, so no cargo configuration of the checkout applies.
    cd "$work"
    cargo install --locked --no-default-features --path "$root/crates/cli" --root "$work/root"
    [ -f "$work/root/bin/gauntlet$exe" ] || fail 1 "cargo install finished without building $work/root/bin/gauntlet$exe"
    place "$work/root/bin/gauntlet$exe"
}

if [ -z "$expected" ]; then
    from_source "ci/release/SHA256SUMS records none"
    exit 0
fi

command -v curl >/dev/null 2>&1 || fail 2 "curl is needed to download the release; install it"
link="$url/releases/download/v$version/$asset"
status="$(curl -sSL --retry 3 --connect-timeout 20 -o "$work/$asset" -w '%{http_code}' "$link")" ||
    fail 1 "could not download $link (curl exit $?); check the runner's network access and try again"
case "$status" in
    200) ;;
    404)
        from_source "$link answered 404"
        exit 0
        ;;
    *) fail 1 "downloading $link failed with HTTP $status; try again later" ;;
esac

actual="$(sha256 "$work/$asset")"
if [ "$actual" != "$expected" ]; then
    fail 1 "refusing to install $asset: its SHA-256 is $actual but the release recorded $expected (ci/release/SHA256SUMS). The download was altered or damaged; nothing was installed"
fi
mkdir "$work/unpacked"
tar -xzf "$work/$asset" -C "$work/unpacked" || fail 1 "$asset passed its checksum but could not be unpacked"
[ -f "$work/unpacked/gauntlet$exe" ] || fail 1 "$asset holds no gauntlet$exe at its top level"
place "$work/unpacked/gauntlet$exe"
