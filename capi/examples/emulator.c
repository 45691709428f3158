/*
 * libsgx535 as an emulator's GL layer uses it: a guest hands over a texture that is ALREADY
 * twiddled (guest memory in the GPU's own Morton order), and draws a textured, depth-tested
 * scene; the framebuffer is read back and written as a PPM.
 *
 * The guest texture goes in without being untwiddled: its bytes are placed in a memfd laid
 * out as sgx535_layout_compute says, and sgx535_resource_from_handle imports that file as the
 * texture's storage (the path an emulator with its guest VRAM in a memfd takes: no copy, no
 * CPU twiddling). transfer_map and texture_subdata cannot do this, because the ABI's maps
 * are linear staging copies: texture_subdata of raw twiddled bytes would twiddle them twice.
 * The fallback for a device that cannot import a file (a real DRM kernel takes dma-bufs
 * only) is shown too: untwiddle with sgx535_layout_read_rect and upload the linear texels
 * with texture_subdata. Both textures must read back as the guest's image.
 *
 * The scene, drawn in this order with depth test LESS on a 64x64 target cleared to grey:
 *   red quad, flat (z 0.25)       pixels [24,56) x [24,56)
 *   textured quad (z 0.5)         pixels [8,40) x [8,40), each texel on 2x2 pixels (NEAREST)
 *   blue quad, flat (z 0.75)      pixels [0,64) x [48,64)
 * The red quad is drawn first yet wins where they overlap; the textured one hides the blue.
 * Every pixel's expected value is computed here from that description, and compared.
 *
 * usage: emulator [OUT.ppm]   (default emulator.ppm). Exit status 0 when every pixel matches.
 */
#define _GNU_SOURCE /* memfd_create */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <sgx535.h>
#include <sgx535_pipe.h>

#include "example_util.h"

enum { FB_PX = 64, TEX_PX = 16, BPP_B = 4 };

/* Colours as B, G, R, A bytes (B8G8R8A8_UNORM's memory order). */
static const uint8_t GREY[4] = {64, 64, 64, 255};
static const uint8_t RED[4] = {0, 0, 255, 255};
static const uint8_t BLUE[4] = {255, 0, 0, 255};

struct rect {
    int x0, y0, x1, y1; /* pixels, max exclusive */
    float z_ndc;
};
static const struct rect RED_QUAD = {24, 24, 56, 56, -0.5f};
static const struct rect TEX_QUAD = {8, 8, 40, 40, 0.0f};
static const struct rect BLUE_QUAD = {0, 48, 64, 64, 0.5f};

static const char VS[] = "VERT\n"
                         "DCL IN[0]\n"
                         "DCL IN[1]\n"
                         "DCL OUT[0], POSITION\n"
                         "DCL OUT[1], GENERIC[0]\n"
                         "  0: MOV OUT[0], IN[0]\n"
                         "  1: MOV OUT[1], IN[1]\n"
                         "  2: END\n";
static const char FS_TEXTURE[] = "FRAG\n"
                                 "DCL IN[0], GENERIC[0], PERSPECTIVE\n"
                                 "DCL OUT[0], COLOR\n"
                                 "DCL SAMP[0]\n"
                                 "DCL SVIEW[0], 2D, FLOAT\n"
                                 "  0: TEX OUT[0], IN[0], SAMP[0], 2D\n"
                                 "  1: END\n";
static const char FS_FLAT[] = "FRAG\n"
                              "DCL OUT[0], COLOR\n"
                              "DCL CONST[0]\n"
                              "  0: MOV OUT[0], CONST[0]\n"
                              "  1: END\n";

/* The guest's texel (u, v): every texel different, so a misplaced one shows. */
static void guest_texel(unsigned u, unsigned v, uint8_t out[4])
{
    out[0] = (uint8_t)(u * 16 + 8);
    out[1] = (uint8_t)(v * 16 + 4);
    out[2] = (uint8_t)(0x80 ^ (u * 7 + v * 3));
    out[3] = 255;
}

/*
 * The guest's own twiddle (as a Dreamcast-style emulator has it): Morton order with v in
 * address bit 0 and u in bit 1, which is what sgx535.h says SGX535_TILING_TWIDDLED is.
 */
static size_t guest_twiddled_index(unsigned u, unsigned v)
{
    size_t i = 0;
    for (unsigned bit = 0; bit < 8; bit++) {
        i |= (size_t)((v >> bit) & 1) << (2 * bit);
        i |= (size_t)((u >> bit) & 1) << (2 * bit + 1);
    }
    return i;
}

/* Four vertices (x y z w s t) of a pixel rectangle of the 64x64 target, and its indices. */
static void quad(const struct rect *r, float v[4][6])
{
    float x0 = r->x0 / (FB_PX / 2.0f) - 1, x1 = r->x1 / (FB_PX / 2.0f) - 1;
    float y0 = r->y0 / (FB_PX / 2.0f) - 1, y1 = r->y1 / (FB_PX / 2.0f) - 1;
    const float c[4][4] = {{x0, y0, 0, 0}, {x1, y0, 1, 0}, {x0, y1, 0, 1}, {x1, y1, 1, 1}};
    for (int i = 0; i < 4; i++) {
        v[i][0] = c[i][0];
        v[i][1] = c[i][1];
        v[i][2] = r->z_ndc;
        v[i][3] = 1;
        v[i][4] = c[i][2];
        v[i][5] = c[i][3];
    }
}

static void draw_quad(sgx535_context ctx, const struct rect *r)
{
    static const uint16_t indices[6] = {0, 1, 2, 2, 1, 3};
    float v[4][6];
    quad(r, v);
    sgx535_vertex_buffer vb = {
        .stride = sizeof v[0], .buffer_offset = 0, .user_buffer = v, .user_size = sizeof v};
    CHECK(sgx535_set_vertex_buffers(ctx, 0, 1, &vb));
    sgx535_draw_info info = {
        .mode = PIPE_PRIM_TRIANGLES,
        .index_size = 2,
        .index_user = indices,
        .start = 0,
        .count = 6,
        .min_index = 0,
        .max_index = 3,
        .instance_count = 1,
    };
    CHECK(sgx535_draw_vbo(ctx, &info));
}

static void set_flat_colour(sgx535_context ctx, const uint8_t bgra[4])
{
    float rgba[4] = {bgra[2] / 255.0f, bgra[1] / 255.0f, bgra[0] / 255.0f, bgra[3] / 255.0f};
    sgx535_constant_buffer cb = {.buffer_size = sizeof rgba, .user_buffer = rgba};
    CHECK(sgx535_set_constant_buffer(ctx, PIPE_SHADER_FRAGMENT, 0, &cb));
}

static int inside(const struct rect *r, int x, int y)
{
    return x >= r->x0 && x < r->x1 && y >= r->y0 && y < r->y1;
}

/* What pixel (x, y) must be: the nearest quad covering it, else the clear colour. */
static void expected_pixel(int x, int y, uint8_t out[4])
{
    if (inside(&RED_QUAD, x, y))
        memcpy(out, RED, 4);
    else if (inside(&TEX_QUAD, x, y))
        guest_texel((unsigned)(x - TEX_QUAD.x0) / 2, (unsigned)(y - TEX_QUAD.y0) / 2, out);
    else if (inside(&BLUE_QUAD, x, y))
        memcpy(out, BLUE, 4);
    else
        memcpy(out, GREY, 4);
}

/* Reads level 0 of a texture through a linear map and compares it with `want` (packed). */
static int read_back_equals(sgx535_context ctx, sgx535_resource res, unsigned w, unsigned h,
                            const uint8_t *want, uint8_t *copy_out)
{
    sgx535_box box = {0, 0, 0, (int32_t)w, (int32_t)h, 1};
    sgx535_transfer tr;
    void *ptr;
    uint32_t stride_B;
    uint64_t layer_stride_B;
    CHECK(sgx535_transfer_map(ctx, res, 0, PIPE_MAP_READ, &box, &tr, &ptr, &stride_B,
                              &layer_stride_B));
    int same = 1;
    for (unsigned y = 0; y < h; y++) {
        const uint8_t *row = (const uint8_t *)ptr + (size_t)y * stride_B;
        if (want && memcmp(row, want + (size_t)y * w * BPP_B, (size_t)w * BPP_B))
            same = 0;
        if (copy_out)
            memcpy(copy_out + (size_t)y * w * BPP_B, row, (size_t)w * BPP_B);
    }
    CHECK(sgx535_transfer_unmap(ctx, tr));
    return same;
}

static int write_ppm(const char *path, const uint8_t *bgra, unsigned w, unsigned h)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return 0;
    fprintf(f, "P6\n%u %u\n255\n", w, h);
    for (size_t i = 0; i < (size_t)w * h; i++) {
        uint8_t rgb[3] = {bgra[i * 4 + 2], bgra[i * 4 + 1], bgra[i * 4 + 0]};
        fwrite(rgb, 1, 3, f);
    }
    return fclose(f) == 0;
}

int main(int argc, char **argv)
{
    const char *out_path = argc > 1 ? argv[1] : "emulator.ppm";
    int failures = 0;

    /* The guest's texture, linear (what it means) and twiddled (what guest memory holds). */
    static uint8_t guest_linear[TEX_PX * TEX_PX * BPP_B];
    for (unsigned v = 0; v < TEX_PX; v++)
        for (unsigned u = 0; u < TEX_PX; u++)
            guest_texel(u, v, &guest_linear[(v * TEX_PX + u) * BPP_B]);
    sgx535_layout layout;
    CHECK(sgx535_layout_compute(PIPE_TEXTURE_2D, PIPE_FORMAT_B8G8R8A8_UNORM, TEX_PX, TEX_PX, 1,
                                1, &layout));
    if (layout.tiling != SGX535_TILING_TWIDDLED || layout.total_size_B < sizeof guest_linear) {
        printf("FAIL: a 16x16 B8G8R8A8 texture should be twiddled, %u bytes\n",
               (unsigned)sizeof guest_linear);
        return 1;
    }
    uint8_t *guest_twiddled = calloc(1, layout.total_size_B);
    if (!guest_twiddled)
        return 1;
    for (unsigned v = 0; v < TEX_PX; v++)
        for (unsigned u = 0; u < TEX_PX; u++)
            memcpy(guest_twiddled + guest_twiddled_index(u, v) * BPP_B,
                   &guest_linear[(v * TEX_PX + u) * BPP_B], BPP_B);
    /* The guest's twiddle and the library's must agree byte for byte. */
    uint8_t *lib_twiddled = calloc(1, layout.total_size_B);
    if (!lib_twiddled)
        return 1;
    CHECK(sgx535_layout_write_rect(&layout, 0, 0, 0, 0, TEX_PX, TEX_PX, guest_linear,
                                   TEX_PX * BPP_B, lib_twiddled, layout.total_size_B));
    int twiddle_ok = memcmp(lib_twiddled, guest_twiddled, layout.total_size_B) == 0;
    printf("guest twiddle vs sgx535_layout_write_rect: %s\n", twiddle_ok ? "identical" : "DIFFER");
    failures += !twiddle_ok;
    free(lib_twiddled);

    sgx535_device_desc desc = {.kind = SGX535_DEVICE_MODEL, .fd = -1, .path = NULL};
    sgx535_screen screen;
    CHECK(sgx535_screen_create(&desc, &screen));
    sgx535_context ctx;
    CHECK(sgx535_context_create(screen, &ctx));

    sgx535_resource_template tex_t = {
        .target = PIPE_TEXTURE_2D,
        .format = PIPE_FORMAT_B8G8R8A8_UNORM,
        .width = TEX_PX,
        .height = TEX_PX,
        .depth = 1,
        .array_size = 1,
        .bind = PIPE_BIND_SAMPLER_VIEW,
    };

    /*
     * Upload 1, no copy through the library: the twiddled bytes in a memfd, imported. The
     * file is whole pages, as a dma-buf is: the device maps pages.
     */
    long page_B = sysconf(_SC_PAGESIZE);
    size_t file_B = (layout.total_size_B + (size_t)page_B - 1) / (size_t)page_B * (size_t)page_B;
    int fd = memfd_create("guest-texture", MFD_CLOEXEC);
    if (fd < 0 || ftruncate(fd, (off_t)file_B) != 0) {
        perror("memfd");
        return 1;
    }
    void *guest_mem = mmap(NULL, file_B, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (guest_mem == MAP_FAILED) {
        perror("mmap");
        return 1;
    }
    memcpy(guest_mem, guest_twiddled, layout.total_size_B);
    sgx535_winsys_handle h = {
        .fd = fd,
        .stride = 0,
        .offset = 0,
        .tiling = SGX535_TILING_TWIDDLED,
        .size = layout.total_size_B,
    };
    sgx535_resource tex_imported;
    CHECK(sgx535_resource_from_handle(screen, &tex_t, &h, &tex_imported));
    /* The library holds its own duplicate of the file. */
    munmap(guest_mem, file_B);
    close(fd);

    /* Upload 2, the fallback: untwiddle on the CPU, then texture_subdata of linear texels. */
    static uint8_t untwiddled[TEX_PX * TEX_PX * BPP_B];
    CHECK(sgx535_layout_read_rect(&layout, 0, 0, 0, 0, TEX_PX, TEX_PX, guest_twiddled,
                                  layout.total_size_B, untwiddled, TEX_PX * BPP_B));
    sgx535_resource tex_uploaded;
    CHECK(sgx535_resource_create(screen, &tex_t, &tex_uploaded));
    sgx535_box tex_box = {0, 0, 0, TEX_PX, TEX_PX, 1};
    CHECK(sgx535_texture_subdata(ctx, tex_uploaded, 0, PIPE_MAP_WRITE, &tex_box, untwiddled,
                                 TEX_PX * BPP_B, 0));
    int imported_ok = read_back_equals(ctx, tex_imported, TEX_PX, TEX_PX, guest_linear, NULL);
    int uploaded_ok = read_back_equals(ctx, tex_uploaded, TEX_PX, TEX_PX, guest_linear, NULL);
    printf("guest texture imported from a memfd: %s; untwiddled + texture_subdata: %s\n",
           imported_ok ? "reads back as the guest's image" : "WRONG",
           uploaded_ok ? "reads back as the guest's image" : "WRONG");
    failures += !imported_ok + !uploaded_ok;
    free(guest_twiddled);

    /* Targets: colour and depth, 64x64. */
    sgx535_resource_template fb_t = {
        .target = PIPE_TEXTURE_2D,
        .format = PIPE_FORMAT_B8G8R8A8_UNORM,
        .width = FB_PX,
        .height = FB_PX,
        .depth = 1,
        .array_size = 1,
        .bind = PIPE_BIND_RENDER_TARGET | PIPE_BIND_SAMPLER_VIEW,
    };
    sgx535_resource colour, depth;
    CHECK(sgx535_resource_create(screen, &fb_t, &colour));
    fb_t.format = PIPE_FORMAT_Z24_UNORM_S8_UINT;
    fb_t.bind = PIPE_BIND_DEPTH_STENCIL;
    CHECK(sgx535_resource_create(screen, &fb_t, &depth));
    sgx535_surface_template st = {.format = PIPE_FORMAT_B8G8R8A8_UNORM};
    sgx535_surface cbuf, zsbuf;
    CHECK(sgx535_create_surface(ctx, colour, &st, &cbuf));
    st.format = PIPE_FORMAT_Z24_UNORM_S8_UINT;
    CHECK(sgx535_create_surface(ctx, depth, &st, &zsbuf));
    sgx535_framebuffer_state fb = {
        .width = FB_PX, .height = FB_PX, .nr_cbufs = 1, .cbufs = {cbuf}, .zsbuf = zsbuf};
    CHECK(sgx535_set_framebuffer_state(ctx, &fb));
    /* Window = ndc * scale + translate: NDC y -1 is row 0, z [-1, 1] to [0, 1]. */
    sgx535_viewport_state vp = {
        .scale = {FB_PX / 2.0f, FB_PX / 2.0f, 0.5f},
        .translate = {FB_PX / 2.0f, FB_PX / 2.0f, 0.5f},
    };
    CHECK(sgx535_set_viewport_states(ctx, 0, 1, &vp));

    /* State objects, as a GL layer makes them once and binds them per draw. */
    sgx535_blend_state blend = {
        .rgb_func = PIPE_BLEND_ADD,
        .rgb_src_factor = PIPE_BLENDFACTOR_ONE,
        .rgb_dst_factor = PIPE_BLENDFACTOR_ZERO,
        .alpha_func = PIPE_BLEND_ADD,
        .alpha_src_factor = PIPE_BLENDFACTOR_ONE,
        .alpha_dst_factor = PIPE_BLENDFACTOR_ZERO,
        .colormask = PIPE_MASK_RGBA,
    };
    sgx535_depth_stencil_alpha_state dsa = {
        .depth_enabled = 1, .depth_writemask = 1, .depth_func = PIPE_FUNC_LESS};
    sgx535_rasterizer_state rast = {
        .cull_face = PIPE_FACE_NONE,
        .half_pixel_center = 1,
        .depth_clip_near = 1,
        .depth_clip_far = 1,
        .line_width = 1,
        .point_size = 1,
    };
    sgx535_sampler_state samp = {
        .wrap_s = PIPE_TEX_WRAP_CLAMP_TO_EDGE,
        .wrap_t = PIPE_TEX_WRAP_CLAMP_TO_EDGE,
        .wrap_r = PIPE_TEX_WRAP_CLAMP_TO_EDGE,
        .min_img_filter = PIPE_TEX_FILTER_NEAREST,
        .min_mip_filter = PIPE_TEX_MIPFILTER_NONE,
        .mag_img_filter = PIPE_TEX_FILTER_NEAREST,
        .normalized_coords = 1,
        .max_lod = 0,
    };
    sgx535_vertex_element ve[2] = {
        {.src_offset = 0, .vertex_buffer_index = 0, .src_format = PIPE_FORMAT_R32G32B32A32_FLOAT},
        {.src_offset = 16, .vertex_buffer_index = 0, .src_format = PIPE_FORMAT_R32G32_FLOAT},
    };
    sgx535_cso blend_cso, dsa_cso, rast_cso, samp_cso, ve_cso;
    CHECK(sgx535_create_blend_state(ctx, &blend, &blend_cso));
    CHECK(sgx535_create_depth_stencil_alpha_state(ctx, &dsa, &dsa_cso));
    CHECK(sgx535_create_rasterizer_state(ctx, &rast, &rast_cso));
    CHECK(sgx535_create_sampler_state(ctx, &samp, &samp_cso));
    CHECK(sgx535_create_vertex_elements_state(ctx, 2, ve, &ve_cso));
    CHECK(sgx535_bind_blend_state(ctx, blend_cso));
    CHECK(sgx535_bind_depth_stencil_alpha_state(ctx, dsa_cso));
    CHECK(sgx535_bind_rasterizer_state(ctx, rast_cso));
    CHECK(sgx535_bind_sampler_states(ctx, PIPE_SHADER_FRAGMENT, 0, 1, &samp_cso));
    CHECK(sgx535_bind_vertex_elements_state(ctx, ve_cso));
    sgx535_shader vs, fs_tex, fs_flat;
    CHECK(sgx535_create_vs_state(ctx, VS, &vs));
    CHECK(sgx535_create_fs_state(ctx, FS_TEXTURE, &fs_tex));
    CHECK(sgx535_create_fs_state(ctx, FS_FLAT, &fs_flat));
    CHECK(sgx535_bind_vs_state(ctx, vs));
    sgx535_sampler_view_template svt = {
        .format = PIPE_FORMAT_B8G8R8A8_UNORM,
        .swizzle_r = PIPE_SWIZZLE_X,
        .swizzle_g = PIPE_SWIZZLE_Y,
        .swizzle_b = PIPE_SWIZZLE_Z,
        .swizzle_a = PIPE_SWIZZLE_W,
    };
    sgx535_sampler_view view;
    CHECK(sgx535_create_sampler_view(ctx, tex_imported, &svt, &view));
    CHECK(sgx535_set_sampler_views(ctx, PIPE_SHADER_FRAGMENT, 0, 1, &view));

    /* The frame. */
    float grey[4] = {GREY[2] / 255.0f, GREY[1] / 255.0f, GREY[0] / 255.0f, 1};
    CHECK(sgx535_clear(ctx, PIPE_CLEAR_COLOR0 | PIPE_CLEAR_DEPTH | PIPE_CLEAR_STENCIL, NULL,
                       grey, 1.0, 0));
    CHECK(sgx535_bind_fs_state(ctx, fs_flat));
    set_flat_colour(ctx, RED);
    draw_quad(ctx, &RED_QUAD);
    CHECK(sgx535_bind_fs_state(ctx, fs_tex));
    draw_quad(ctx, &TEX_QUAD);
    CHECK(sgx535_bind_fs_state(ctx, fs_flat));
    set_flat_colour(ctx, BLUE);
    draw_quad(ctx, &BLUE_QUAD);
    sgx535_fence fence;
    CHECK(sgx535_flush(ctx, 0, &fence));
    uint8_t signalled = 0;
    CHECK(sgx535_fence_finish(screen, fence, UINT64_MAX, &signalled));
    CHECK(sgx535_fence_destroy(fence));

    static uint8_t frame[FB_PX * FB_PX * BPP_B];
    read_back_equals(ctx, colour, FB_PX, FB_PX, NULL, frame);
    if (!write_ppm(out_path, frame, FB_PX, FB_PX)) {
        perror(out_path);
        failures++;
    }
    unsigned wrong = 0;
    for (int y = 0; y < FB_PX; y++)
        for (int x = 0; x < FB_PX; x++) {
            uint8_t want[4];
            expected_pixel(x, y, want);
            const uint8_t *got = &frame[((size_t)y * FB_PX + x) * BPP_B];
            if (memcmp(got, want, 4)) {
                if (wrong < 8)
                    printf("  pixel (%d, %d): BGRA %u %u %u %u, want %u %u %u %u\n", x, y,
                           got[0], got[1], got[2], got[3], want[0], want[1], want[2], want[3]);
                wrong++;
            }
        }
    sgx535_device_stats stats;
    CHECK(sgx535_screen_get_stats(screen, &stats));
    printf("frame: %s, %u of %d pixels differ from the expected scene; device: %llu "
           "submissions, %llu pixels shaded, %llu texels fetched\n",
           out_path, wrong, FB_PX * FB_PX, (unsigned long long)stats.submissions,
           (unsigned long long)stats.pixels_shaded, (unsigned long long)stats.texels_fetched);
    failures += wrong != 0 || !signalled;

    /* Tear down in the order a GL layer would; the screen would also take what is left. */
    CHECK(sgx535_set_sampler_views(ctx, PIPE_SHADER_FRAGMENT, 0, 1, NULL));
    CHECK(sgx535_sampler_view_destroy(ctx, view));
    CHECK(sgx535_delete_vs_state(ctx, vs));
    CHECK(sgx535_delete_fs_state(ctx, fs_tex));
    CHECK(sgx535_delete_fs_state(ctx, fs_flat));
    CHECK(sgx535_delete_blend_state(ctx, blend_cso));
    CHECK(sgx535_delete_depth_stencil_alpha_state(ctx, dsa_cso));
    CHECK(sgx535_delete_rasterizer_state(ctx, rast_cso));
    CHECK(sgx535_delete_sampler_state(ctx, samp_cso));
    CHECK(sgx535_delete_vertex_elements_state(ctx, ve_cso));
    CHECK(sgx535_surface_destroy(ctx, cbuf));
    CHECK(sgx535_surface_destroy(ctx, zsbuf));
    CHECK(sgx535_resource_destroy(colour));
    CHECK(sgx535_resource_destroy(depth));
    CHECK(sgx535_resource_destroy(tex_imported));
    CHECK(sgx535_resource_destroy(tex_uploaded));
    CHECK(sgx535_context_destroy(ctx));
    CHECK(sgx535_screen_destroy(screen));
    printf("%s\n", failures ? "emulator: FAILED" : "emulator: every pixel matches");
    return failures ? 1 : 0;
}
