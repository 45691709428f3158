/*
 * Copyright 2026 the sgx535 authors
 * SPDX-License-Identifier: MIT
 */
#ifndef SGX535_DRM_PUBLIC_H
#define SGX535_DRM_PUBLIC_H

struct pipe_screen;
struct pipe_screen_config;

struct pipe_screen *sgx535_drm_screen_create(int fd, const struct pipe_screen_config *config);

#endif
