#!/usr/bin/env bash
# Builds the C examples against an INSTALLED libsgx535 (found by pkg-config, as a user's build
# would), runs them, and runs abuse, mipgen and emulator under valgrind. Install first:
#   capi/install.sh --prefix /tmp/sgx535 && capi/examples/run.sh /tmp/sgx535
#
# usage: capi/examples/run.sh PREFIX [LIBDIR]      (LIBDIR defaults to PREFIX/lib)
# Built programs and emulator.ppm go to $SGX_EXAMPLES_OUT (default: a new temporary folder).
set -euo pipefail

[ $# -ge 1 ] && [ $# -le 2 ] || { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 2; }
prefix="$1"
libdir="${2:-$prefix/lib}"
here="$(cd "$(dirname "$0")" && pwd)"
out="${SGX_EXAMPLES_OUT:-$(mktemp -d "${TMPDIR:-/tmp}/sgx535-examples.XXXXXX")}"
mkdir -p "$out"

# CI images may lack the tools; install them the ordinary way when missing.
need=()
command -v pkg-config >/dev/null || need+=(pkg-config)
command -v valgrind >/dev/null || need+=(valgrind)
command -v g++ >/dev/null || need+=(g++)
if [ ${#need[@]} -gt 0 ]; then
    echo "== apt-get install ${need[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq "${need[@]}" >/dev/null
fi

export PKG_CONFIG_PATH="$libdir/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
echo "== pkg-config --cflags --libs sgx535: $(pkg-config --cflags --libs sgx535)"
read -r -a pc_flags <<<"$(pkg-config --cflags --libs sgx535)"
# The installed library is in no loader path: the programs carry it as their rpath.
rpath="-Wl,-rpath,$(pkg-config --variable=libdir sgx535)"
cflags=(-std=c11 -Wall -Wextra -Werror -g -I"$here")

# The headers' names: in sgx535.h every type and function is sgx535_*, every macro SGX535_*;
# sgx535_pipe.h defines Gallium's PIPE_* numbers and nothing else. Including them cannot
# clash with the includer's own names (beyond Mesa's, which sgx535_pipe.h stands in for).
incdir="$(pkg-config --variable=includedir sgx535)"
defines() { sed -n 's/^#define \([A-Za-z_][A-Za-z0-9_]*\).*/\1/p' "$1"; }
outside="$(
    defines "$incdir/sgx535.h" | grep -v '^SGX535_'
    sed -n 's/^} \([A-Za-z_][A-Za-z0-9_]*\);/\1/p; s/^[A-Za-z0-9_ ]*[ *]\([a-z_][a-z0-9_]*\)(.*/\1/p' \
        "$incdir/sgx535.h" | grep -v '^sgx535_'
    defines "$incdir/sgx535_pipe.h" | grep -vE '^(PIPE_|SGX535_PIPE_H$)'
    grep -vE '^(#define PIPE_|#ifndef SGX535_PIPE_H|#define SGX535_PIPE_H|#endif|/\*| \*|$)' \
        "$incdir/sgx535_pipe.h"
)" || true
echo "== names in sgx535.h and sgx535_pipe.h"
if [ -n "$outside" ]; then
    echo "the headers declare names outside their namespaces:" $outside >&2
    exit 1
fi
echo "sgx535.h: only sgx535_* and SGX535_*; sgx535_pipe.h: only PIPE_*"

for prog in mipgen emulator abuse; do
    echo "== gcc ${cflags[*]} $prog.c \$(pkg-config --cflags --libs sgx535)"
    gcc "${cflags[@]}" -o "$out/$prog" "$here/$prog.c" "${pc_flags[@]}" "$rpath"
done
gcc "${cflags[@]}" -o "$out/linkcheck" "$here/linkcheck.c" "${pc_flags[@]}" "$rpath" -ldl
echo "== g++ -Wall -Wextra -Werror -pedantic header_check.cpp (the headers as C++)"
g++ -std=c++11 -Wall -Wextra -Werror -pedantic -I"$here" -o "$out/header_check" \
    "$here/header_check.cpp" "${pc_flags[@]}" "$rpath"
# The static library with pkg-config's Libs.private: proves that list is complete.
echo "== gcc mipgen.c against libsgx535.a (\$(pkg-config --static --libs sgx535))"
read -r -a static_flags <<<"$(pkg-config --static --libs sgx535 | sed 's/-lsgx535/-l:libsgx535.a/')"
gcc "${cflags[@]}" -o "$out/mipgen-static" "$here/mipgen.c" \
    $(pkg-config --cflags sgx535) "${static_flags[@]}"
if ldd "$out/mipgen-static" | grep -q libsgx535; then
    echo "mipgen-static still loads libsgx535.so" >&2
    exit 1
fi

resolved="$(ldd "$out/mipgen" | sed -n 's/.*libsgx535.so.0 => \([^ ]*\).*/\1/p')"
echo "== the examples load $resolved"
case "$resolved" in
    "$(pkg-config --variable=libdir sgx535)"/*) ;;
    *) echo "mipgen loads libsgx535 from '$resolved', not from the installed libdir" >&2; exit 1 ;;
esac

# Every leak kind is an error, "still reachable" too: an object the library still holds at
# exit (a screen not destroyed) is caught. Stacks are kept deep enough (debug builds inline
# less) to reach the frames valgrind.supp names; it says what it hides and why.
vg=(valgrind -q --error-exitcode=99 --num-callers=64 --leak-check=full --show-leak-kinds=all
    --errors-for-leak-kinds=all --suppressions="$here/valgrind.supp")
cd "$out"
# One step per line: under `set -e` a failure inside `a && b` would not stop the script.
echo "== mipgen"
./mipgen
echo "== mipgen (static)"
./mipgen-static | tail -n 1
echo "== emulator"
./emulator "$out/emulator.ppm"
abi_list="$(ls "$here"/../abi/sgx535-*.txt | sort -V | tail -n 1)"
echo "== linkcheck $abi_list"
./linkcheck "$abi_list"
echo "== header_check"
./header_check
echo "== abuse"
if ! ./abuse >"$out/abuse.log"; then
    cat "$out/abuse.log"
    exit 1
fi
grep -E '^FAIL|^abuse:' "$out/abuse.log"
vg_run() {
    echo "== valgrind $1"
    "${vg[@]}" "./$@" >/dev/null
    echo "valgrind: $1 clean"
}
vg_run abuse
vg_run mipgen
vg_run emulator "$out/emulator.ppm"

if command -v meson >/dev/null; then
    echo "== meson: dependency('sgx535')"
    rm -rf "$out/meson"
    meson setup "$out/meson" "$here" >"$out/meson.log" 2>&1 || { cat "$out/meson.log"; exit 1; }
    grep -E "Run-time dependency sgx535" "$out/meson.log"
fi
echo "== C examples: all passed (programs and emulator.ppm in $out)"
