#!/usr/bin/env bash
# Builds libsgx535 with cargo and installs what `cargo cinstall` would (cargo-c's layout and
# names), because Debian's packaged cargo-c is too old to read this workspace's version-4
# Cargo.lock. With a current cargo-c, `cargo cinstall -p sgx-capi --prefix=P --libdir=L` gives
# the same files:
#   L/libsgx535.so.MAJOR.MINOR.PATCH, symlinks L/libsgx535.so.MAJOR and L/libsgx535.so
#   L/libsgx535.a
#   P/include/sgx535.h            (Cargo.toml: header subdirectory = false)
#   P/include/sgx535_pipe.h       (Gallium's numbers, for callers without Mesa's headers)
#   L/pkgconfig/sgx535.pc         (Libs.private: what rustc says the static library needs)
#
# usage: capi/install.sh --prefix P [--libdir L] [--includedir I] [--destdir D]
#                        [--release | --debug]
set -euo pipefail

usage() {
    # The comment block at the top of this file.
    awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"
    exit "${1:-2}"
}

prefix="" libdir="" includedir="" destdir="" profile=release
while [ $# -gt 0 ]; do
    case "$1" in
        --prefix) prefix="${2:?--prefix needs a value}"; shift 2 ;;
        --prefix=*) prefix="${1#*=}"; shift ;;
        --libdir) libdir="${2:?--libdir needs a value}"; shift 2 ;;
        --libdir=*) libdir="${1#*=}"; shift ;;
        --includedir) includedir="${2:?--includedir needs a value}"; shift 2 ;;
        --includedir=*) includedir="${1#*=}"; shift ;;
        --destdir) destdir="${2:?--destdir needs a value}"; shift 2 ;;
        --destdir=*) destdir="${1#*=}"; shift ;;
        --release) profile=release; shift ;;
        --debug) profile=debug; shift ;;
        -h | --help) usage 0 ;;
        *) echo "install.sh: unknown argument '$1'" >&2; usage ;;
    esac
done
[ -n "$prefix" ] || { echo "install.sh: --prefix is required" >&2; usage; }
# pkg-config and the loader need absolute paths (cargo-c makes them absolute as well).
case "$prefix" in /*) ;; *) prefix="$(pwd)/$prefix" ;; esac
libdir="${libdir:-$prefix/lib}"
includedir="${includedir:-$prefix/include}"
case "$libdir" in /*) ;; *) libdir="$prefix/$libdir" ;; esac
case "$includedir" in /*) ;; *) includedir="$prefix/$includedir" ;; esac

cd "$(dirname "$0")/.."
root="$(pwd)"

# One build gives the .so, the .a and rustc's list of the static library's native needs
# (cargo replays the note when the build is fresh).
cargo_profile=()
[ "$profile" = release ] && cargo_profile=(--release)
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
if ! cargo rustc "${cargo_profile[@]}" -p sgx-capi --lib -- --print native-static-libs \
    >"$log" 2>&1; then
    cat "$log" >&2
    exit 1
fi
static_libs="$(sed -n 's/^note: native-static-libs: //p' "$log" | tail -n 1)"
if [ -z "$static_libs" ]; then
    echo "install.sh: rustc printed no native-static-libs line" >&2
    exit 1
fi

target_dir="$(cargo metadata --format-version 1 --no-deps |
    sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')"
out="${target_dir:-$root/target}/$profile"
version="$(cargo pkgid -p sgx-capi | sed 's/.*[#@]//')"
major="${version%%.*}"
soname="$(readelf -d "$out/libsgx535.so" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')"
if [ "$soname" != "libsgx535.so.$major" ]; then
    echo "install.sh: SONAME '$soname' is not libsgx535.so.$major (capi/build.rs)" >&2
    exit 1
fi

d_lib="$destdir$libdir"
d_inc="$destdir$includedir"
d_pc="$destdir$libdir/pkgconfig"
install -d "$d_lib" "$d_inc" "$d_pc"
install -m 0755 "$out/libsgx535.so" "$d_lib/libsgx535.so.$version"
ln -sf "libsgx535.so.$version" "$d_lib/libsgx535.so.$major"
ln -sf "libsgx535.so.$version" "$d_lib/libsgx535.so"
install -m 0644 "$out/libsgx535.a" "$d_lib/libsgx535.a"
install -m 0644 capi/include/sgx535.h "$d_inc/sgx535.h"
install -m 0644 capi/include/sgx535_pipe.h "$d_inc/sgx535_pipe.h"

description="$(sed -n 's/^description = "\(.*\)"$/\1/p' capi/Cargo.toml | tail -n 1)"
# Paths relative to ${prefix} where they lie under it, so a DESTDIR staging tree relocates.
rel() { case "$1" in "$prefix"/*) echo "\${prefix}${1#"$prefix"}" ;; *) echo "$1" ;; esac; }
cat >"$d_pc/sgx535.pc" <<EOF
prefix=$prefix
exec_prefix=\${prefix}
libdir=$(rel "$libdir" | sed 's/^${prefix}/${exec_prefix}/')
includedir=$(rel "$includedir")

Name: sgx535
Description: $description
Version: $version
Libs: -L\${libdir} -lsgx535
Libs.private: $static_libs
Cflags: -I\${includedir}
EOF

echo "installed libsgx535 $version ($profile):"
ls -l "$d_lib"/libsgx535* "$d_inc"/sgx535*.h "$d_pc/sgx535.pc" | sed 's/^/  /'
echo "pkg-config: PKG_CONFIG_PATH=$libdir/pkgconfig pkg-config --cflags --libs sgx535"
