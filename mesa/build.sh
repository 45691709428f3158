#!/usr/bin/env bash
# Builds Mesa 22.3.6 (Debian 12's source) with the sgx535 Gallium driver of this repo.
#
#   mesa/build.sh            fetch, verify, patch, configure, build, install into a prefix
#   source mesa/env.sh       then GL apps load the built Mesa (see README "Run GL applications")
#
# Everything lands under $SGX535_CACHE (default /var/cache/sgx535), outside the repo, so a fresh
# clone reuses it. The install prefix is keyed by the hash of the overlay (mesa/src, mesa/patches,
# this script) and of libsgx535's C header: when the key matches, the script only rebuilds
# libsgx535 and returns. Mesa links libsgx535.so dynamically, so a change to the Rust library
# that keeps the header needs no Mesa rebuild. When the key changes, the kept build tree is
# re-patched and ninja rebuilds incrementally.
#
# Environment:
#   SGX535_CACHE        where the source, the build tree and the prefix live
#   SGX535_CAPI_INCLUDE folder holding sgx535.h      (default: <repo>/capi/include)
#   SGX535_CAPI_LIBDIR  folder holding libsgx535.so  (default: <repo>/target/release, built here)
#   SGX535_NO_APT=1     do not install build packages (they must be there already)
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(dirname "$HERE")
CACHE=${SGX535_CACHE:-/var/cache/sgx535}
MESA_VERSION=22.3.6
DEB_VERSION=22.3.6-1+deb12u2
ORIG=mesa_${MESA_VERSION}.orig.tar.gz
ORIG_SHA256=737cb8e5d380ce1a0ad01fb8b74db7f27303435c353e753d2302e8cf3927bad2
BUILD_PACKAGES=(meson ninja-build python3-mako bison flex pkg-config libdrm-dev libx11-xcb-dev
  libxcb-dri2-0-dev libxcb-dri3-dev libxcb-glx0-dev libxcb-present-dev libxcb-randr0-dev
  libxcb-shm0-dev libxcb-sync-dev libxcb-xfixes0-dev libxshmfence-dev libxxf86vm-dev
  libxrandr-dev libzstd-dev libglvnd-dev)

log() { printf 'mesa/build.sh: %s\n' "$*" >&2; }
die() { printf 'mesa/build.sh: ERROR: %s\n' "$*" >&2; exit 1; }

# Meson needs /usr/bin/python3 (with mako): a pyenv or venv python first on PATH lacks it.
export PATH=/usr/bin:/bin:/usr/sbin:/sbin:$HOME/.cargo/bin:$PATH

SRC_ROOT=$CACHE/mesa-$MESA_VERSION
mkdir -p "$SRC_ROOT"

install_packages() {
  [ "${SGX535_NO_APT:-0}" = 1 ] && return 0
  local missing=()
  for p in "${BUILD_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  log "installing build packages: ${missing[*]}"
  apt-get update -q >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
}

# Debian's source package through a private apt configuration: the machine's own sources and
# lists stay untouched.
fetch_source() {
  local dl=$SRC_ROOT/download
  if [ -f "$dl/$ORIG" ] && echo "$ORIG_SHA256  $dl/$ORIG" | sha256sum -c --status; then
    return 0
  fi
  log "fetching mesa=$DEB_VERSION (Debian 12 source package)"
  local apt=$SRC_ROOT/apt
  mkdir -p "$apt/lists/partial" "$apt/sources.list.d" "$dl"
  cat >"$apt/sources.list" <<EOF
deb-src http://deb.debian.org/debian bookworm main
deb-src http://deb.debian.org/debian-security bookworm-security main
deb-src http://deb.debian.org/debian bookworm-updates main
EOF
  local opts=(-o "Dir::Etc::SourceList=$apt/sources.list" -o "Dir::Etc::SourceParts=$apt/sources.list.d"
    -o APT::Sandbox::User=root
    -o "Dir::State::Lists=$apt/lists" -o "Dir::Cache::archives=$apt/archives")
  apt-get "${opts[@]}" update -q >/dev/null
  (cd "$dl" && apt-get "${opts[@]}" source --download-only -q "mesa=$DEB_VERSION" >/dev/null) ||
    die "apt could not fetch mesa=$DEB_VERSION (the pinned version must still be in the archive)"
  echo "$ORIG_SHA256  $dl/$ORIG" | sha256sum -c --status ||
    die "$ORIG does not have the pinned sha256 $ORIG_SHA256"
}

# The overlay's hash: every file under mesa/src and mesa/patches, this script, and the C header.
overlay_key() {
  (
    cd "$HERE"
    find src patches -type f | LC_ALL=C sort | xargs sha256sum
    sha256sum build.sh
    sha256sum "$CAPI_INCLUDE/sgx535.h" | cut -d' ' -f1
  ) | sha256sum | cut -c1-16
}

build_capi() {
  local built
  if [ -n "${SGX535_CAPI_LIBDIR:-}" ]; then
    built=$SGX535_CAPI_LIBDIR
  else
    log "building libsgx535 (cargo build --release -p sgx-capi)"
    (cd "$REPO" && cargo build --release -q -p sgx-capi)
    built=$REPO/target/release
  fi
  [ -f "$built/libsgx535.so" ] || die "no libsgx535.so in $built"
  [ -f "$CAPI_INCLUDE/sgx535.h" ] || die "no sgx535.h in $CAPI_INCLUDE"
  # The library's SONAME is libsgx535.so.0 (the ABI's major version); cargo writes only
  # libsgx535.so. A folder of links gives the linker and the loader both names.
  CAPI_LIBDIR=$SRC_ROOT/capi-lib
  mkdir -p "$CAPI_LIBDIR"
  ln -sfn "$built/libsgx535.so" "$CAPI_LIBDIR/libsgx535.so"
  ln -sfn "$built/libsgx535.so" "$CAPI_LIBDIR/libsgx535.so.0"
}

# A pkg-config file for dependency('sgx535'), pointing at this checkout's library and header.
write_pc() {
  mkdir -p "$SRC_ROOT/pkgconfig"
  cat >"$SRC_ROOT/pkgconfig/sgx535.pc" <<EOF
Name: sgx535
Description: PowerVR SGX535 userspace driver library (C ABI)
Version: 1.0
Cflags: -I$CAPI_INCLUDE
Libs: -L$CAPI_LIBDIR -lsgx535
EOF
}

# The tree under build is a git repository of the pristine source: each run resets it, then
# applies the patches (refused loudly when one does not apply) and copies the driver in.
prepare_tree() {
  local src=$SRC_ROOT/src
  if [ ! -d "$src/.git" ]; then
    log "unpacking $ORIG"
    rm -rf "$src" && mkdir -p "$src"
    tar -xzf "$SRC_ROOT/download/$ORIG" -C "$src" --strip-components=1
    git -C "$src" init -q
    git -C "$src" add -A
    git -C "$src" -c user.name=build -c user.email=build@localhost commit -qm "mesa $MESA_VERSION pristine"
  fi
  git -C "$src" checkout -q -- .
  git -C "$src" clean -fdq
  local p
  for p in "$HERE"/patches/*.patch; do
    git -C "$src" apply --check "$p" 2>/dev/null ||
      die "patch $(basename "$p") does not apply to mesa $MESA_VERSION: $(git -C "$src" apply --check "$p" 2>&1 | head -3)"
    git -C "$src" apply "$p"
  done
  cp -r "$HERE/src/." "$src/src/"
}

configure_and_build() {
  local src=$SRC_ROOT/src build=$SRC_ROOT/build prefix=$SRC_ROOT/prefix
  export PKG_CONFIG_PATH=$SRC_ROOT/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
  # Reconfigured on every rebuild: meson does not notice a changed sgx535.pc by itself.
  local again=()
  if [ -f "$build/build.ninja" ]; then
    again=(--reconfigure)
    meson configure --clearcache "$build" >/dev/null # it caches what pkg-config said
  fi
  log "configuring"
  meson setup "${again[@]}" "$build" "$src" --prefix="$prefix" --libdir=lib -Dbuildtype=release \
    -Dgallium-drivers=swrast,sgx535 -Dllvm=disabled -Dvulkan-drivers= -Dvideo-codecs= \
    -Dplatforms=x11 -Dglx=dri -Dglvnd=true -Degl=enabled -Dgbm=enabled -Dshared-glapi=enabled \
    -Dgles1=disabled -Dgles2=enabled -Dgallium-va=disabled -Dgallium-vdpau=disabled \
    -Dgallium-xa=disabled -Dgallium-omx=disabled -Dgallium-opencl=disabled \
    -Dgallium-nine=false -Dtools=drm-shim -Dvalgrind=disabled -Dlibunwind=disabled \
    -Dlmsensors=disabled -Dzstd=enabled >"$SRC_ROOT/configure.log" 2>&1 ||
    { tail -30 "$SRC_ROOT/configure.log"; die "meson setup failed (log: $SRC_ROOT/configure.log)"; }
  log "building (ninja; a cold build takes 6 to 12 minutes on 2 cores)"
  ninja -C "$build" -j"$(nproc)" >"$SRC_ROOT/build.log" 2>&1 ||
    { grep -E 'error|FAILED' "$SRC_ROOT/build.log" | head -30; die "ninja failed (log: $SRC_ROOT/build.log)"; }
  ninja -C "$build" install >"$SRC_ROOT/install.log" 2>&1 ||
    { tail -20 "$SRC_ROOT/install.log"; die "ninja install failed"; }
}

CAPI_INCLUDE=${SGX535_CAPI_INCLUDE:-$REPO/capi/include}
start=$(date +%s)
install_packages
build_capi
write_pc
key=$(overlay_key)
if [ -f "$SRC_ROOT/prefix/.key" ] && [ "$(cat "$SRC_ROOT/prefix/.key")" = "$key" ]; then
  log "Mesa with sgx535 is up to date (key $key) in $SRC_ROOT/prefix"
else
  fetch_source
  prepare_tree
  configure_and_build
  echo "$key" >"$SRC_ROOT/prefix/.key"
  log "built Mesa $MESA_VERSION with sgx535 into $SRC_ROOT/prefix (key $key)"
fi
echo "$CAPI_LIBDIR" >"$SRC_ROOT/prefix/.capi-libdir"
log "done in $(($(date +%s) - start)) s; now: source mesa/env.sh"
