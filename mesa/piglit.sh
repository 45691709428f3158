#!/usr/bin/env bash
# piglit through the Mesa driver: GLSL 1.10/1.20 execution, `spec/!opengl 1.0`..`2.1`,
# fbo-generatemipmap* and the GL 1.x format tests, each test run alone (shader_runner or the
# test's binary, `-auto -fbo` as piglit runs it).
#
#   mesa/piglit.sh                 the short list (~300 tests) on sgx535; exit 1 on a crash or a
#                                  failure mesa/ci/sgx535-fails.txt / -skips.txt do not expect
#   mesa/piglit.sh --full          every selected test on sgx535 and on softpipe (same GL 2.1 /
#                                  GLSL 1.20 overrides; softpipe without the extensions sgx535
#                                  lacks), in one run; writes mesa/ci/results.md
#   mesa/piglit.sh --full --update also rewrites the fails/skips lists (reasons kept)
#   mesa/piglit.sh --filter REGEX  only the matching tests, both drivers
#   ... --resume                   keep the results of an interrupted run, run the rest
# Per-test results: target/mesa-piglit/results.txt (driver,test,result,first line of output).
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if [ "${SGX535_TEST_DISPLAY:-0}" != 1 ]; then
  exec env SGX535_TEST_DISPLAY=1 xvfb-run -a -s "-noreset -screen 0 1024x768x24" "$0" "$@"
fi
# shellcheck source=mesa/env.sh
source "$HERE/env.sh" || exit 1
exec python3 "$HERE/piglit_run.py" "$@"
