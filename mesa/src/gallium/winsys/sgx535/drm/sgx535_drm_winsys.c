/*
 * Copyright 2026 the sgx535 authors
 * SPDX-License-Identifier: MIT
 *
 * The DRM winsys of Mesa's side is empty: BOs, jobs and fences are the
 * library's (its own drm winsys speaks the render node's ioctls). This only
 * hands the loader's fd over; the library dups it.
 */
#include "sgx535_drm_public.h"

#include "sgx535/sgx535_public.h"

struct pipe_screen *
sgx535_drm_screen_create(int fd, const struct pipe_screen_config *config)
{
   return sgx535_screen_create_drm(fd);
}
