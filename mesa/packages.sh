# Sourced by mesa/test.sh and mesa/apps.sh: what both do before their checks.
# shellcheck shell=bash

# sgx535_install_packages WHO PACKAGE...: installs (apt-get, quietly) those of the packages
# that are not installed, saying so as WHO on stderr. Fails when apt-get fails.
sgx535_install_packages() {
  local who=$1 p
  local missing=()
  shift
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "$who: installing ${missing[*]}" >&2
  apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
    --no-install-recommends "${missing[@]}" >/dev/null
}

# sgx535_exec_under_xvfb SCRIPT ARG...: runs SCRIPT again with its arguments under its own
# Xvfb (xvfb-run), with SGX535_TEST_DISPLAY=1 saying that DISPLAY is one; does not return.
sgx535_exec_under_xvfb() {
  # -noreset: without it Xvfb resets when its last client leaves, and quick reconnects fail.
  exec env SGX535_TEST_DISPLAY=1 xvfb-run -a -s "-noreset -screen 0 1024x768x24" "$@"
}
