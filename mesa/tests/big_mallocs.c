/*
 * Copyright 2026 the sgx535 authors
 * SPDX-License-Identifier: MIT
 *
 * LD_PRELOAD library for mesa/test.sh: counts the process's malloc calls of at least
 * BIG_MALLOC_MIN_B bytes (default 256 KiB) and prints "big_mallocs: N" to stderr at exit. A
 * draw loop that allocates a staging buffer per draw shows up as a count in the hundreds of
 * thousands; setting up a context, as a few dozen.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

/* glibc's own entry point: malloc here without dlsym, which may itself allocate. */
extern void *__libc_malloc(size_t size);

static atomic_ulong big_count;
static size_t big_min_B = 256 * 1024;

__attribute__((constructor)) static void
big_mallocs_init(void)
{
   const char *s = getenv("BIG_MALLOC_MIN_B");
   if (s && *s)
      big_min_B = strtoull(s, NULL, 10);
}

void *
malloc(size_t size)
{
   if (size >= big_min_B)
      atomic_fetch_add_explicit(&big_count, 1, memory_order_relaxed);
   return __libc_malloc(size);
}

__attribute__((destructor)) static void
big_mallocs_report(void)
{
   fprintf(stderr, "big_mallocs: %lu\n", atomic_load(&big_count));
}
