#!/usr/bin/env bash
# Real applications through the Mesa that mesa/build.sh built, on the sgx535 driver: glmark2's
# default scenes (GL 2.0: glmark2, and ES 2.0: glmark2-es2), glxgears, and the project's demos
# as GL programs (mesa/tests/demos.c). Each program runs on sgx535, on softpipe (the same
# Mesa build) and on llvmpipe (the system's Debian Mesa), in the same run, one process per
# scene, so a crash ends only its own scene.
#
#   mesa/build.sh && mesa/apps.sh [--record] [SCENE-FILTER]
#
# Every program gets a frame clock (mesa/tests/gears_frames.c, an LD_PRELOAD): its time moves
# 1/60 s a frame, so frame N shows the same picture on every driver whatever its speed. Frame
# SGX535_APPS_SHOT (default 5) is read back (glReadPixels of the back buffer before the swap)
# and compared with softpipe's: a pixel differs when a channel differs by more than 10%, and a
# scene passes when at most 2% of its pixels differ and it exited cleanly. FPS is frames per
# real second from the end of frame 1 to the last swap (glmark2's own score would read the
# frame clock, 60).
#
# Results: $OUT/apps.md (the table), $OUT/*.png (every screenshot), $OUT/*.log. --record copies
# the table to mesa/ci/apps.md and sgx535's screenshots (softpipe's too where they differ) to
# mesa/docs/apps/. Scenes listed in mesa/ci/apps-fails.txt are expected to fail (with why);
# the exit status is the number of scenes whose result differs from that expectation.
# Starts its own Xvfb unless SGX535_TEST_DISPLAY=1 says DISPLAY is already one.
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(dirname "$HERE")
APPS_PACKAGES=(xvfb xauth mesa-utils imagemagick gcc libx11-dev libgl-dev libegl-dev glmark2-x11
  glmark2-es2-x11)

# shellcheck source=mesa/packages.sh
. "$HERE/packages.sh"
if [ "${SGX535_TEST_DISPLAY:-0}" != 1 ]; then
  sgx535_install_packages mesa/apps.sh "${APPS_PACKAGES[@]}" || exit 100
  sgx535_exec_under_xvfb "$0" "$@"
fi

RECORD=0
FILTER=""
for a in "$@"; do
  case "$a" in
  --record) RECORD=1 ;;
  *) FILTER=$a ;;
  esac
done

# Checked here, not used: the drivers below source env.sh in their own subshells.
(source "$HERE/env.sh") || exit 100
OUT=${SGX535_APPS_OUT:-$REPO/target/mesa-apps}
rm -rf "$OUT" && mkdir -p "$OUT"
SIZE=${SGX535_APPS_SIZE:-320x240}
DURATION=${SGX535_APPS_DURATION:-0.1}
SHOT=${SGX535_APPS_SHOT:-5}
DRIVERS=(sgx535 softpipe llvmpipe)
EXPECTED=$HERE/ci/apps-fails.txt

HOOK=$OUT/gears_frames.so
gcc -shared -fPIC -O2 -o "$HOOK" "$HERE/tests/gears_frames.c" -ldl -lX11 || exit 100
gcc -O2 -o "$OUT/demos" "$HERE/tests/demos.c" -lGL -lX11 -lm || exit 100

# glmark2 2023.01's default benchmarks (what `glmark2` with no -b runs), one per line.
GLMARK2_SCENES=(
  build:use-vbo=false build:use-vbo=true
  texture:texture-filter=nearest texture:texture-filter=linear texture:texture-filter=mipmap
  shading:shading=gouraud shading:shading=blinn-phong-inf shading:shading=phong shading:shading=cel
  bump:bump-render=high-poly bump:bump-render=normals bump:bump-render=height
  "effect2d:kernel=0,1,0;1,-4,1;0,1,0;" "effect2d:kernel=1,1,1,1,1;1,1,1,1,1;1,1,1,1,1;"
  pulsar:light=false:quads=5:texture=false
  desktop:blur-radius=5:effect=blur:passes=1:separable=true:windows=4
  desktop:effect=shadow:windows=4
  buffer:columns=200:interleave=false:update-dispersion=0.9:update-fraction=0.5:update-method=map
  buffer:columns=200:interleave=false:update-dispersion=0.9:update-fraction=0.5:update-method=subdata
  buffer:columns=200:interleave=true:update-dispersion=0.9:update-fraction=0.5:update-method=map
  ideas:speed=duration jellyfish terrain shadow refract
  conditionals:fragment-steps=0:vertex-steps=0 conditionals:fragment-steps=5:vertex-steps=0
  conditionals:fragment-steps=0:vertex-steps=5
  function:fragment-complexity=low:fragment-steps=5 function:fragment-complexity=medium:fragment-steps=5
  loop:fragment-loop=false:fragment-steps=5:vertex-steps=5
  loop:fragment-steps=5:fragment-uniform=false:vertex-steps=5
  loop:fragment-steps=5:fragment-uniform=true:vertex-steps=5
)

# run DRIVER NAME CMD...: CMD under DRIVER with the frame hook; frame $SHOT to $OUT/NAME-DRIVER.ppm,
# output to $OUT/NAME-DRIVER.log; the exit status to $OUT/NAME-DRIVER.status.
run() {
  local driver=$1 name=$2
  shift 2
  local base=$OUT/$name-$driver
  (
    # llvmpipe: the system's Mesa (env.sh not sourced); softpipe and sgx535: our build.
    [ "$driver" = llvmpipe ] || source "$HERE/env.sh"
    exec env LIBGL_ALWAYS_SOFTWARE=1 GALLIUM_DRIVER="$driver" LD_PRELOAD="$HOOK" \
      GEARS_FIXED_CLOCK=1 GEARS_FPS=1 GEARS_READ_AT="${READ_AT:-$SHOT}" GEARS_READ_FILE="$base.ppm" \
      SGX535_STATS=1 timeout "${SGX535_APPS_TIMEOUT:-120}" "$@"
  ) >"$base.log" 2>&1
  echo $? >"$base.status"
  if [ -f "$base.ppm" ]; then
    convert "$base.ppm" "$base.png" && rm -f "$base.ppm"
  fi
}

fps_of() { sed -n 's/^gears_frames: fps=\([0-9.]*\).*/\1/p' "$OUT/$1.log" 2>/dev/null | tail -1; }

# differing_px A B: pixels whose channels differ by more than 10% (ImageMagick's AE, fuzz 10%).
differing_px() {
  compare -metric AE -fuzz 10% "$1" "$2" null: 2>&1 | cut -d' ' -f1
}

# verdict NAME: prints "RESULT DIFF%": pass | crash | timeout | exit-N | no-picture | unsupported |
# differs, and the percentage of pixels differing from softpipe's ("-" when not compared).
verdict() {
  local name=$1 s="$OUT/$1-sgx535" ref="$OUT/$1-softpipe"
  local status
  status=$(cat "$s.status")
  if grep -q 'Unsupported' "$s.log"; then
    echo unsupported -
    return
  fi
  if [ "$status" -ge 128 ]; then
    echo crash -
    return
  fi
  [ "$status" -eq 124 ] && { echo timeout -; return; }
  [ "$status" -ne 0 ] && { echo "exit-$status -"; return; }
  if [ ! -f "$s.png" ] || [ ! -f "$ref.png" ]; then
    echo no-picture -
    return
  fi
  local total d
  total=$(identify -format '%[fx:w*h]' "$s.png")
  d=$(differing_px "$s.png" "$ref.png")
  # Not a count: compare refused (pictures of different sizes).
  if ! [[ "$d" =~ ^[0-9.e+]+$ ]]; then
    echo differs -
    return
  fi
  local pct
  pct=$(awk -v d="$d" -v t="$total" 'BEGIN { printf "%.2f", 100 * d / t }')
  if awk -v d="$d" -v t="$total" 'BEGIN { exit !(d * 50 <= t) }'; then
    echo "pass $pct"
  else
    echo "differs $pct"
  fi
}

TABLE=$OUT/apps.md
ROWS=$OUT/rows.md
: >"$ROWS"
UNEXPECTED=0
declare -A SCORE_SUM SCORE_N

# one_scene APP NAME CMD...: runs CMD on the three drivers, adds a table row.
one_scene() {
  local app=$1 name=$2
  shift 2
  if [ -n "$FILTER" ] && [[ "$name" != *$FILTER* ]]; then return; fi
  local d
  for d in "${DRIVERS[@]}"; do
    run "$d" "$name" "$@"
    # A scene sgx535 does not support (the program checked a limit and said so) is not run on
    # the others: the run is short of time, not of reference pictures.
    if [ "$d" = sgx535 ] && grep -q 'Unsupported' "$OUT/$name-sgx535.log"; then break; fi
  done
  local v ref_pct="-" fps=() DIFF_PCT
  read -r v DIFF_PCT < <(verdict "$name")
  # The llvmpipe-vs-softpipe difference shows what the tolerance lets through between two
  # correct drivers.
  if [ -f "$OUT/$name-llvmpipe.png" ] && [ -f "$OUT/$name-softpipe.png" ]; then
    local t
    t=$(identify -format '%[fx:w*h]' "$OUT/$name-llvmpipe.png")
    ref_pct=$(awk -v d="$(differing_px "$OUT/$name-llvmpipe.png" "$OUT/$name-softpipe.png")" \
      -v t="$t" 'BEGIN { printf "%.2f", 100 * d / t }')
  fi
  for d in "${DRIVERS[@]}"; do
    local f
    f=$(fps_of "$name-$d")
    fps+=("${f:--}")
    if [ -n "$f" ]; then
      SCORE_SUM[$app-$d]=$(awk -v a="${SCORE_SUM[$app-$d]:-0}" -v b="$f" 'BEGIN { print a + b }')
      SCORE_N[$app-$d]=$((${SCORE_N[$app-$d]:-0} + 1))
    fi
  done
  local expected why
  expected=$(grep -F "$app $name," "$EXPECTED" 2>/dev/null | head -1)
  why=${expected#*,}
  why=${why#*,}
  local want=pass
  [ -n "$expected" ] && want=$(echo "$expected" | cut -d, -f2)
  local mark=""
  if [ "$v" != "$want" ]; then
    UNEXPECTED=$((UNEXPECTED + 1))
    mark=" (expected $want)"
    echo "UNEXPECTED $app $name: $v, expected $want" >&2
  fi
  echo "$app $name: $v$mark (sgx535 ${fps[0]} FPS, softpipe ${fps[1]}, llvmpipe ${fps[2]}; differs ${DIFF_PCT}%)"
  local pic="-"
  [ -f "$OUT/$name-sgx535.png" ] && pic="[png](../docs/apps/$name-sgx535.png)"
  if [ "$v" != pass ] && [ -f "$OUT/$name-softpipe.png" ]; then
    pic="$pic / [softpipe](../docs/apps/$name-softpipe.png)"
  fi
  printf '| %s | `%s` | %s | %s | %s | %s | %s | **%s**%s | %s | %s |\n' "$app" "$name" \
    "${fps[0]}" "${fps[1]}" "${fps[2]}" "$DIFF_PCT" "$ref_pct" "$v" "$mark" "$pic" \
    "${why:-}" >>"$ROWS"
}

# Scene names become file names: '=' stays, other punctuation becomes '-'.
file_name() { echo "$1" | tr ':;,' '_.-' | tr -s '.' | sed 's/[.]$//'; }

START=$(date +%s)
for s in "${GLMARK2_SCENES[@]}"; do
  one_scene glmark2 "gl-$(file_name "$s")" glmark2 -s "$SIZE" -b "$s:duration=$DURATION"
done
for s in "${GLMARK2_SCENES[@]}"; do
  one_scene glmark2-es2 "es2-$(file_name "$s")" glmark2-es2 -s "$SIZE" -b "$s:duration=$DURATION"
done
# glxgears's own clock is gettimeofday (the hook's fixed clock); it stops at GEARS_FRAMES.
READ_AT=30 GEARS_FRAMES=30 one_scene glxgears glxgears glxgears
READ_AT=8 one_scene demos demo-cube "$OUT/demos" cube 8 256
READ_AT=8 one_scene demos demo-shadow "$OUT/demos" shadow 8 256
ELAPSED=$(($(date +%s) - START))

{
  echo "# Real applications on sgx535 (mesa/apps.sh)"
  echo
  echo "Written by \`mesa/apps.sh --record\` ($(date -u +%Y-%m-%d), $ELAPSED s for the run, $(nproc) cores"
  echo "shared with other builds). glmark2 2023.01 at $SIZE, each scene alone for $DURATION s of its"
  echo "frame clock (1/60 s a frame); glxgears 30 frames at 300x300; the demos 8 frames at 256x256."
  echo "FPS: frames per real second after the first frame (the frame clock makes glmark2's own"
  echo "score meaningless); they are short runs on a loaded machine, so compare the columns, not"
  echo "the figures. sgx535 and softpipe: Mesa 22.3.6 built by mesa/build.sh; llvmpipe: the"
  echo "system's Debian Mesa 22.3.6."
  echo
  echo "Screenshot: frame $SHOT (glxgears 30, the demos 8) read back before its swap. *differs %*:"
  echo "pixels of sgx535's screenshot with a channel more than 10% away from softpipe's; a scene"
  echo "passes at 2% or less, having exited cleanly. *llvmpipe %*: the same measure between"
  echo "llvmpipe and softpipe, for scale."
  echo
  echo "| program | glmark2 score (mean FPS) sgx535 | softpipe | llvmpipe |"
  echo "|---|---|---|---|"
  for app in glmark2 glmark2-es2; do
    printf '| %s' "$app"
    for d in "${DRIVERS[@]}"; do
      printf ' | %s' "$(awk -v s="${SCORE_SUM[$app-$d]:-0}" -v n="${SCORE_N[$app-$d]:-0}" \
        'BEGIN { if (n) printf "%.1f (%d scenes)", s / n, n; else print "-" }')"
    done
    echo " |"
  done
  echo
  echo "| program | scene | sgx535 FPS | softpipe FPS | llvmpipe FPS | differs % | llvmpipe % | result | screenshot | why (mesa/ci/apps-fails.txt) |"
  echo "|---|---|---|---|---|---|---|---|---|---|"
  cat "$ROWS"
  echo
  echo "Results: $(grep -c '\*\*pass\*\*' "$ROWS") pass of $(wc -l <"$ROWS") scenes;" \
    "$UNEXPECTED differ from mesa/ci/apps-fails.txt."
} >"$TABLE"

if [ $RECORD = 1 ]; then
  cp "$TABLE" "$HERE/ci/apps.md"
  rm -rf "$HERE/docs/apps" && mkdir -p "$HERE/docs/apps"
  for f in "$OUT"/*-sgx535.png; do cp "$f" "$HERE/docs/apps/"; done
  # softpipe's picture beside each scene that does not pass, to see what it should be.
  grep -v '\*\*pass\*\*' "$ROWS" | sed -n 's/^| [^|]* | `\([^`]*\)`.*/\1/p' | while read -r n; do
    [ -f "$OUT/$n-softpipe.png" ] && cp "$OUT/$n-softpipe.png" "$HERE/docs/apps/"
  done
  echo "mesa/apps.sh: recorded mesa/ci/apps.md and mesa/docs/apps/"
fi
echo "mesa/apps.sh: $UNEXPECTED unexpected result(s) in ${ELAPSED}s; table in $TABLE"
exit "$UNEXPECTED"
