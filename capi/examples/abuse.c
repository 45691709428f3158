/*
 * libsgx535 under abuse: NULL, destroyed, wrong-type, foreign and random handles, out-of-range
 * enums, sizes of 0 and 1 << 30, NULL out-pointers, maps of destroyed resources, a double
 * unmap, a context used after its screen was destroyed. Every call must return the status the
 * header promises (printed with the library's message), the process must survive, and at the
 * end every object is destroyed: run it under `valgrind --leak-check=full --error-exitcode=1`.
 *
 * Exit status 0 when every call returned what it should.
 */
#define _GNU_SOURCE /* MAP_NORESERVE */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <sgx535.h>
#include <sgx535_pipe.h>

#include "example_util.h"

static int failures, checks;

static void expect_at(sgx535_status got, sgx535_status want, const char *call, int line)
{
    checks++;
    const char *msg = sgx535_last_error_message();
    int ok = got == want;
    /* A failure must say why; a success must not leave the caller guessing either way. */
    if (got != SGX535_OK && (!msg || !msg[0]))
        ok = 0;
    printf("%s %-30s <- %s\n", ok ? "ok  " : "FAIL", status_name(got), call);
    if (got != SGX535_OK)
        printf("       \"%s\"\n", msg ? msg : "(NULL message)");
    if (!ok) {
        printf("       line %d: wanted %s\n", line, status_name(want));
        failures++;
    }
}

/* EXPECT(call, SGX535_...): the call returns exactly that status. */
#define EXPECT(call, want) expect_at((call), (want), #call, __LINE__)


static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t next_random(void)
{
    uint64_t x = rng_state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return rng_state = x;
}

static sgx535_resource_template texture_template(uint32_t w, uint32_t h)
{
    sgx535_resource_template t = {
        .target = PIPE_TEXTURE_2D,
        .format = PIPE_FORMAT_B8G8R8A8_UNORM,
        .width = w,
        .height = h,
        .depth = 1,
        .array_size = 1,
        .bind = PIPE_BIND_SAMPLER_VIEW | PIPE_BIND_RENDER_TARGET,
    };
    return t;
}

static sgx535_resource_template buffer_template(uint32_t size_B)
{
    sgx535_resource_template t = {
        .target = PIPE_BUFFER, .width = size_B, .height = 1, .depth = 1, .array_size = 1,
        .bind = PIPE_BIND_VERTEX_BUFFER};
    return t;
}

/* A failure on another thread must not change this thread's message. */
static void *fail_elsewhere(void *arg)
{
    (void)arg;
    sgx535_status s = sgx535_resource_destroy((sgx535_resource){0});
    const char *msg = sgx535_last_error_message();
    return (void *)(uintptr_t)(s == SGX535_ERROR_INVALID_HANDLE && msg && msg[0]);
}

int main(void)
{
    const sgx535_device_desc model = {.kind = SGX535_DEVICE_MODEL, .fd = -1, .path = NULL};
    sgx535_screen screen, other_screen, doomed_screen;
    sgx535_context ctx, other_ctx, doomed_ctx;
    CHECK(sgx535_screen_create(&model, &screen));
    CHECK(sgx535_screen_create(&model, &other_screen));
    CHECK(sgx535_context_create(screen, &ctx));
    CHECK(sgx535_context_create(other_screen, &other_ctx));
    sgx535_resource_template tt = texture_template(16, 16), bt = buffer_template(256);
    sgx535_resource tex, buf;
    CHECK(sgx535_resource_create(screen, &tt, &tex));
    CHECK(sgx535_resource_create(screen, &bt, &buf));
    sgx535_rasterizer_state rast = {
        .half_pixel_center = 1, .depth_clip_near = 1, .depth_clip_far = 1, .line_width = 1,
        .point_size = 1};
    sgx535_cso rast_cso;
    CHECK(sgx535_create_rasterizer_state(ctx, &rast, &rast_cso));
    sgx535_draw_info draw = {.mode = PIPE_PRIM_TRIANGLES, .count = 3, .instance_count = 1};
    sgx535_box box16 = {0, 0, 0, 16, 16, 1};
    static uint8_t texels[16 * 16 * 4];
    sgx535_transfer tr;
    void *ptr;
    uint32_t stride_B;
    uint64_t layer_stride_B;
    int32_t ivalue;
    uint8_t flag;
    sgx535_resource r;
    sgx535_context c;
    sgx535_screen s;

    printf("== the thread's last error message\n");
    EXPECT(sgx535_screen_get_param(screen, PIPE_CAP_MAX_TEXTURE_2D_SIZE, &ivalue), SGX535_OK);
    EXPECT(sgx535_context_create((sgx535_screen){0}, &c), SGX535_ERROR_INVALID_HANDLE);
    char mine[256];
    snprintf(mine, sizeof mine, "%s", sgx535_last_error_message());
    pthread_t thread;
    void *thread_ok = NULL;
    if (pthread_create(&thread, NULL, fail_elsewhere, NULL) == 0)
        pthread_join(thread, &thread_ok);
    checks++;
    if (!thread_ok || strcmp(mine, sgx535_last_error_message()) != 0) {
        printf("FAIL another thread's failure changed this thread's message\n");
        failures++;
    } else {
        printf("ok   another thread's failure left this thread's message alone\n");
    }

    printf("== NULL handles\n");
    EXPECT(sgx535_screen_destroy((sgx535_screen){0}), SGX535_ERROR_INVALID_HANDLE);
    EXPECT(sgx535_resource_destroy((sgx535_resource){0}), SGX535_ERROR_INVALID_HANDLE);
    EXPECT(sgx535_draw_vbo((sgx535_context){0}, &draw), SGX535_ERROR_INVALID_HANDLE);
    EXPECT(sgx535_transfer_map(ctx, (sgx535_resource){0}, 0, PIPE_MAP_READ, &box16, &tr, &ptr,
                               &stride_B, &layer_stride_B),
           SGX535_ERROR_INVALID_HANDLE);
    EXPECT(sgx535_fence_destroy((sgx535_fence){0}), SGX535_ERROR_INVALID_HANDLE);
    EXPECT(sgx535_transfer_unmap(ctx, (sgx535_transfer){0}), SGX535_ERROR_INVALID_HANDLE);

    printf("== NULL pointers where a value is required\n");
    EXPECT(sgx535_screen_create(&model, NULL), SGX535_ERROR_INVALID_ARGUMENT);
    EXPECT(sgx535_context_create(screen, NULL), SGX535_ERROR_INVALID_ARGUMENT);
    EXPECT(sgx535_resource_create(screen, NULL, &r), SGX535_ERROR_INVALID_ARGUMENT);
    EXPECT(sgx535_screen_get_param(screen, PIPE_CAP_MAX_TEXTURE_2D_SIZE, NULL),
           SGX535_ERROR_INVALID_ARGUMENT);
    EXPECT(sgx535_transfer_map(ctx, tex, 0, PIPE_MAP_READ, &box16, &tr, NULL, &stride_B,
                               &layer_stride_B),
           SGX535_ERROR_INVALID_ARGUMENT);
    EXPECT(sgx535_transfer_map(ctx, tex, 0, PIPE_MAP_READ, NULL, &tr, &ptr, &stride_B,
                               &layer_stride_B),
           SGX535_ERROR_INVALID_ARGUMENT);
    EXPECT(sgx535_draw_vbo(ctx, NULL), SGX535_ERROR_INVALID_ARGUMENT);
    EXPECT(sgx535_create_vs_state(ctx, NULL, &(sgx535_shader){0}), SGX535_ERROR_INVALID_ARGUMENT);
    EXPECT(sgx535_texture_subdata(ctx, tex, 0, PIPE_MAP_WRITE, &box16, NULL, 64, 0),
           SGX535_ERROR_INVALID_ARGUMENT);
    EXPECT(sgx535_layout_compute(PIPE_TEXTURE_2D, PIPE_FORMAT_B8G8R8A8_UNORM, 16, 16, 1, 1, NULL),
           SGX535_ERROR_INVALID_ARGUMENT);
    EXPECT(sgx535_screen_get_name(screen, NULL), SGX535_ERROR_INVALID_ARGUMENT);

    printf("== handles of the wrong type\n");
    EXPECT(sgx535_draw_vbo((sgx535_context){tex.id}, &draw), SGX535_ERROR_INVALID_HANDLE);
    EXPECT(sgx535_context_create((sgx535_screen){ctx.id}, &c), SGX535_ERROR_INVALID_HANDLE);
    EXPECT(sgx535_resource_destroy((sgx535_resource){ctx.id}), SGX535_ERROR_INVALID_HANDLE);
    EXPECT(sgx535_resource_destroy((sgx535_resource){screen.id}), SGX535_ERROR_INVALID_HANDLE);
    EXPECT(sgx535_bind_blend_state(ctx, rast_cso), SGX535_ERROR_INVALID_HANDLE);
    EXPECT(sgx535_bind_vs_state(ctx, (sgx535_shader){rast_cso.id}), SGX535_ERROR_INVALID_HANDLE);
    EXPECT(sgx535_fence_destroy((sgx535_fence){buf.id}), SGX535_ERROR_INVALID_HANDLE);

    printf("== handles of another screen or context\n");
    EXPECT(sgx535_texture_subdata(other_ctx, tex, 0, PIPE_MAP_WRITE, &box16, texels, 64, 0),
           SGX535_ERROR_INVALID_HANDLE);
    EXPECT(sgx535_bind_rasterizer_state(other_ctx, rast_cso), SGX535_ERROR_INVALID_HANDLE);
    EXPECT(sgx535_resource_get_handle(other_screen, tex, &(sgx535_winsys_handle){0}),
           SGX535_ERROR_INVALID_HANDLE);

    printf("== random 64-bit values as handles (1000 of each kind of call)\n");
    int random_ok = 1;
    for (int i = 0; i < 1000; i++) {
        uint64_t v = next_random();
        sgx535_status got[5] = {
            sgx535_resource_destroy((sgx535_resource){v}),
            sgx535_context_destroy((sgx535_context){v}),
            sgx535_screen_get_param((sgx535_screen){v}, 0, &ivalue),
            sgx535_draw_vbo((sgx535_context){v}, &draw),
            sgx535_bind_rasterizer_state(ctx, (sgx535_cso){v}),
        };
        for (int k = 0; k < 5; k++)
            if (got[k] != SGX535_ERROR_INVALID_HANDLE) {
                printf("FAIL random handle %#llx, call %d: %s\n", (unsigned long long)v, k,
                       status_name(got[k]));
                random_ok = 0;
            }
    }
    checks++;
    failures += !random_ok;
    printf("%s 5000 calls with random handles: all SGX535_ERROR_INVALID_HANDLE\n",
           random_ok ? "ok  " : "FAIL");
    EXPECT(sgx535_resource_destroy((sgx535_resource){UINT64_MAX}), SGX535_ERROR_INVALID_HANDLE);
    EXPECT(sgx535_resource_destroy((sgx535_resource){tex.id ^ (1ull << 32)}),
           SGX535_ERROR_INVALID_HANDLE); /* the right slot, another generation */
    EXPECT(sgx535_resource_destroy((sgx535_resource){tex.id + 1000}),
           SGX535_ERROR_INVALID_HANDLE); /* a slot past the table */

    printf("== out-of-range enums\n");
    EXPECT(sgx535_screen_get_param(screen, 100000, &ivalue), SGX535_ERROR_INVALID_ARGUMENT);
    EXPECT(sgx535_screen_get_shader_param(screen, 77, 0, &ivalue), SGX535_ERROR_INVALID_ARGUMENT);
    EXPECT(sgx535_screen_create(&(sgx535_device_desc){.kind = 99, .fd = -1}, &s),
           SGX535_ERROR_INVALID_ARGUMENT);
    sgx535_resource_template bad = tt;
    bad.format = 100000;
    EXPECT(sgx535_resource_create(screen, &bad, &r), SGX535_ERROR_INVALID_ARGUMENT);
    bad = tt;
    bad.target = 99;
    EXPECT(sgx535_resource_create(screen, &bad, &r), SGX535_ERROR_INVALID_ARGUMENT);
    bad.target = PIPE_TEXTURE_2D_ARRAY; /* a real target this GPU lacks */
    EXPECT(sgx535_resource_create(screen, &bad, &r), SGX535_ERROR_UNSUPPORTED);
    /* Blending on: a disabled blend ignores its (unset) equation. */
    sgx535_blend_state blend = {.blend_enable = 1, .rgb_func = 200, .colormask = PIPE_MASK_RGBA};
    EXPECT(sgx535_create_blend_state(ctx, &blend, &(sgx535_cso){0}),
           SGX535_ERROR_INVALID_ARGUMENT);
    sgx535_draw_info bad_draw = draw;
    bad_draw.mode = 99;
    EXPECT(sgx535_draw_vbo(ctx, &bad_draw), SGX535_ERROR_INVALID_ARGUMENT);
    bad_draw.mode = PIPE_PRIM_LINES_ADJACENCY; /* GL 3.2's: no geometry stage here */
    EXPECT(sgx535_draw_vbo(ctx, &bad_draw), SGX535_ERROR_UNSUPPORTED);
    EXPECT(sgx535_set_sampler_views(ctx, 77, 0, 0, NULL), SGX535_ERROR_INVALID_ARGUMENT);
    EXPECT(sgx535_create_query(ctx, 999, 0, &(sgx535_query){0}), SGX535_ERROR_INVALID_ARGUMENT);
    EXPECT(sgx535_layout_compute(PIPE_TEXTURE_2D, 100000, 16, 16, 1, 1, &(sgx535_layout){0}),
           SGX535_ERROR_INVALID_ARGUMENT);
    EXPECT(sgx535_screen_is_format_supported(screen, 100000, PIPE_TEXTURE_2D, 0, 0,
                                             PIPE_BIND_SAMPLER_VIEW, &flag),
           SGX535_ERROR_INVALID_ARGUMENT);
    /* A real Mesa format this GPU lacks is an answer, not an error. */
    flag = 1;
    EXPECT(sgx535_screen_is_format_supported(screen, PIPE_FORMAT_R32G32B32_FLOAT,
                                             PIPE_TEXTURE_2D, 0, 0, PIPE_BIND_RENDER_TARGET,
                                             &flag),
           SGX535_OK);
    checks++;
    if (flag != 0) {
        printf("FAIL R32G32B32_FLOAT as a render target answered %u\n", flag);
        failures++;
    }

    printf("== the interface table's versions\n");
    checks += 3;
    const sgx535_interface *itf = sgx535_get_interface(SGX535_ABI_MAJOR, SGX535_ABI_MINOR);
    int versions_ok = itf && itf->major == SGX535_ABI_MAJOR &&
                      sgx535_get_interface(SGX535_ABI_MAJOR + 1, 0) == NULL &&
                      sgx535_last_error_message()[0] &&
                      sgx535_get_interface(SGX535_ABI_MAJOR, SGX535_ABI_MINOR + 1) == NULL;
    printf("%s get_interface: own version a table, another major or a newer minor NULL (\"%s\")\n",
           versions_ok ? "ok  " : "FAIL", sgx535_last_error_message());
    failures += versions_ok ? 0 : 3;

    printf("== sizes of 0 and 1 << 30\n");
    /* A readable 1 GiB of zero pages, so a size of 1 << 30 is a valid pointer's size. */
    size_t huge_B = (size_t)1 << 30;
    void *huge = mmap(NULL, huge_B, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (huge == MAP_FAILED) {
        perror("mmap");
        return 1;
    }
    sgx535_resource_template sized = tt;
    sized.width = 0;
    EXPECT(sgx535_resource_create(screen, &sized, &r), SGX535_ERROR_INVALID_ARGUMENT);
    sized.width = 1u << 30;
    EXPECT(sgx535_resource_create(screen, &sized, &r), SGX535_ERROR_INVALID_ARGUMENT);
    sized = bt;
    sized.width = 0;
    EXPECT(sgx535_resource_create(screen, &sized, &r), SGX535_ERROR_INVALID_ARGUMENT);
    EXPECT(sgx535_buffer_subdata(ctx, buf, PIPE_MAP_WRITE, 0, 1u << 30, huge),
           SGX535_ERROR_INVALID_ARGUMENT);
    EXPECT(sgx535_buffer_subdata(ctx, buf, PIPE_MAP_WRITE, 1u << 30, 1, texels),
           SGX535_ERROR_INVALID_ARGUMENT);
    /* An empty write is refused like an empty box (GL's glBufferSubData of 0 bytes is a no-op
     * the GL layer skips before calling). */
    EXPECT(sgx535_buffer_subdata(ctx, buf, PIPE_MAP_WRITE, 0, 0, texels),
           SGX535_ERROR_INVALID_ARGUMENT);
    sgx535_box huge_box = {0, 0, 0, 1 << 30, 1, 1};
    EXPECT(sgx535_texture_subdata(ctx, tex, 0, PIPE_MAP_WRITE, &huge_box, huge, 1u << 30, 0),
           SGX535_ERROR_INVALID_ARGUMENT);
    EXPECT(sgx535_transfer_map(ctx, tex, 0, PIPE_MAP_READ, &huge_box, &tr, &ptr, &stride_B,
                               &layer_stride_B),
           SGX535_ERROR_INVALID_ARGUMENT);
    sgx535_box empty_box = {0, 0, 0, 0, 16, 1};
    EXPECT(sgx535_transfer_map(ctx, tex, 0, PIPE_MAP_READ, &empty_box, &tr, &ptr, &stride_B,
                               &layer_stride_B),
           SGX535_ERROR_INVALID_ARGUMENT);
    EXPECT(sgx535_texture_subdata(ctx, tex, 0, PIPE_MAP_WRITE, &empty_box, texels, 64, 0),
           SGX535_ERROR_INVALID_ARGUMENT);
    sgx535_layout layout;
    EXPECT(sgx535_layout_compute(PIPE_TEXTURE_2D, PIPE_FORMAT_B8G8R8A8_UNORM, 0, 16, 1, 1,
                                 &layout),
           SGX535_ERROR_INVALID_ARGUMENT);
    EXPECT(sgx535_layout_compute(PIPE_TEXTURE_2D, PIPE_FORMAT_B8G8R8A8_UNORM, 1u << 30, 16, 1, 1,
                                 &layout),
           SGX535_ERROR_INVALID_ARGUMENT);
    EXPECT(sgx535_layout_compute(PIPE_TEXTURE_2D, PIPE_FORMAT_B8G8R8A8_UNORM, 16, 16, 1, 1,
                                 &layout),
           SGX535_OK);
    EXPECT(sgx535_layout_write_rect(&layout, 0, 0, 0, 0, 1u << 30, 1, huge, 1u << 30, texels,
                                    sizeof texels),
           SGX535_ERROR_INVALID_ARGUMENT);
    EXPECT(sgx535_layout_write_rect(&layout, 0, 0, 0, 0, 16, 16, texels, 64, texels, 0),
           SGX535_ERROR_INVALID_ARGUMENT);
    EXPECT(sgx535_layout_read_rect(&layout, 0, 5, 0, 0, 1, 1, texels, sizeof texels, texels, 4),
           SGX535_ERROR_INVALID_ARGUMENT); /* a level the layout lacks */
    munmap(huge, huge_B);

    printf("== destroyed handles, maps of destroyed resources, double unmap\n");
    sgx535_resource gone;
    CHECK(sgx535_resource_create(screen, &tt, &gone));
    CHECK(sgx535_resource_destroy(gone));
    EXPECT(sgx535_resource_destroy(gone), SGX535_ERROR_INVALID_HANDLE);
    EXPECT(sgx535_resource_get_template(gone, &(sgx535_resource_template){0}),
           SGX535_ERROR_INVALID_HANDLE);
    EXPECT(sgx535_transfer_map(ctx, gone, 0, PIPE_MAP_READ, &box16, &tr, &ptr, &stride_B,
                               &layer_stride_B),
           SGX535_ERROR_INVALID_HANDLE);
    /* A resource destroyed while mapped: the map keeps its storage until unmapped. */
    sgx535_resource mapped;
    CHECK(sgx535_resource_create(screen, &tt, &mapped));
    CHECK(sgx535_transfer_map(ctx, mapped, 0, PIPE_MAP_WRITE, &box16, &tr, &ptr, &stride_B,
                              &layer_stride_B));
    CHECK(sgx535_resource_destroy(mapped));
    memset(ptr, 0xab, (size_t)stride_B * 16);
    EXPECT(sgx535_transfer_unmap(ctx, tr), SGX535_OK);
    EXPECT(sgx535_transfer_unmap(ctx, tr), SGX535_ERROR_INVALID_HANDLE);
    /* A transfer belongs to its context. */
    CHECK(sgx535_transfer_map(ctx, tex, 0, PIPE_MAP_READ, &box16, &tr, &ptr, &stride_B,
                              &layer_stride_B));
    EXPECT(sgx535_transfer_unmap(other_ctx, tr), SGX535_ERROR_INVALID_HANDLE);
    EXPECT(sgx535_transfer_unmap(ctx, tr), SGX535_OK);
    sgx535_cso dead_cso;
    CHECK(sgx535_create_rasterizer_state(ctx, &rast, &dead_cso));
    CHECK(sgx535_delete_rasterizer_state(ctx, dead_cso));
    EXPECT(sgx535_bind_rasterizer_state(ctx, dead_cso), SGX535_ERROR_INVALID_HANDLE);
    EXPECT(sgx535_delete_rasterizer_state(ctx, dead_cso), SGX535_ERROR_INVALID_HANDLE);
    sgx535_fence fence;
    CHECK(sgx535_flush(ctx, 0, &fence));
    EXPECT(sgx535_fence_get_fd(screen, fence, NULL), SGX535_ERROR_INVALID_ARGUMENT);
    EXPECT(sgx535_fence_get_fd(screen, fence, &ivalue), SGX535_OK);
    close(ivalue);
    EXPECT(sgx535_fence_finish(screen, fence, 0, NULL), SGX535_ERROR_INVALID_ARGUMENT);
    CHECK(sgx535_fence_destroy(fence));
    EXPECT(sgx535_fence_finish(screen, fence, 0, &flag), SGX535_ERROR_INVALID_HANDLE);

    printf("== a context and resources used after their screen was destroyed\n");
    sgx535_resource doomed_tex;
    CHECK(sgx535_screen_create(&model, &doomed_screen));
    CHECK(sgx535_context_create(doomed_screen, &doomed_ctx));
    CHECK(sgx535_resource_create(doomed_screen, &tt, &doomed_tex));
    CHECK(sgx535_transfer_map(doomed_ctx, doomed_tex, 0, PIPE_MAP_READ, &box16, &tr, &ptr,
                              &stride_B, &layer_stride_B));
    EXPECT(sgx535_screen_destroy(doomed_screen), SGX535_OK);
    EXPECT(sgx535_draw_vbo(doomed_ctx, &draw), SGX535_ERROR_INVALID_HANDLE);
    EXPECT(sgx535_clear(doomed_ctx, PIPE_CLEAR_COLOR0, NULL, (float[4]){0}, 1.0, 0),
           SGX535_ERROR_INVALID_HANDLE);
    EXPECT(sgx535_transfer_unmap(doomed_ctx, tr), SGX535_ERROR_INVALID_HANDLE);
    EXPECT(sgx535_resource_destroy(doomed_tex), SGX535_ERROR_INVALID_HANDLE);
    EXPECT(sgx535_context_destroy(doomed_ctx), SGX535_ERROR_INVALID_HANDLE);
    EXPECT(sgx535_screen_destroy(doomed_screen), SGX535_ERROR_INVALID_HANDLE);

    printf("== other refusals\n");
    EXPECT(sgx535_create_fs_state(ctx, "FRAG\nthis is not TGSI\n", &(sgx535_shader){0}),
           SGX535_ERROR_INVALID_ARGUMENT);
    /* Gallium has 16 viewports; this screen answers PIPE_CAP_MAX_VIEWPORTS 1. */
    EXPECT(sgx535_set_viewport_states(ctx, 3, 1, &(sgx535_viewport_state){{1, 1, 1}, {0, 0, 0}}),
           SGX535_ERROR_UNSUPPORTED);
    EXPECT(sgx535_screen_create(&(sgx535_device_desc){.kind = SGX535_DEVICE_DRM, .fd = -1,
                                                      .path = "/nonexistent/renderD128"},
                                &s),
           SGX535_ERROR_NO_DEVICE);
    EXPECT(sgx535_screen_create(&(sgx535_device_desc){.kind = SGX535_DEVICE_REPLAY, .fd = -1,
                                                      .path = "/nonexistent/fix.json"},
                                &s),
           SGX535_ERROR_NO_DEVICE);

    printf("== everything destroyed\n");
    EXPECT(sgx535_delete_rasterizer_state(ctx, rast_cso), SGX535_OK);
    EXPECT(sgx535_resource_destroy(tex), SGX535_OK);
    EXPECT(sgx535_resource_destroy(buf), SGX535_OK);
    EXPECT(sgx535_context_destroy(ctx), SGX535_OK);
    EXPECT(sgx535_context_destroy(other_ctx), SGX535_OK);
    EXPECT(sgx535_screen_destroy(screen), SGX535_OK);
    EXPECT(sgx535_screen_destroy(other_screen), SGX535_OK);
    EXPECT(sgx535_screen_destroy(screen), SGX535_ERROR_INVALID_HANDLE);

    printf("abuse: %d of %d checks %s\n", checks - failures, checks,
           failures ? "passed: FAILED" : "passed");
    return failures ? 1 : 0;
}
