#!/usr/bin/env bash
# piglit's shader tests of one group, each run alone (`shader_runner FILE -auto -fbo`), on sgx535
# and on softpipe (held to OpenGL 2.1 / GLSL 1.20, like sgx535), side by side.
#
#   mesa/build.sh && mesa/piglit.sh [GROUP]      GROUP defaults to spec/glsl-1.10/execution
#
# Each test runs alone because `piglit run` runs shader tests in a way that binds framebuffers
# with glBindFramebuffer (ARB_framebuffer_object), which this driver does not expose yet.
# Writes $OUT/results.txt ("driver result file" lines) and prints the counts; a test that
# passes on softpipe and not on sgx535 is listed in $OUT/regressions.txt.
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(dirname "$HERE")
if [ "${SGX535_TEST_DISPLAY:-0}" != 1 ]; then
  exec env SGX535_TEST_DISPLAY=1 xvfb-run -a -s "-noreset -screen 0 1024x768x24" "$0" "$@"
fi
# shellcheck source=mesa/env.sh
source "$HERE/env.sh" || exit 1
GROUP=${1:-spec/glsl-1.10/execution}
PIGLIT=${SGX535_PIGLIT:-/usr/lib/x86_64-linux-gnu/piglit}
OUT=${SGX535_PIGLIT_OUT:-$REPO/target/mesa-piglit}
mkdir -p "$OUT"
find "$PIGLIT/tests/$GROUP" "$PIGLIT/generated_tests/$GROUP" -name '*.shader_test' 2>/dev/null |
  sort >"$OUT/tests.txt"
[ -s "$OUT/tests.txt" ] || { echo "mesa/piglit.sh: no shader tests under $GROUP" >&2; exit 1; }

run_one() {
  local driver=$1 file=$2 result
  result=$(env LIBGL_ALWAYS_SOFTWARE=1 GALLIUM_DRIVER="$driver" MESA_GL_VERSION_OVERRIDE=2.1 \
    MESA_GLSL_VERSION_OVERRIDE=120 timeout 30 "$PIGLIT/bin/shader_runner" "$file" -auto -fbo \
    2>/dev/null | grep -o '"result": "[a-z]*"' | tail -1 | cut -d'"' -f4)
  echo "$driver ${result:-crash} $file"
}
export -f run_one
export PIGLIT
: >"$OUT/results.txt"
for driver in sgx535 softpipe; do
  xargs -P"$(nproc)" -I{} bash -c 'run_one "$0" "$1"' "$driver" {} <"$OUT/tests.txt" >>"$OUT/results.txt"
done

printf '%-10s %6s %6s %6s %6s\n' driver pass fail skip crash
for driver in sgx535 softpipe; do
  printf '%-10s' "$driver"
  for r in pass fail skip crash; do
    printf ' %6d' "$(grep -c "^$driver $r " "$OUT/results.txt")"
  done
  echo
done
grep '^softpipe pass ' "$OUT/results.txt" | cut -d' ' -f3 | sort >"$OUT/soft-pass.txt"
grep '^sgx535 pass ' "$OUT/results.txt" | cut -d' ' -f3 | sort >"$OUT/sgx-pass.txt"
comm -23 "$OUT/soft-pass.txt" "$OUT/sgx-pass.txt" >"$OUT/regressions.txt"
echo "passing on softpipe, not on sgx535: $(wc -l <"$OUT/regressions.txt") ($OUT/regressions.txt)"
