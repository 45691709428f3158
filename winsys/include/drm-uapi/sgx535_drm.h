/* SPDX-License-Identifier: MIT */
/*
 * sgx535 DRM uapi: what this project's userspace asks of a kernel driver for the PowerVR SGX535
 * of Intel's Poulsbo (GMA500). Shaped after lima_drm.h.
 *
 * NO KERNEL IMPLEMENTS THIS INTERFACE TODAY. Upstream gma500 registers no driver ioctls (modeset
 * and dumb GEM buffers only; no 3D completion interrupt, fences or scheduler). The interface is
 * served by the project's drm-shim (winsys/shim), an LD_PRELOAD library that presents a render
 * node backed by the device model, so that the winsys's ioctl path runs end to end in tests.
 *
 * Every wait timeout is an absolute CLOCK_MONOTONIC time in nanoseconds, as in lima.
 */
#ifndef __SGX535_DRM_H__
#define __SGX535_DRM_H__

#include "drm.h"

#if defined(__cplusplus)
extern "C" {
#endif

/* The name DRM_IOCTL_VERSION reports; userspace refuses a node whose driver is not this. */
#define SGX535_DRIVER_NAME "sgx535"

enum drm_sgx535_param {
	/* CORE_REVISION register (0x14) as read at probe. */
	DRM_SGX535_PARAM_CORE_REVISION = 0,
	/* First GPU virtual address the kernel hands out to buffers. */
	DRM_SGX535_PARAM_VA_START = 1,
	/* One past the last GPU virtual address the kernel hands out. */
	DRM_SGX535_PARAM_VA_END = 2,
	/* GPU MMU page size in bytes. */
	DRM_SGX535_PARAM_PAGE_SIZE = 3,
	/* 1 when the GPU behind the node is the device model (drm-shim), 0 for hardware. */
	DRM_SGX535_PARAM_IS_MODEL = 4,
	/* MODEL: how long a job may run before the watchdog ends it (HANG) and resets the GPU,
	 * in milliseconds. gma500 has no watchdog; this is the project's definition. */
	DRM_SGX535_PARAM_HANG_BUDGET_MS = 5,
};

/* Gets one device parameter. */
struct drm_sgx535_get_param {
	__u32 param; /* in, enum drm_sgx535_param */
	__u32 pad;   /* in, must be zero */
	__u64 value; /* out */
};

/* CPU mappings are cached (otherwise write-combined). */
#define SGX535_BO_CACHED        (1 << 0)
/* The GPU MMU maps the buffer read-only; a job may not list it for writing. */
#define SGX535_BO_GPU_READ_ONLY (1 << 1)

/* Creates a buffer, mapped into the GPU address space at creation. */
struct drm_sgx535_gem_create {
	__u32 size;     /* in, bytes; rounded up to pages */
	__u32 flags;    /* in, SGX535_BO_* */
	__u32 va_align; /* in, GPU address alignment in bytes, a power of two; 0 means one page */
	__u32 handle;   /* out, GEM handle */
};

/* Gets a buffer's GPU address and its CPU mmap offset on the render node. */
struct drm_sgx535_gem_info {
	__u32 handle; /* in */
	__u32 va;     /* out, GPU virtual address */
	__u64 offset; /* out, pass to mmap() on the render node */
};

/* Access of one buffer by a job; the kernel orders the job after the buffer's implicit fences. */
#define SGX535_SUBMIT_BO_READ  0x01
#define SGX535_SUBMIT_BO_WRITE 0x02

struct drm_sgx535_gem_submit_bo {
	__u32 handle; /* in */
	__u32 flags;  /* in, SGX535_SUBMIT_BO_* */
};

/* One register write of a job's register list. */
struct drm_sgx535_reg {
	__u32 offset; /* in, byte offset in the SGX register block, 4-byte aligned */
	__u32 value;  /* in */
};

/* A render: the TA phase (regs_ta, ending with VDM_START), then the 3D phase (regs_3d, ending with
 * ISP_START_RENDER). The model runs both phases as one job, so they are submitted together. */
#define SGX535_PIPE_TA_3D 0x00
/* A 2D job: regs_2d, ending with TWOD_START. */
#define SGX535_PIPE_2D    0x01

/* Submits one job. Register lists that the pipe does not use must be empty. */
struct drm_sgx535_gem_submit {
	__u32 ctx;         /* in, context from CTX_CREATE */
	__u32 pipe;        /* in, SGX535_PIPE_* */
	__u32 nr_bos;      /* in, length of bos */
	__u32 nr_in_syncs; /* in, length of in_syncs */
	__u32 nr_regs_ta;  /* in, length of regs_ta */
	__u32 nr_regs_3d;  /* in, length of regs_3d */
	__u32 nr_regs_2d;  /* in, length of regs_2d */
	__u32 out_sync;    /* in, syncobj signalled when the job finishes; 0 for none */
	__u64 bos;         /* in, pointer to struct drm_sgx535_gem_submit_bo[nr_bos] */
	__u64 in_syncs;    /* in, pointer to __u32[nr_in_syncs]: syncobjs to wait for first */
	__u64 regs_ta;     /* in, pointer to struct drm_sgx535_reg[nr_regs_ta] */
	__u64 regs_3d;     /* in, pointer to struct drm_sgx535_reg[nr_regs_3d] */
	__u64 regs_2d;     /* in, pointer to struct drm_sgx535_reg[nr_regs_2d] */
	__u32 flags;       /* in, must be zero */
	__u32 pad;         /* in, must be zero */
	__u64 job_id;      /* out, device-wide job number, for JOB_INFO */
};

/* CPU wants to read (wait for the writer) or write (wait for everything) the buffer. */
#define SGX535_GEM_WAIT_READ  0x01
#define SGX535_GEM_WAIT_WRITE 0x02

/* Waits until a buffer is idle for the given CPU access; fails with ETIME at the timeout. */
struct drm_sgx535_gem_wait {
	__u32 handle;     /* in */
	__u32 op;         /* in, SGX535_GEM_WAIT_* */
	__s64 timeout_ns; /* in, absolute CLOCK_MONOTONIC time */
};

/* Creates a context. */
struct drm_sgx535_ctx_create {
	__u32 id;  /* out */
	__u32 pad; /* must be zero */
};

/* Frees a context. */
struct drm_sgx535_ctx_free {
	__u32 id;  /* in */
	__u32 pad; /* must be zero */
};

/* How a job ended (JOB_INFO). */
enum drm_sgx535_job_state {
	DRM_SGX535_JOB_PENDING = 0,             /* not finished (queued, running, or hung) */
	DRM_SGX535_JOB_DONE = 1,
	DRM_SGX535_JOB_FAULT = 2,               /* MMU fault: unit, addr, write */
	DRM_SGX535_JOB_OUT_OF_MEMORY = 3,       /* parameter memory exhausted */
	DRM_SGX535_JOB_ILLEGAL_INSTRUCTION = 4, /* unit, addr = PC, reason */
	DRM_SGX535_JOB_BAD_STATE = 5,           /* unit, reason */
	DRM_SGX535_JOB_FAILED = 6,              /* reason */
	DRM_SGX535_JOB_LOST = 7,                /* the device was lost before the job finished */
	DRM_SGX535_JOB_HANG = 8,                /* ran past the hang budget; the GPU was reset */
	DRM_SGX535_JOB_CANCELED = 9,            /* queued behind its own context's hang or MMU
	                                         * fault; never ran (the reset dropped it) */
};

/* Job counters, in this order in drm_sgx535_job_info.counters. */
enum drm_sgx535_counter {
	DRM_SGX535_COUNTER_TILES_RENDERED = 0,
	DRM_SGX535_COUNTER_TILES_LOADED = 1,
	DRM_SGX535_COUNTER_TILES_STORED = 2,
	DRM_SGX535_COUNTER_PIXELS_SHADED = 3,
	DRM_SGX535_COUNTER_TEXELS_FETCHED = 4,
	DRM_SGX535_COUNTER_USSE_INSTRUCTIONS = 5,
	DRM_SGX535_COUNTER_PBE_BYTES_WRITTEN = 6,
	DRM_SGX535_COUNTER_PRIMS_BINNED = 7,
	DRM_SGX535_COUNTER_PB_BYTES_USED = 8,
	DRM_SGX535_NUM_COUNTERS = 9,
};

#define SGX535_REASON_LEN 96

/* Reports how a job ended: the fence of a syncobj carries no error, so userspace asks here. */
struct drm_sgx535_job_info {
	__u64 job_id;        /* in, from GEM_SUBMIT */
	__u32 state;         /* out, enum drm_sgx535_job_state */
	__u32 unit;          /* out, unit in BIF_INT_STAT order: 0 cache, 1 TA, 2 VDM, 3 2D, 4 PBE,
	                      * 5 TSP, 6 ISP, 7 USSE/PDS, 8 host */
	__u32 addr;          /* out, fault address, or PC of an illegal instruction */
	__u32 write;         /* out, 1 if the fault was a write */
	__u32 events;        /* out, EVENT_STATUS bits the job raised */
	__u32 events2;       /* out, EVENT_STATUS2 bits the job raised */
	__u32 bif_int_stat;  /* out, BIF_INT_STAT as the fault left it */
	__u32 pad;           /* must be zero */
	__u64 start_cycles;  /* out, core clock when the job started */
	__u64 end_cycles;    /* out, core clock when it ended */
	__u64 counters[DRM_SGX535_NUM_COUNTERS]; /* out, enum drm_sgx535_counter order */
	__u8 reason[SGX535_REASON_LEN];          /* out, NUL-terminated text for some states */
};

/* CTX_RESET_STATUS flags. */
/* The context caused at least one reset (a job of it hung or faulted). */
#define SGX535_CTX_GUILTY 0x01

/* MODEL: what a context learns about GPU resets, as amdgpu's CTX_OP_QUERY_STATE2 and i915's
 * GET_RESET_STATS tell it. gma500 has no such ioctl (it has no 3D job submission at all); the
 * drm-shim serves it. A reset happens when the watchdog ends a hung job (JOB_HANG) and when a
 * job takes an MMU fault (JOB_FAULT): the GPU is reset, the job's context is guilty, and that
 * context's jobs queued behind it end CANCELED; other contexts' jobs run as they would have. */
struct drm_sgx535_ctx_reset_status {
	__u32 ctx;    /* in, context from CTX_CREATE (of this file) */
	__u32 flags;  /* out, SGX535_CTX_* */
	__u32 resets; /* out, GPU resets since the device was probed, whoever caused them */
	__u32 guilty; /* out, how many of those this context caused */
};

#define DRM_SGX535_GET_PARAM  0x00
#define DRM_SGX535_GEM_CREATE 0x01
#define DRM_SGX535_GEM_INFO   0x02
#define DRM_SGX535_GEM_SUBMIT 0x03
#define DRM_SGX535_GEM_WAIT   0x04
#define DRM_SGX535_CTX_CREATE 0x05
#define DRM_SGX535_CTX_FREE   0x06
#define DRM_SGX535_JOB_INFO   0x07
#define DRM_SGX535_CTX_RESET_STATUS 0x08

#define DRM_IOCTL_SGX535_GET_PARAM  DRM_IOWR(DRM_COMMAND_BASE + DRM_SGX535_GET_PARAM, struct drm_sgx535_get_param)
#define DRM_IOCTL_SGX535_GEM_CREATE DRM_IOWR(DRM_COMMAND_BASE + DRM_SGX535_GEM_CREATE, struct drm_sgx535_gem_create)
#define DRM_IOCTL_SGX535_GEM_INFO   DRM_IOWR(DRM_COMMAND_BASE + DRM_SGX535_GEM_INFO, struct drm_sgx535_gem_info)
#define DRM_IOCTL_SGX535_GEM_SUBMIT DRM_IOWR(DRM_COMMAND_BASE + DRM_SGX535_GEM_SUBMIT, struct drm_sgx535_gem_submit)
#define DRM_IOCTL_SGX535_GEM_WAIT   DRM_IOW(DRM_COMMAND_BASE + DRM_SGX535_GEM_WAIT, struct drm_sgx535_gem_wait)
#define DRM_IOCTL_SGX535_CTX_CREATE DRM_IOR(DRM_COMMAND_BASE + DRM_SGX535_CTX_CREATE, struct drm_sgx535_ctx_create)
#define DRM_IOCTL_SGX535_CTX_FREE   DRM_IOW(DRM_COMMAND_BASE + DRM_SGX535_CTX_FREE, struct drm_sgx535_ctx_free)
#define DRM_IOCTL_SGX535_JOB_INFO   DRM_IOWR(DRM_COMMAND_BASE + DRM_SGX535_JOB_INFO, struct drm_sgx535_job_info)
#define DRM_IOCTL_SGX535_CTX_RESET_STATUS DRM_IOWR(DRM_COMMAND_BASE + DRM_SGX535_CTX_RESET_STATUS, struct drm_sgx535_ctx_reset_status)

#if defined(__cplusplus)
}
#endif

#endif /* __SGX535_DRM_H__ */
