#!/usr/bin/env bash
# Speed of GL applications on sgx535 (the device model) and on softpipe, in the same run:
# glxgears frames per second (a fixed frame count, timed from the end of the first frame) and
# a textured fill test, side by side with the ratio.
#
#   mesa/build.sh && mesa/bench.sh [gears-frames] [texfill-frames]
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(dirname "$HERE")
if [ "${SGX535_TEST_DISPLAY:-0}" != 1 ]; then
  exec env SGX535_TEST_DISPLAY=1 xvfb-run -a -s "-noreset -screen 0 1024x768x24" "$0" "$@"
fi
# shellcheck source=mesa/env.sh
source "$HERE/env.sh" || exit 1
OUT=${SGX535_BENCH_OUT:-$REPO/target/mesa-bench}
mkdir -p "$OUT"
GEARS_FRAMES=${1:-300}
TEXFILL_FRAMES=${2:-30}
gcc -shared -fPIC -O2 -o "$OUT/gears_frames.so" "$HERE/tests/gears_frames.c" -ldl -lX11 || exit 1
gcc -O2 -o "$OUT/texfill" "$HERE/tests/texfill.c" -lGL -lX11 || exit 1

gears_fps() {
  # vblank_mode=0 only here: it makes every GL process print a notice.
  env LIBGL_ALWAYS_SOFTWARE=1 GALLIUM_DRIVER="$1" vblank_mode=0 LD_PRELOAD="$OUT/gears_frames.so" \
    GEARS_FRAMES="$GEARS_FRAMES" GEARS_FPS=1 timeout 600 glxgears 2>&1 |
    sed -n 's/^gears_frames: fps=\([0-9.]*\).*/\1/p'
}
texfill_mpix() {
  env LIBGL_ALWAYS_SOFTWARE=1 GALLIUM_DRIVER="$1" timeout 600 "$OUT/texfill" "$TEXFILL_FRAMES" 8 2>&1 |
    sed -n 's/^texfill: mpix_per_s=\([0-9.]*\).*/\1/p'
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "" || b == 0) print "-"; else printf "%.2f", a / b }'; }

g_sgx=$(gears_fps sgx535)
g_soft=$(gears_fps softpipe)
t_sgx=$(texfill_mpix sgx535)
t_soft=$(texfill_mpix softpipe)

printf '%-40s %12s %12s %8s\n' "test (Xvfb, $(nproc) cores)" sgx535 softpipe ratio
printf '%-40s %12s %12s %8s\n' "glxgears 300x300, $GEARS_FRAMES frames (FPS)" "${g_sgx:--}" "${g_soft:--}" "$(ratio "$g_sgx" "$g_soft")"
printf '%-40s %12s %12s %8s\n' "texfill 512x512 x8, $TEXFILL_FRAMES frames (Mpix/s)" "${t_sgx:--}" "${t_soft:--}" "$(ratio "$t_sgx" "$t_soft")"
