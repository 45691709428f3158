# source mesa/env.sh — makes GL programs in this shell load the Mesa that mesa/build.sh built
# (not the system's Mesa, which has the same version string) and this checkout's libsgx535.
# Then: GALLIUM_DRIVER=sgx535 LIBGL_ALWAYS_SOFTWARE=1 glxgears
_sgx535_prefix=${SGX535_CACHE:-/var/cache/sgx535}/mesa-22.3.6/prefix
if [ ! -f "$_sgx535_prefix/.key" ]; then
  echo "mesa/env.sh: no built Mesa in $_sgx535_prefix: run mesa/build.sh first" >&2
  return 1 2>/dev/null || exit 1
fi
SGX535_MESA_PREFIX=$_sgx535_prefix
export SGX535_MESA_PREFIX
# glvnd dlopens libGLX_mesa.so.0 / libEGL_mesa.so.0 by name: the library path decides which.
# SGX535_LIBDIR: a folder holding libsgx535.so.0 to load instead of the one the build linked.
export LD_LIBRARY_PATH="$_sgx535_prefix/lib:${SGX535_LIBDIR:-$(cat "$_sgx535_prefix/.capi-libdir")}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export LIBGL_DRIVERS_PATH=$_sgx535_prefix/lib/dri
export __GLX_VENDOR_LIBRARY_NAME=mesa
export __EGL_VENDOR_LIBRARY_FILENAMES=$_sgx535_prefix/share/glvnd/egl_vendor.d/50_mesa.json
export GBM_BACKENDS_PATH=$_sgx535_prefix/lib/gbm
unset _sgx535_prefix
