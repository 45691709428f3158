#!/usr/bin/env bash
# Speed of GL applications on sgx535 (the device model), softpipe and llvmpipe, in one run:
# glxgears frames per second (a fixed frame count, timed from the end of the first frame), a
# textured fill test, and piglit's drawoverhead (thousands of draws per second by the kind of
# state changed between draws: the driver's CPU cost per draw), side by side with the ratios.
# sgx535 and softpipe come from the Mesa that mesa/build.sh built (env.sh); llvmpipe from the
# system's Debian Mesa (our build has no LLVM), run with the environment env.sh replaced.
#
#   mesa/build.sh && mesa/bench.sh [gears-frames] [texfill-frames]
#
# SGX535_BENCH_DRAWOVERHEAD=0 skips drawoverhead (about a minute per driver);
# SGX535_BENCH_DRAWOVERHEAD_TESTS="2 3" runs only those of its tests;
# SGX535_BENCH_DRAWOVERHEAD_UBO=0 runs it without announcing GL_ARB_uniform_buffer_object;
# SGX535_BENCH_PASSES=N (default 3) runs every measurement N times, the drivers one after
# the other within each pass and test, and shows each driver's best: on a noisy machine the
# drivers are then compared in the same minutes (one driver's whole run after another's had
# drawoverhead's test 6 anywhere from 0.77x to 1.54x llvmpipe on one VM).
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(dirname "$HERE")
if [ "${SGX535_TEST_DISPLAY:-0}" != 1 ]; then
  exec env SGX535_TEST_DISPLAY=1 xvfb-run -a -s "-noreset -screen 0 1024x768x24" "$0" "$@"
fi
# The system's GL environment, for the llvmpipe column.
SYS_ENV=(env -u LIBGL_DRIVERS_PATH -u __GLX_VENDOR_LIBRARY_NAME -u __EGL_VENDOR_LIBRARY_FILENAMES
  -u GBM_BACKENDS_PATH -u SGX535_MESA_PREFIX)
if [ -n "${LD_LIBRARY_PATH+x}" ]; then
  SYS_ENV+=(LD_LIBRARY_PATH="$LD_LIBRARY_PATH")
else
  SYS_ENV+=(-u LD_LIBRARY_PATH)
fi
# shellcheck source=mesa/env.sh
source "$HERE/env.sh" || exit 1
OUT=${SGX535_BENCH_OUT:-$REPO/target/mesa-bench}
mkdir -p "$OUT"
GEARS_FRAMES=${1:-300}
TEXFILL_FRAMES=${2:-30}
PIGLIT_BIN=${PIGLIT_BIN:-/usr/lib/x86_64-linux-gnu/piglit/bin}
gcc -shared -fPIC -O2 -o "$OUT/gears_frames.so" "$HERE/tests/gears_frames.c" -ldl -lX11 || exit 1
gcc -O2 -o "$OUT/texfill" "$HERE/tests/texfill.c" -lGL -lX11 || exit 1

# run DRIVER CMD...: CMD on GALLIUM_DRIVER=DRIVER, llvmpipe through the system's Mesa.
run() {
  local drv=$1
  shift
  if [ "$drv" = llvmpipe ]; then
    "${SYS_ENV[@]}" LIBGL_ALWAYS_SOFTWARE=1 GALLIUM_DRIVER=llvmpipe "$@"
  else
    env LIBGL_ALWAYS_SOFTWARE=1 GALLIUM_DRIVER="$drv" "$@"
  fi
}
gears_fps() {
  # vblank_mode=0 only here: it makes every GL process print a notice.
  run "$1" env vblank_mode=0 LD_PRELOAD="$OUT/gears_frames.so" GEARS_FRAMES="$GEARS_FRAMES" \
    GEARS_FPS=1 timeout 600 glxgears 2>&1 |
    sed -n 's/^gears_frames: fps=\([0-9.]*\).*/\1/p'
}
texfill_mpix() {
  run "$1" timeout 600 "$OUT/texfill" "$TEXFILL_FRAMES" 8 2>&1 |
    sed -n 's/^texfill: mpix_per_s=\([0-9.]*\).*/\1/p'
}
# drawoverhead's rows as "N<tab>name<tab>kdraws", each test in a process of its own (a test
# that fails stops a whole run). drawoverhead refuses to start below GL 3.0, and sgx535 exposes
# GL 2.1: MESA_GL_VERSION_OVERRIDE=3.0COMPAT only lets it start (on every driver alike, with
# -compat; it has no flag for a lower version). Every shader it builds says `#extension
# GL_ARB_uniform_buffer_object : require`, uniform blocks used or not, so the extension is
# announced by override too (MESA_EXTENSION_OVERRIDE, every driver alike): sgx535 still has no
# uniform blocks (its limit stays 0), so the tests that declare some fail to link there and show
# "-"; the tests that declare none (draws with no state change, a program change) and the
# fixed-function glCallList tests run. SGX535_BENCH_DRAWOVERHEAD_UBO=0 leaves the extension alone.
DRAWOVERHEAD_TESTS=${SGX535_BENCH_DRAWOVERHEAD_TESTS:-$(seq 1 45)}
UBO_ENV=()
if [ "${SGX535_BENCH_DRAWOVERHEAD_UBO:-1}" = 1 ]; then
  UBO_ENV=(MESA_EXTENSION_OVERRIDE=+GL_ARB_uniform_buffer_object)
fi
# Appends test $2's row on driver $1 to its file.
drawoverhead() {
  run "$1" env MESA_GL_VERSION_OVERRIDE=3.0COMPAT MESA_GLSL_VERSION_OVERRIDE=130 "${UBO_ENV[@]}" \
    timeout 120 "$PIGLIT_BIN/drawoverhead" -compat -nocolor -test "$2" 2>&1 |
    sed -n 's/^ *\([0-9][0-9]*\), \(.*[^ ]\) *, *\([0-9][0-9]*\),.*/\1\t\2\t\3/p' >>"$OUT/drawoverhead-$1.txt"
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "" || b == 0) print "-"; else printf "%.2f", a / b }'; }

# The larger of two figures, either possibly empty (a run that failed).
best() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || (b != "" && b + 0 > a + 0)) print b; else print a }'; }

PASSES=${SGX535_BENCH_PASSES:-3}
DRIVERS=(sgx535 softpipe llvmpipe)
declare -A G T
for _ in $(seq "$PASSES"); do
  for d in "${DRIVERS[@]}"; do G[$d]=$(best "${G[$d]:-}" "$(gears_fps "$d")"); done
  for d in "${DRIVERS[@]}"; do T[$d]=$(best "${T[$d]:-}" "$(texfill_mpix "$d")"); done
done

row() { printf '%-76s %9s %9s %9s %8s %8s\n' "$@"; }
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); SGX_THREADS=${SGX_THREADS:-default}; $(nproc) cores;" \
  "best of $PASSES passes, the drivers interleaved"
row "test (Xvfb)" sgx535 softpipe llvmpipe sgx/soft sgx/llvm
row "glxgears 300x300, $GEARS_FRAMES frames (FPS)" "${G[sgx535]:--}" "${G[softpipe]:--}" \
  "${G[llvmpipe]:--}" "$(ratio "${G[sgx535]}" "${G[softpipe]}")" "$(ratio "${G[sgx535]}" "${G[llvmpipe]}")"
row "texfill 512x512 x8, $TEXFILL_FRAMES frames (Mpix/s)" "${T[sgx535]:--}" "${T[softpipe]:--}" \
  "${T[llvmpipe]:--}" "$(ratio "${T[sgx535]}" "${T[softpipe]}")" "$(ratio "${T[sgx535]}" "${T[llvmpipe]}")"

if [ "${SGX535_BENCH_DRAWOVERHEAD:-1}" = 1 ]; then
  if [ ! -x "$PIGLIT_BIN/drawoverhead" ]; then
    echo "drawoverhead: not in $PIGLIT_BIN (Debian's piglit package): skipped"
    exit 0
  fi
  for d in "${DRIVERS[@]}"; do : >"$OUT/drawoverhead-$d.txt"; done
  for _ in $(seq "$PASSES"); do
    for t in $DRAWOVERHEAD_TESTS; do
      for d in "${DRIVERS[@]}"; do drawoverhead "$d" "$t"; done
    done
  done
  echo
  echo "drawoverhead runs under MESA_GL_VERSION_OVERRIDE=3.0COMPAT${UBO_ENV:+ and ${UBO_ENV[*]}}" \
    "on every driver (it refuses GL 2.1); sgx535 has no uniform blocks: tests using them show -"
  row "drawoverhead -compat (thousands of draws/s)" sgx535 softpipe llvmpipe sgx/soft sgx/llvm
  # Every row any driver ran, in drawoverhead's order; a test a driver failed shows "-".
  cut -f1,2 "$OUT"/drawoverhead-*.txt | sort -k1,1n -u | while IFS=$'\t' read -r n name; do
    v=()
    for d in "${DRIVERS[@]}"; do
      v+=("$(awk -F'\t' -v n="$n" '$1 == n && $3 + 0 > m + 0 { m = $3 } END { print m }' \
        "$OUT/drawoverhead-$d.txt")")
    done
    row "$n $name" "${v[0]:--}" "${v[1]:--}" "${v[2]:--}" "$(ratio "${v[0]}" "${v[1]}")" \
      "$(ratio "${v[0]}" "${v[2]}")"
  done
fi
