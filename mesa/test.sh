#!/usr/bin/env bash
# GL applications through the Mesa that mesa/build.sh built, on the sgx535 driver (the device
# model in the application's process, presented through Mesa's software window system).
#
#   mesa/build.sh && mesa/test.sh
#
# Starts its own Xvfb (xvfb-run) unless SGX535_TEST_DISPLAY=1 says DISPLAY is already one.
# Artifacts (screenshots, logs) go to $SGX535_TEST_OUT (default <repo>/target/mesa-test).
# Each check prints PASS or FAIL; the exit status is the number of failures (0: all passed).
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(dirname "$HERE")
TEST_PACKAGES=(xvfb xauth mesa-utils x11-apps imagemagick gcc libx11-dev libgl-dev libegl-dev libgles-dev
  piglit)

# shellcheck source=mesa/packages.sh
. "$HERE/packages.sh"
if [ "${SGX535_TEST_DISPLAY:-0}" != 1 ]; then
  sgx535_install_packages mesa/test.sh "${TEST_PACKAGES[@]}" || exit 100
  sgx535_exec_under_xvfb "$0" "$@"
fi

# shellcheck source=mesa/env.sh
source "$HERE/env.sh" || exit 100
OUT=${SGX535_TEST_OUT:-$REPO/target/mesa-test}
rm -rf "$OUT" && mkdir -p "$OUT"
FAILS=0
pass() { echo "PASS $*"; }
fail() { echo "FAIL $*"; FAILS=$((FAILS + 1)); }

# The drisw path: GALLIUM_DRIVER picks the driver inside swrast_dri.so.
sgx() { env LIBGL_ALWAYS_SOFTWARE=1 GALLIUM_DRIVER=sgx535 "$@"; }
soft() { env LIBGL_ALWAYS_SOFTWARE=1 GALLIUM_DRIVER=softpipe "$@"; }

# ---- glxinfo names the driver and OpenGL 2.1 ----
sgx glxinfo -B >"$OUT/glxinfo.txt" 2>&1
if grep -q '^OpenGL renderer string: .*SGX535' "$OUT/glxinfo.txt" &&
  grep -q '^OpenGL version string: 2\.1 ' "$OUT/glxinfo.txt"; then
  pass "glxinfo: $(grep -E '^OpenGL (renderer|version) string' "$OUT/glxinfo.txt" | tr '\n' ';')"
else
  fail "glxinfo -B does not name SGX535 with OpenGL 2.1 (see $OUT/glxinfo.txt):"
  head -20 "$OUT/glxinfo.txt"
fi

# ---- the built libraries, not the system's Mesa, are the ones loaded ----
sgx env LD_DEBUG=libs glxinfo -B >"$OUT/loaded.txt" 2>&1
loaded=$(grep -o 'calling init: .*' "$OUT/loaded.txt" | sed 's/calling init: //' | sort -u)
capi_dir=${SGX535_LIBDIR:-$(cat "$SGX535_MESA_PREFIX/.capi-libdir")}
bad=""
for lib in libGLX_mesa.so.0 libglapi.so.0 swrast_dri.so libsgx535.so; do
  path=$(echo "$loaded" | grep "/$lib" | head -1)
  case "$path" in
  "$SGX535_MESA_PREFIX"/* | "$capi_dir"/*) ;;
  *) bad="$bad $lib=${path:-not-loaded}" ;;
  esac
done
if [ -z "$bad" ]; then
  pass "loaded: the built libGLX_mesa, libglapi, swrast_dri.so and libsgx535.so"
else
  fail "loaded libraries not from the build:$bad (see $OUT/loaded.txt)"
fi

# ---- glxgears: N frames on the fixed clock, screenshot, compared with softpipe's ----
GEARS_FRAMES=${SGX535_GEARS_FRAMES:-30}
PRELOAD=$OUT/gears_frames.so
gcc -shared -fPIC -O2 -o "$PRELOAD" "$HERE/tests/gears_frames.c" -ldl -lX11 ||
  { fail "could not build the glxgears frame limiter"; exit "$FAILS"; }

# run_gears NAME DRIVER-WRAPPER: draws GEARS_FRAMES frames, shoots the window at the last one.
run_gears() {
  local name=$1 wrap=$2
  rm -f "$OUT/$name.ready" "$OUT/$name.taken"
  $wrap env LD_PRELOAD="$PRELOAD" GEARS_FRAMES="$GEARS_FRAMES" GEARS_FIXED_CLOCK=1 \
    GEARS_SHOT_READY="$OUT/$name.ready" GEARS_SHOT_TAKEN="$OUT/$name.taken" SGX535_STATS=1 \
    timeout 300 glxgears >"$OUT/$name.log" 2>&1 &
  local pid=$! waited=0
  while [ ! -f "$OUT/$name.ready" ] && kill -0 "$pid" 2>/dev/null && [ $waited -lt 3000 ]; do
    sleep 0.1
    waited=$((waited + 1))
  done
  if [ -f "$OUT/$name.ready" ]; then
    xwd -silent -name glxgears | convert xwd:- "$OUT/$name.png"
  fi
  touch "$OUT/$name.taken"
  wait "$pid"
}

run_gears gears-sgx535 sgx
gears_status=$?
run_gears gears-softpipe soft
if [ $gears_status -eq 0 ] && [ -f "$OUT/gears-sgx535.png" ]; then
  pass "glxgears drew $GEARS_FRAMES frames on sgx535 and exited cleanly ($OUT/gears-sgx535.png)"
else
  fail "glxgears on sgx535 (status $gears_status, see $OUT/gears-sgx535.log)"
  tail -5 "$OUT/gears-sgx535.log"
fi

# Tolerance: rasterisers differ on edge pixels (coverage rules, interpolation precision). A
# pixel counts as different when a channel differs by more than 10%; at most 2% of the window
# may differ. Gears in the wrong place or colour differ on far more than that.
if [ -f "$OUT/gears-sgx535.png" ] && [ -f "$OUT/gears-softpipe.png" ]; then
  total=$(identify -format '%[fx:w*h]' "$OUT/gears-sgx535.png")
  diff_px=$(compare -metric AE -fuzz 10% "$OUT/gears-sgx535.png" "$OUT/gears-softpipe.png" \
    "$OUT/gears-diff.png" 2>&1 >/dev/null | cut -d' ' -f1)
  nonblack=$(convert "$OUT/gears-sgx535.png" -fuzz 5% -fill white +opaque black -fill black \
    -opaque black -format '%[fx:int(mean*w*h)]' info:)
  if [ "${diff_px:-x}" != x ] && awk -v d="$diff_px" -v t="$total" 'BEGIN { exit !(d * 50 <= t) }' &&
    [ "$nonblack" -gt $((total / 10)) ]; then
    pass "screenshot: $diff_px of $total pixels differ from softpipe's (fuzz 10%, limit 2%); $nonblack pixels drawn"
  else
    fail "screenshot differs from softpipe's: ${diff_px:-?} of $total pixels (limit 2%), $nonblack drawn (see $OUT/gears-diff.png)"
  fi
else
  fail "no screenshot to compare"
fi

# Every frame's pixels came from the library: the device's counters, printed at screen
# destroy (SGX535_STATS=1), show the pixel backend writing at least one full 4-byte window per
# frame, and no failed job.
stats=$(grep '^sgx535 stats:' "$OUT/gears-sgx535.log" | tail -1)
field() { echo "$stats" | sed -n "s/.* $1=\([0-9]*\).*/\1/p"; }
subs=$(field submissions)
pbe_B=$(field pbe_bytes_written)
failed=$(field jobs_failed)
win_px=$(identify -format '%[fx:w*h]' "$OUT/gears-sgx535.png" 2>/dev/null || echo 0)
if [ -n "$subs" ] && [ "$subs" -ge "$GEARS_FRAMES" ] && [ "${failed:-1}" -eq 0 ] &&
  [ "$win_px" -gt 0 ] && [ "${pbe_B:-0}" -ge $((GEARS_FRAMES * win_px * 4)) ]; then
  pass "device counters: $stats"
else
  fail "device counters do not cover $GEARS_FRAMES frames of $win_px pixels: '${stats:-no stats line}'"
fi

# Mesa's u_vbuf stays out of the draw path: the screen takes every vertex format, primitive type
# and alignment u_vbuf checks (it would otherwise sit in front of every draw of every application).
if [ "$(echo "$stats" | sed -n 's/.* u_vbuf=\([a-z]*\).*/\1/p')" = off ]; then
  pass "u_vbuf is off: st/mesa binds vertex buffers and elements straight to the driver"
else
  fail "u_vbuf runs in front of every draw: '${stats:-no stats line}'"
fi

# ---- piglit: every fbo-generatemipmap* test passes, or skips as mesa/ci/sgx535-skips.txt says ----
PIGLIT_BIN=${SGX535_PIGLIT_BIN:-/usr/lib/x86_64-linux-gnu/piglit/bin}
: >"$OUT/piglit-results.txt"
piglit_bad=""
for bin in "$PIGLIT_BIN"/fbo-generatemipmap*; do
  t=$(basename "$bin")
  sgx env SGX535_STATS=1 timeout 120 "$bin" -auto -fbo >"$OUT/piglit-$t.log" 2>&1
  status=$?
  result=$(grep -o '"result": "[a-z]*"' "$OUT/piglit-$t.log" | tail -1 | cut -d'"' -f4)
  [ $status -ge 128 ] && result="crash"
  echo "$t,${result:-none}" >>"$OUT/piglit-results.txt"
  want=pass
  # The binary without arguments is piglit's test in one of these groups (the other groups
  # run it with a format set argument).
  grep -Eiq "^spec@(ext_framebuffer_object|arb_framebuffer_object|ext_texture_array|ext_framebuffer_blit)@$t,skip" \
    "$HERE/ci/sgx535-skips.txt" && want=skip
  [ "${result:-none}" = "$want" ] || piglit_bad="$piglit_bad $t=${result:-none}"
done
n_pass=$(grep -c ',pass$' "$OUT/piglit-results.txt")
n_skip=$(grep -c ',skip$' "$OUT/piglit-results.txt")
if [ -z "$piglit_bad" ] && [ "$n_pass" -gt 0 ]; then
  pass "piglit fbo-generatemipmap*: $n_pass pass, $n_skip skip (expected; $OUT/piglit-results.txt)"
else
  fail "piglit fbo-generatemipmap*:$piglit_bad (see $OUT/piglit-*.log)"
fi
# The library's blitter made the mipmaps: its per-level submissions are on the device's counters.
gm_subs=$(sed -n 's/^sgx535 stats: submissions=\([0-9]*\).*/\1/p' "$OUT/piglit-fbo-generatemipmap.log" | sort -n | tail -1)
if [ "${gm_subs:-0}" -gt 0 ]; then
  pass "piglit fbo-generatemipmap ran on the library: $(grep '^sgx535 stats' "$OUT/piglit-fbo-generatemipmap.log" | sort -t= -k2 -n | tail -1)"
else
  fail "piglit fbo-generatemipmap: no device submissions counted"
fi

# ---- the DRM path: sgx535_dri.so on a render node (the drm-shim serves it with the model) ----
# GBM + EGL, a surfaceless GLES2 context, an FBO: a clear, a shaded triangle, glGenerateMipmap.
(cd "$REPO" && cargo build --release -q -p sgx-drm-shim) || fail "could not build the drm-shim"
SHIM=$REPO/target/release/libsgx535_drm_shim.so
gcc -O2 -o "$OUT/egl_drm" "$HERE/tests/egl_drm.c" -I"$SGX535_MESA_PREFIX/include" \
  -L"$SGX535_MESA_PREFIX/lib" -lEGL -lGLESv2 -lgbm || fail "could not build egl_drm"
# drm_run NAME [VAR=VALUE...] [ARG...]: egl_drm under the shim; log in $OUT/NAME.log
drm_run() {
  local name=$1 envs=() args=()
  shift
  for a in "$@"; do
    case "$a" in
    *=*) envs+=("$a") ;;
    *) args+=("$a") ;;
    esac
  done
  env "${envs[@]}" LD_PRELOAD="$SHIM" SGX535_STATS=1 EGL_LOG_LEVEL=debug timeout 120 \
    "$OUT/egl_drm" "${args[@]}" >"$OUT/$name.log" 2>&1
}
if drm_run egl-drm && grep -q '^egl_drm: OK' "$OUT/egl-drm.log" &&
  grep -q 'dlopen(.*/sgx535_dri.so)' "$OUT/egl-drm.log"; then
  pass "DRM path: $(grep GL_RENDERER "$OUT/egl-drm.log" | sed 's/^egl_drm: //'); pixels and mipmaps right"
else
  fail "DRM path (see $OUT/egl-drm.log)"
  grep -E 'FAIL|error' "$OUT/egl-drm.log" | head -5
fi
# One render job, and the library's blitter: one fenced submission per level of the 64x64 chain.
drm_subs=$(sed -n 's/^sgx535 stats: submissions=\([0-9]*\).*/\1/p' "$OUT/egl-drm.log")
if [ "${drm_subs:-0}" -ge 7 ]; then
  pass "DRM path device counters: $(grep '^sgx535 stats' "$OUT/egl-drm.log")"
else
  fail "DRM path: ${drm_subs:-no} submissions, expected a render and 6 mip levels"
fi
# A GMA500's kernel driver is named gma500: the alias loads the same driver.
if drm_run egl-drm-gma500 MESA_LOADER_DRIVER_OVERRIDE=gma500 &&
  grep -q '^egl_drm: OK' "$OUT/egl-drm-gma500.log" &&
  grep -q 'dlopen(.*/gma500_dri.so)' "$OUT/egl-drm-gma500.log"; then
  pass "DRM path as gma500: gma500_dri.so loads the sgx535 driver"
else
  fail "DRM path as gma500 (see $OUT/egl-drm-gma500.log)"
fi
# The library's out-of-memory (allocations failed by the shim) reaches GL as GL_OUT_OF_MEMORY,
# and the context keeps working.
drm_run egl-drm-oom SGX535_SHIM_FIXTURE="$HERE/tests/fail_two_allocations.json" --oom
if grep -q '^egl_drm: OOM-OK' "$OUT/egl-drm-oom.log"; then
  pass "out of memory: $(grep '^egl_drm: texture' "$OUT/egl-drm-oom.log" | sed 's/^egl_drm: //'); the context still renders"
else
  fail "out of memory does not reach GL as GL_OUT_OF_MEMORY (see $OUT/egl-drm-oom.log)"
fi

# A GPU fault injected by the shim (a host fixture: the second job faults in the PBE): the
# process survives, the device counts the failed job, and the fault's GPU reset reaches GL: a
# robust (lose-context-on-reset) context reads a reset, not GL_NO_ERROR, from
# glGetGraphicsResetStatusEXT (the screen answers PIPE_CAP_DEVICE_RESET_STATUS_QUERY). The glue
# marks the context lost when a call returns the fault, asking the library whose job it was:
# GL_GUILTY_CONTEXT_RESET (0x8253) here; a glue that does not ask says unknown (0x8255).
drm_run egl-drm-fault SGX535_SHIM_FIXTURE="$REPO/fixtures/host/fault_job_pbe.json" --fault
status=$?
failed_jobs=$(sed -n 's/^sgx535 stats: .* jobs_failed=\([0-9]*\).*/\1/p' "$OUT/egl-drm-fault.log")
if [ $status -lt 128 ] && [ $status -ne 124 ] && [ "${failed_jobs:-0}" -ge 1 ]; then
  pass "an injected GPU fault: the process exits normally (status $status), $failed_jobs failed job counted"
else
  fail "injected fault: status $status, failed jobs '${failed_jobs:-none}' (see $OUT/egl-drm-fault.log)"
fi
reset_status=$(sed -n 's/^egl_drm: reset status //p' "$OUT/egl-drm-fault.log")
if grep -q '^egl_drm: FAULT-OK' "$OUT/egl-drm-fault.log" && [ "$reset_status" = 0x8253 ]; then
  pass "the fault's reset reaches GL: glGetGraphicsResetStatusEXT $reset_status (guilty)"
else
  fail "a robust context does not read its own fault as a guilty reset: status '${reset_status:-none}' (see $OUT/egl-drm-fault.log)"
fi
# The failed render itself reaches the application as a GL_KHR_debug error message (type
# GL_DEBUG_TYPE_ERROR 0x824c), which the glue sends through the frontend's debug callback.
if grep -q '^egl_drm: debug message 0x824c: sgx535: render job .* failed: MMU fault' "$OUT/egl-drm-fault.log"; then
  pass "the failed render reaches GL_KHR_debug: $(grep -m1 '^egl_drm: debug message 0x824c' "$OUT/egl-drm-fault.log" | sed 's/^egl_drm: //')"
else
  fail "the failed render sent no GL_KHR_debug error (see $OUT/egl-drm-fault.log)"
fi

# A render job that runs out of parameter memory (a host fixture: the first job, the first
# render). The glue reports it as UTIL_DEBUG_TYPE_OUT_OF_MEMORY, which Mesa hands the application
# as a GL_KHR_debug message of type GL_DEBUG_TYPE_ERROR (0x824c) from GL_DEBUG_SOURCE_API whose
# text says out of memory; an out-of-memory render is not a reset: the robust context is not
# lost (glGetGraphicsResetStatusEXT GL_NO_ERROR) and its next render reads back right.
drm_run egl-drm-job-oom SGX535_SHIM_FIXTURE="$REPO/fixtures/host/job_out_of_memory.json" --job-oom
status=$?
oom_line=$(grep -m1 '^egl_drm: debug message 0x824c: sgx535: render job .* failed: out of memory' \
  "$OUT/egl-drm-job-oom.log" | sed 's/^egl_drm: //')
if [ $status -eq 0 ] && [ -n "$oom_line" ] && grep -q '^egl_drm: JOB-OOM-OK' "$OUT/egl-drm-job-oom.log"; then
  pass "a render out of memory reaches GL_KHR_debug: $oom_line; the context is not lost and renders on"
else
  fail "a render out of memory: status $status, message '${oom_line:-none}' (see $OUT/egl-drm-job-oom.log)"
  grep 'FAIL' "$OUT/egl-drm-job-oom.log" | head -5
fi

# ---- draws that upload current attributes allocate nothing large per draw ----
# st/mesa uploads GL's current attribute values through u_upload_mgr before a draw whose vertex
# layout changed, which maps the rest of the upload buffer (about a megabyte) write-only with
# FLUSH_EXPLICIT; the glue hands out a staging buffer it keeps for the next map. When it lost
# that buffer every other map, each such draw allocated and freed a megabyte: piglit's
# drawoverhead test 6 (one- and two-attribute display lists intermixed) counted hundreds of
# thousands of allocations of 256 KiB or more in a run, and ran 10-25% slower.
BIG_MALLOCS=$OUT/big_mallocs.so
DRAWOVERHEAD=${PIGLIT_BIN:-/usr/lib/x86_64-linux-gnu/piglit/bin}/drawoverhead
if ! gcc -std=c11 -Wall -Wextra -Werror -shared -fPIC -O2 -o "$BIG_MALLOCS" "$HERE/tests/big_mallocs.c"; then
  fail "could not build the allocation counter"
elif [ ! -x "$DRAWOVERHEAD" ]; then
  fail "piglit's drawoverhead is not installed at $DRAWOVERHEAD"
else
  sgx env MESA_GL_VERSION_OVERRIDE=3.0COMPAT MESA_GLSL_VERSION_OVERRIDE=130 \
    MESA_EXTENSION_OVERRIDE=+GL_ARB_uniform_buffer_object LD_PRELOAD="$BIG_MALLOCS" \
    timeout 120 "$DRAWOVERHEAD" -compat -nocolor -test 6 >"$OUT/drawoverhead-6.log" 2>&1
  kdraws=$(sed -n 's/^ *6, .*, *\([0-9][0-9]*\), .*/\1/p' "$OUT/drawoverhead-6.log")
  big=$(sed -n 's/^big_mallocs: //p' "$OUT/drawoverhead-6.log" | tail -1)
  if [ -n "$kdraws" ] && [ -n "$big" ] && [ "$big" -lt 1000 ]; then
    pass "drawoverhead test 6: $kdraws thousand draws/s with $big allocations of 256 KiB or more"
  else
    fail "drawoverhead test 6: ${kdraws:-no} thousand draws/s, ${big:-unknown} allocations of 256 KiB or more (see $OUT/drawoverhead-6.log)"
  fi
fi

echo "mesa/test.sh: $FAILS failure(s); artifacts in $OUT"
exit "$FAILS"
