// sgx535.h and sgx535_pipe.h must compile as C++ (g++ -Wall -Wextra -Werror -pedantic): an
// emulator's GL layer is often C++. This includes them, uses their types, enums and numbers,
// and takes the address of entry points.
#include <sgx535.h>
#include <sgx535_pipe.h>

#include <cstdio>

static_assert(SGX535_OK == 0, "SGX535_OK is 0");
static_assert(sizeof(sgx535_screen) == 8, "handles are 64-bit values");

int main()
{
    sgx535_device_desc desc = {SGX535_DEVICE_MODEL, -1, nullptr};
    sgx535_screen screen = {0};
    sgx535_status (*create)(const sgx535_device_desc *, sgx535_screen *) = sgx535_screen_create;
    const sgx535_interface *itf = sgx535_get_interface(SGX535_ABI_MAJOR, SGX535_ABI_MINOR);
    sgx535_status s = create(&desc, &screen);
    int32_t max_px = 0;
    if (s == SGX535_OK)
        s = itf->screen_get_param(screen, PIPE_CAP_MAX_TEXTURE_2D_SIZE, &max_px);
    if (s == SGX535_OK)
        s = itf->screen_destroy(screen);
    std::printf("header_check: C++ sees sgx535.h and sgx535_pipe.h; max texture %d px; %s\n",
                max_px, s == SGX535_OK ? "ok" : sgx535_last_error_message());
    return s == SGX535_OK ? 0 : 1;
}
