/*
 * The seed experiment through libsgx535's C ABI: a 64x64 B8G8R8A8 texture with its full mip
 * chain on the device model, level 0 uploaded, sgx535_generate_mipmap, then every level read
 * back and compared byte for byte with
 *   - the library's CPU mip generator, driven through the same ABI without a device
 *     (sgx535_layout_compute + layout_write_rect + layout_generate_mipmap + layout_read_rect),
 *   - and the value this program computes itself: level 0 is linear in x and y with even
 *     slopes, so every 2x2 average of every level is an exact integer and no rounding rule
 *     of the GPU or the CPU generator can hide a wrong texel.
 * The device's counters show the GPU did the work: one submission per generated level.
 *
 * Exit status 0 when every level of both routes matches.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sgx535.h>
#include <sgx535_pipe.h>

#include "example_util.h"

enum { SIZE_PX = 64, LEVELS = 7, BPP_B = 4 };

/*
 * Level `level`'s texel (x, y), channel c (B, G, R, A in memory order). Level 0 is
 * k + sx*x + sy*y per channel; a 2x2 average of a level is then the next level's formula
 * with slopes doubled and k raised by (sx + sy) / 2, an integer because sx + sy is even.
 */
static uint8_t expected(unsigned level, unsigned x, unsigned y, unsigned c)
{
    static const unsigned sx[4] = {2, 4, 0, 0}, sy[4] = {2, 0, 4, 2}, k[4] = {1, 0, 3, 0};
    unsigned scale = 1u << level;
    unsigned v = k[c] + scale * sx[c] * x + scale * sy[c] * y + (scale - 1) * (sx[c] + sy[c]) / 2;
    return (uint8_t)v;
}

static void make_level0(uint8_t *texels)
{
    for (unsigned y = 0; y < SIZE_PX; y++)
        for (unsigned x = 0; x < SIZE_PX; x++)
            for (unsigned c = 0; c < BPP_B; c++)
                texels[(y * SIZE_PX + x) * BPP_B + c] = expected(0, x, y, c);
}

/* The first texel where `got` (rows `stride_B` apart) differs from `want` (packed), or -1. */
static long first_difference(const uint8_t *got, uint32_t stride_B, const uint8_t *want,
                             unsigned w, unsigned h)
{
    for (unsigned y = 0; y < h; y++)
        if (memcmp(got + (size_t)y * stride_B, want + (size_t)y * w * BPP_B, (size_t)w * BPP_B))
            for (unsigned x = 0; x < w; x++)
                if (memcmp(got + (size_t)y * stride_B + x * BPP_B,
                           want + ((size_t)y * w + x) * BPP_B, BPP_B))
                    return (long)(y * w + x);
    return -1;
}

int main(void)
{
    static uint8_t level0[SIZE_PX * SIZE_PX * BPP_B];
    make_level0(level0);

    /* The CPU route: the layout engine, no device. */
    sgx535_layout layout;
    CHECK(sgx535_layout_compute(PIPE_TEXTURE_2D, PIPE_FORMAT_B8G8R8A8_UNORM, SIZE_PX, SIZE_PX,
                                1, LEVELS, &layout));
    printf("layout: %ux%u, %u levels, %s, %llu bytes\n", layout.width_px, layout.height_px,
           layout.levels, layout.tiling == SGX535_TILING_TWIDDLED ? "twiddled" : "linear",
           (unsigned long long)layout.total_size_B);
    uint8_t *cpu_alloc = calloc(1, layout.total_size_B);
    if (!cpu_alloc)
        return 1;
    CHECK(sgx535_layout_write_rect(&layout, 0, 0, 0, 0, SIZE_PX, SIZE_PX, level0,
                                   SIZE_PX * BPP_B, cpu_alloc, layout.total_size_B));
    CHECK(sgx535_layout_generate_mipmap(&layout, 0, 0, LEVELS - 1, cpu_alloc,
                                        layout.total_size_B));

    /* The GPU route, on the device model. */
    sgx535_device_desc desc = {.kind = SGX535_DEVICE_MODEL, .fd = -1, .path = NULL};
    sgx535_screen screen;
    CHECK(sgx535_screen_create(&desc, &screen));
    const char *name;
    CHECK(sgx535_screen_get_name(screen, &name));
    printf("screen: %s\n", name);
    sgx535_context ctx;
    CHECK(sgx535_context_create(screen, &ctx));

    sgx535_resource_template t = {
        .target = PIPE_TEXTURE_2D,
        .format = PIPE_FORMAT_B8G8R8A8_UNORM,
        .width = SIZE_PX,
        .height = SIZE_PX,
        .depth = 1,
        .array_size = 1,
        .last_level = LEVELS - 1,
        .nr_samples = 0,
        .bind = PIPE_BIND_SAMPLER_VIEW | PIPE_BIND_RENDER_TARGET,
    };
    sgx535_resource tex;
    CHECK(sgx535_resource_create(screen, &t, &tex));
    sgx535_box whole = {0, 0, 0, SIZE_PX, SIZE_PX, 1};
    CHECK(sgx535_texture_subdata(ctx, tex, 0, PIPE_MAP_WRITE, &whole, level0, SIZE_PX * BPP_B,
                                 0));

    sgx535_device_stats before, after;
    CHECK(sgx535_screen_get_stats(screen, &before));
    uint8_t generated = 0;
    CHECK(sgx535_generate_mipmap(ctx, tex, PIPE_FORMAT_B8G8R8A8_UNORM, 0, LEVELS - 1, 0, 0,
                                 &generated));
    sgx535_fence fence;
    CHECK(sgx535_flush(ctx, 0, &fence));
    uint8_t signalled = 0;
    CHECK(sgx535_fence_finish(screen, fence, UINT64_MAX, &signalled));
    CHECK(sgx535_fence_destroy(fence));
    CHECK(sgx535_screen_get_stats(screen, &after));

    int failures = 0;
    if (!generated || !signalled) {
        printf("FAIL: generated %u, fence signalled %u\n", generated, signalled);
        failures++;
    }
    uint64_t submissions = after.submissions - before.submissions;
    printf("generate_mipmap: %llu submissions (want %d), %llu jobs completed, %llu failed, "
           "%llu pixels shaded, %llu texels fetched\n",
           (unsigned long long)submissions, LEVELS - 1,
           (unsigned long long)(after.jobs_completed - before.jobs_completed),
           (unsigned long long)(after.jobs_failed - before.jobs_failed),
           (unsigned long long)(after.pixels_shaded - before.pixels_shaded),
           (unsigned long long)(after.texels_fetched - before.texels_fetched));
    if (submissions != LEVELS - 1 || after.jobs_failed != before.jobs_failed) {
        printf("FAIL: the GPU route did not make one good submission per level\n");
        failures++;
    }

    static uint8_t want[SIZE_PX * SIZE_PX * BPP_B], cpu[SIZE_PX * SIZE_PX * BPP_B];
    for (unsigned level = 0; level < LEVELS; level++) {
        unsigned w = SIZE_PX >> level, h = SIZE_PX >> level;
        for (unsigned y = 0; y < h; y++)
            for (unsigned x = 0; x < w; x++)
                for (unsigned c = 0; c < BPP_B; c++)
                    want[(y * w + x) * BPP_B + c] = expected(level, x, y, c);
        CHECK(sgx535_layout_read_rect(&layout, 0, level, 0, 0, w, h, cpu_alloc,
                                      layout.total_size_B, cpu, w * BPP_B));

        sgx535_box box = {0, 0, 0, (int32_t)w, (int32_t)h, 1};
        sgx535_transfer tr;
        void *ptr;
        uint32_t stride_B;
        uint64_t layer_stride_B;
        CHECK(sgx535_transfer_map(ctx, tex, level, PIPE_MAP_READ, &box, &tr, &ptr, &stride_B,
                                  &layer_stride_B));
        long gpu_bad = first_difference(ptr, stride_B, want, w, h);
        long gpu_vs_cpu = first_difference(ptr, stride_B, cpu, w, h);
        long cpu_bad = first_difference(cpu, w * BPP_B, want, w, h);
        const uint8_t *p = (const uint8_t *)ptr;
        printf("level %u: %2ux%-2u at offset %6llu, %5llu bytes, texel 0 BGRA %3u %3u %3u %3u: "
               "GPU %s, CPU generator %s, GPU vs CPU %s\n",
               level, w, h, (unsigned long long)layout.level[level].offset_B,
               (unsigned long long)layout.level[level].size_B, p[0], p[1], p[2], p[3],
               gpu_bad < 0 ? "exact" : "WRONG", cpu_bad < 0 ? "exact" : "WRONG",
               gpu_vs_cpu < 0 ? "identical" : "DIFFER");
        if (gpu_bad >= 0 || cpu_bad >= 0 || gpu_vs_cpu >= 0) {
            long at = gpu_bad >= 0 ? gpu_bad : cpu_bad >= 0 ? cpu_bad : gpu_vs_cpu;
            printf("  first difference at texel (%ld, %ld)\n", at % (long)w, at / (long)w);
            failures++;
        }
        CHECK(sgx535_transfer_unmap(ctx, tr));
    }

    CHECK(sgx535_resource_destroy(tex));
    CHECK(sgx535_context_destroy(ctx));
    CHECK(sgx535_screen_destroy(screen));
    free(cpu_alloc);
    printf("%s\n", failures ? "mipgen: FAILED" : "mipgen: every level matches");
    return failures ? 1 : 0;
}
