/*
 * Copyright 2026 the sgx535 authors
 * SPDX-License-Identifier: MIT
 *
 * The sgx535 Gallium driver: a thin layer over libsgx535's C ABI. Every
 * Gallium callback converts its arguments into the ABI's plain structs (which
 * use Gallium's own enum numbering) and makes one call; the library does the
 * work. This header holds the driver's objects and its shared helpers.
 */
#ifndef SGX535_SCREEN_H
#define SGX535_SCREEN_H

#include <sgx535.h>

#include "pipe/p_context.h"
#include "pipe/p_screen.h"
#include "pipe/p_state.h"
#include "util/list.h"
#include "util/simple_mtx.h"

struct sw_winsys;
struct sw_displaytarget;

struct sgx535g_screen {
   struct pipe_screen base;
   sgx535_screen lib;
   /* Software window system (NULL on the DRM path): frames are copied from
    * the library's resource into its display target at flush_frontbuffer. */
   struct sw_winsys *winsys;
   /* A context of the screen's own for reads with no context given
    * (flush_frontbuffer with ctx == NULL); the mutex serialises its use. */
   simple_mtx_t internal_mtx;
   sgx535_context internal_ctx;
   /* Front buffers made by resource_create_front (sgx535g_resource.front_link),
    * so that presenting a back buffer also updates its drawable's front. */
   simple_mtx_t fronts_mtx;
   struct list_head fronts;
   bool print_stats;
   /* The caps, asked of the library once at screen creation: st/mesa asks
    * them thousands of times, and again while the process exits. */
   bool caps_cached;
   int caps[PIPE_CAP_LAST];
   float capsf[PIPE_CAPF_CONSERVATIVE_RASTER_DILATE_GRANULARITY + 1];
   int shader_caps[PIPE_SHADER_TYPES][PIPE_SHADER_CAP_MAX_HW_ATOMIC_COUNTER_BUFFERS + 1];
};

struct sgx535g_context {
   struct pipe_context base;
   sgx535_context lib;
   struct primconvert_context *primconvert;
   unsigned primconvert_modes; /* PIPE_PRIM_* bits the library draws itself */
   /* Reset status seen by the last failing call: GL_OUT_OF_MEMORY /
    * context loss reach the application through get_device_reset_status. */
   enum pipe_reset_status reset_status;
   struct pipe_device_reset_callback reset_cb;
   /* References held while bound, as the objects' handles are used by the
    * library until unbound. */
   struct pipe_framebuffer_state fb;
   struct pipe_resource *vb[PIPE_MAX_ATTRIBS];
   /* What each vertex buffer slot was last set to in the library (user_size
    * ~0 when unknown: after a refused call). A call that sets every slot to
    * what it holds is not made: st/mesa sets the vertex buffers again before
    * every draw whose arrays it revalidated, mostly unchanged (u_vbuf, which
    * did this comparison before, is out of the draw path). */
   sgx535_vertex_buffer vb_set[PIPE_MAX_ATTRIBS];
   /* References to vb[i] beyond the slot's own, handed over by st/mesa
    * (take_ownership) for the buffer the slot already holds: kept and
    * dropped together when the slot changes (sgx535g_vb_release), not one
    * locked decrement per draw. */
   unsigned vb_extra_refs[PIPE_MAX_ATTRIBS];
   struct pipe_resource *cb[PIPE_SHADER_TYPES][PIPE_MAX_CONSTANT_BUFFERS];
   struct pipe_sampler_view *views[PIPE_SHADER_TYPES][PIPE_MAX_SHADER_SAMPLER_VIEWS];
   /* The last write-only FLUSH_EXPLICIT map's memory, kept for the next: the
    * upload manager maps the rest of its buffer (up to megabytes) before every
    * draw, and a fresh allocation of that size each time cost page faults and
    * malloc_consolidate in drawoverhead. */
   uint8_t *spare_staging;
   unsigned spare_staging_B;
   /* The last unmapped transfer, kept for the next map: the upload manager maps
    * once a draw, and the allocation and free of one was 2% of drawoverhead's
    * test 6. */
   struct sgx535g_transfer *spare_transfer;
};

struct sgx535g_resource {
   struct pipe_resource base;
   sgx535_resource lib;
   struct sw_displaytarget *dt; /* display target (software window system) */
   unsigned dt_stride_B;
   /* The drawable whose front buffer this is (resource_create_front), else NULL. */
   const void *front_private;
   struct list_head front_link;
};

struct sgx535g_transfer {
   struct pipe_transfer base;
   sgx535_transfer lib;
   /* A write-only FLUSH_EXPLICIT buffer map: the caller's bytes, of which only the ranges
    * flush_region names reach the buffer (NULL for the library's own staging). */
   uint8_t *explicit_staging;
   unsigned explicit_staging_B;
};

struct sgx535g_surface {
   struct pipe_surface base;
   sgx535_surface lib;
};

struct sgx535g_sampler_view {
   struct pipe_sampler_view base;
   sgx535_sampler_view lib;
};

struct sgx535g_fence {
   struct pipe_reference reference;
   sgx535_fence lib;
};

struct sgx535g_query {
   sgx535_query lib;
   enum pipe_query_type type;
};

static inline struct sgx535g_screen *
sgx535g_screen(struct pipe_screen *pscreen)
{
   return (struct sgx535g_screen *)pscreen;
}

static inline struct sgx535g_context *
sgx535g_context(struct pipe_context *pctx)
{
   return (struct sgx535g_context *)pctx;
}

static inline struct sgx535g_resource *
sgx535g_resource(struct pipe_resource *pres)
{
   return (struct sgx535g_resource *)pres;
}

static inline sgx535_resource
sgx535g_resource_handle(struct pipe_resource *pres)
{
   return pres ? sgx535g_resource(pres)->lib : (sgx535_resource){0};
}

static inline sgx535_surface
sgx535g_surface_handle(struct pipe_surface *psurf)
{
   return psurf ? ((struct sgx535g_surface *)psurf)->lib : (sgx535_surface){0};
}

/* Logs a failed call with the library's message; returns true when it
 * succeeded. A context's failure is also recorded for the application. */
bool sgx535g_check(sgx535_status status, const char *call);
bool sgx535g_ctx_check(struct sgx535g_context *ctx, sgx535_status status, const char *call);
/* Reports the context's failed render jobs (GL_KHR_debug errors; a fault also
 * as a reset; a render out of memory leaves the context usable). */
void sgx535g_report_job_failures(struct sgx535g_context *ctx);
/* Marks the context's work lost, once, and tells the frontend's reset
 * callback: as the library's reset status when it knows whose job caused the
 * reset, else as `fallback`. */
void sgx535g_mark_reset(struct sgx535g_context *ctx, enum pipe_reset_status fallback);

struct pipe_screen *sgx535g_screen_create_lib(const sgx535_device_desc *desc, struct sw_winsys *winsys);

struct pipe_context *sgx535g_context_create(struct pipe_screen *pscreen, void *priv, unsigned flags);

void sgx535g_init_resource_functions(struct sgx535g_screen *screen);
void sgx535g_init_transfer_functions(struct sgx535g_context *ctx);
void sgx535g_init_state_functions(struct sgx535g_context *ctx);
void sgx535g_vb_release(struct sgx535g_context *ctx, unsigned slot);
void sgx535g_init_shader_functions(struct sgx535g_context *ctx);
void sgx535g_init_draw_functions(struct sgx535g_context *ctx);
void sgx535g_init_query_functions(struct sgx535g_context *ctx);
void sgx535g_init_fence_functions(struct sgx535g_screen *screen);

struct pipe_fence_handle *sgx535g_fence_wrap(sgx535_fence lib);

#endif
