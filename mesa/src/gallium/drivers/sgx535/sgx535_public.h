/*
 * Copyright 2026 the sgx535 authors
 * SPDX-License-Identifier: MIT
 */
#ifndef SGX535_PUBLIC_H
#define SGX535_PUBLIC_H

struct pipe_screen;
struct sw_winsys;

/* The software window system's screen (GALLIUM_DRIVER=sgx535 in swrast_dri.so):
 * the device is the one SGX535_DEVICE names, the model by default. */
struct pipe_screen *sgx535_screen_create_sw(struct sw_winsys *winsys);

/* A screen on an open DRM render node (the library dups fd). */
struct pipe_screen *sgx535_screen_create_drm(int fd);

#endif
