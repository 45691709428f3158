/*
 * libsgx535 reached both ways a program can: through direct symbols (this program links
 * -lsgx535) and through the versioned table (dlopen of the SONAME, dlsym of
 * sgx535_get_interface, in the manner of libglvnd's vendor libraries).
 *
 * Checks that
 *   - the table of the caller's version has the library's version and one slot per entry of
 *     the checked-in ABI list (capi/abi/sgx535-MAJOR.MINOR.txt, given as argv[1]), in order,
 *     each slot the very function the exported symbol of that name is;
 *   - dlopen of libsgx535.so.MAJOR gives the library this program is linked against;
 *   - the same work through the table and through the symbols gives the same answers.
 *
 * The SONAME comes from the header (SGX535_SONAME), the ABI version too.
 *
 * usage: linkcheck ABI_LIST. Exit status 0 when every check passes.
 */
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <sgx535.h>
#include <sgx535_pipe.h>

#include "example_util.h"


typedef void (*entry_fn)(void);

static int failures;

static void expect(int ok, const char *what)
{
    printf("%s %s\n", ok ? "ok  " : "FAIL", what);
    failures += !ok;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s capi/abi/sgx535-%d.%d.txt\n", argv[0], SGX535_ABI_MAJOR,
                SGX535_ABI_MINOR);
        return 2;
    }
    const char *soname = SGX535_SONAME;
    void *lib = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "dlopen %s: %s\n", soname, dlerror());
        return 1;
    }
    const sgx535_interface *(*get_interface)(uint32_t, uint32_t);
    void *sym = dlsym(lib, "sgx535_get_interface");
    memcpy(&get_interface, &sym, sizeof sym);
    expect(sym != NULL, "dlsym(sgx535_get_interface)");
    if (!sym)
        return 1;
    const sgx535_interface *itf = get_interface(SGX535_ABI_MAJOR, SGX535_ABI_MINOR);
    /* A newer library may have a larger minor; with minor 0, "at least" is "any". */
    const uint32_t header_minor = SGX535_ABI_MINOR;
    expect(itf && itf->major == SGX535_ABI_MAJOR && itf->minor + 1 > header_minor,
           "the table of this header's version, from the dlopened library");
    expect(itf == sgx535_get_interface(SGX535_ABI_MAJOR, SGX535_ABI_MINOR),
           "dlopen and the link give one library: the same table");
    if (!itf)
        return 1;

    /* Every slot, in the order of the checked-in list, is the exported symbol of its name. */
    FILE *list = fopen(argv[1], "r");
    if (!list) {
        perror(argv[1]);
        return 1;
    }
    const size_t first_B = offsetof(sgx535_interface, screen_create);
    const size_t slots = (sizeof(sgx535_interface) - first_B) / sizeof(entry_fn);
    size_t n = 0, mismatched = 0;
    char name[128];
    while (fscanf(list, "%127s", name) == 1) {
        void *exported = dlsym(lib, name);
        entry_fn slot = NULL;
        if (n < slots)
            memcpy(&slot, (const unsigned char *)itf + first_B + n * sizeof slot, sizeof slot);
        if (!exported || n >= slots || memcmp(&slot, &exported, sizeof slot) != 0) {
            printf("FAIL slot %zu: %s (exported: %s)\n", n, name, exported ? "yes" : "NO");
            mismatched++;
        }
        n++;
    }
    fclose(list);
    char line[160];
    snprintf(line, sizeof line,
             "%zu entries listed, %zu slots in sgx535_interface, each slot the exported symbol",
             n, slots);
    expect(n == slots && mismatched == 0, line);

    /* The same work both ways. */
    sgx535_device_desc desc = {.kind = SGX535_DEVICE_MODEL, .fd = -1, .path = NULL};
    sgx535_screen direct, tabled;
    CHECK(sgx535_screen_create(&desc, &direct));
    CHECK(itf->screen_create(&desc, &tabled));
    int32_t max_direct = 0, max_tabled = 0;
    CHECK(sgx535_screen_get_param(direct, PIPE_CAP_MAX_TEXTURE_2D_SIZE, &max_direct));
    CHECK(itf->screen_get_param(tabled, PIPE_CAP_MAX_TEXTURE_2D_SIZE, &max_tabled));
    snprintf(line, sizeof line, "PIPE_CAP_MAX_TEXTURE_2D_SIZE: %d directly, %d through the table",
             max_direct, max_tabled);
    expect(max_direct == max_tabled && max_direct > 0, line);
    /* One handle table behind both: a screen made one way is destroyed the other. */
    expect(itf->screen_destroy(direct) == SGX535_OK, "table destroys the directly made screen");
    expect(sgx535_screen_destroy(tabled) == SGX535_OK, "symbol destroys the table's screen");
    expect(sgx535_screen_destroy(direct) == SGX535_ERROR_INVALID_HANDLE &&
               strlen(itf->last_error_message()) > 0,
           "a destroyed screen is refused, and the table's last_error_message says why");

    dlclose(lib);
    printf("%s\n", failures ? "linkcheck: FAILED" : "linkcheck: both ways reach one library");
    return failures ? 1 : 0;
}
