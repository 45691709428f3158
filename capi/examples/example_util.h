/*
 * What every example does after a call: stop with the library's reason when it failed.
 */
#ifndef SGX535_EXAMPLES_UTIL_H
#define SGX535_EXAMPLES_UTIL_H

#include <stdio.h>
#include <stdlib.h>

#include <sgx535.h>

static inline const char *status_name(sgx535_status s)
{
    switch (s) {
    case SGX535_OK: return "SGX535_OK";
    case SGX535_ERROR_INVALID_ARGUMENT: return "SGX535_ERROR_INVALID_ARGUMENT";
    case SGX535_ERROR_INVALID_HANDLE: return "SGX535_ERROR_INVALID_HANDLE";
    case SGX535_ERROR_OUT_OF_MEMORY: return "SGX535_ERROR_OUT_OF_MEMORY";
    case SGX535_ERROR_DEVICE_LOST: return "SGX535_ERROR_DEVICE_LOST";
    case SGX535_ERROR_TIMEOUT: return "SGX535_ERROR_TIMEOUT";
    case SGX535_ERROR_UNSUPPORTED: return "SGX535_ERROR_UNSUPPORTED";
    case SGX535_ERROR_GPU_FAULT: return "SGX535_ERROR_GPU_FAULT";
    case SGX535_ERROR_INTERNAL: return "SGX535_ERROR_INTERNAL";
    case SGX535_ERROR_NO_DEVICE: return "SGX535_ERROR_NO_DEVICE";
    }
    return "(not a sgx535_status)";
}

static inline void check_at(sgx535_status s, const char *call, const char *file, int line)
{
    if (s != SGX535_OK) {
        fprintf(stderr, "%s:%d: %s: %s: %s\n", file, line, call, status_name(s),
                sgx535_last_error_message());
        exit(1);
    }
}

/* CHECK(sgx535_xxx(...)): the call must succeed. */
#define CHECK(call) check_at((call), #call, __FILE__, __LINE__)

#endif
