/*
 * Copyright 2026 the sgx535 authors
 * SPDX-License-Identifier: MIT
 *
 * The DRM path of the sgx535 driver, for mesa/test.sh: opens the render node
 * (under the drm-shim, the device model), makes a GBM device and an EGL
 * display on it, and renders with OpenGL ES 2 into a framebuffer object with
 * a surfaceless context (there is no window system on this path). Checks:
 *   - GL_RENDERER names SGX535 (Mesa's loader picked sgx535_dri.so, not kmsro);
 *   - a clear and a shaded triangle read back with the right pixels;
 *   - glGenerateMipmap of a two-colour 64x64 texture gives the average at 1x1
 *     and at 32x32.
 * Prints "egl_drm: OK" and exits 0 when all hold.
 *
 * With --oom (run under a drm-shim fixture that fails a buffer allocation), it
 * instead creates textures until one fails: the library's out-of-memory must
 * reach the application as GL_OUT_OF_MEMORY, and the context must keep
 * working. Prints "egl_drm: OOM-OK".
 *
 * With --fault (run under a drm-shim fixture that makes a job take an MMU
 * fault), the context is made robust (EGL_EXT_create_context_robustness,
 * lose context on reset); after the usual rendering, glFinish and
 * glGetGraphicsResetStatusEXT must report a reset (the fault resets the GPU),
 * not GL_NO_ERROR. Prints "egl_drm: reset status 0x...." and
 * "egl_drm: FAULT-OK", or "egl_drm: NO-ROBUSTNESS" when EGL does not offer it.
 * GL_KHR_debug output is on: each message is printed as "egl_drm: debug
 * message 0x<type>: <text> [source 0x<source>, severity 0x<severity>, id <id>]"
 * (the failed render job is one, an error).
 *
 * With --job-oom (run under a drm-shim fixture that makes the first render job
 * run out of parameter memory), the context is robust and GL_KHR_debug is on as
 * with --fault: the failed render must reach the application as a debug message
 * of type error whose text says out of memory (Mesa turns the driver's
 * UTIL_DEBUG_TYPE_OUT_OF_MEMORY into GL_DEBUG_TYPE_ERROR from
 * GL_DEBUG_SOURCE_API), the context must not be lost (an out-of-memory render
 * is not a reset: glGetGraphicsResetStatusEXT stays GL_NO_ERROR), and it must
 * keep rendering: a second clear and triangle read back right. Prints
 * "egl_drm: JOB-OOM-OK".
 *
 *   egl_drm [--oom | --fault | --job-oom] [/dev/dri/renderD128]
 */
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GLES2/gl2.h>
#include <fcntl.h>
#include <gbm.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SIZE_PX 64

/* GL_KHR_debug (GLES 2 has it as an extension: its entry points by name). */
#define DEBUG_OUTPUT_KHR 0x92E0
#define DEBUG_OUTPUT_SYNCHRONOUS_KHR 0x8242
#define DEBUG_TYPE_ERROR_KHR 0x824C
typedef void (*debug_proc_khr)(GLenum source, GLenum type, GLuint id, GLenum severity,
                               GLsizei length, const GLchar *message, const void *user);
typedef void (*debug_callback_khr_fn)(debug_proc_khr callback, const void *user);

/* Debug messages of type error whose text says out of memory. */
static int oom_messages;

static void
print_debug_message(GLenum source, GLenum type, GLuint id, GLenum severity, GLsizei length,
                    const GLchar *message, const void *user)
{
   printf("egl_drm: debug message 0x%04x: %s [source 0x%04x, severity 0x%04x, id %u]\n", type,
          message, source, severity, id);
   if (type == DEBUG_TYPE_ERROR_KHR && strstr(message, "out of memory"))
      oom_messages++;
}

static int failures;

#define CHECK(cond, ...)                                                                           \
   do {                                                                                            \
      if (!(cond)) {                                                                               \
         fprintf(stderr, "egl_drm: FAIL: " __VA_ARGS__);                                           \
         fprintf(stderr, "\n");                                                                    \
         failures++;                                                                               \
      }                                                                                            \
   } while (0)

static int
near(unsigned a, unsigned b, unsigned tol)
{
   return a > b ? a - b <= tol : b - a <= tol;
}

static void
expect_pixel(int x, int y, const unsigned char want[4], unsigned tol, const char *what)
{
   unsigned char px[4] = {0};
   glReadPixels(x, y, 1, 1, GL_RGBA, GL_UNSIGNED_BYTE, px);
   CHECK(near(px[0], want[0], tol) && near(px[1], want[1], tol) && near(px[2], want[2], tol) &&
            near(px[3], want[3], tol),
         "%s at (%d,%d): got %u,%u,%u,%u want %u,%u,%u,%u", what, x, y, px[0], px[1], px[2], px[3],
         want[0], want[1], want[2], want[3]);
}

static GLuint
compile(GLenum type, const char *src)
{
   GLuint s = glCreateShader(type);
   glShaderSource(s, 1, &src, NULL);
   glCompileShader(s);
   GLint ok = 0;
   glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
   CHECK(ok, "shader did not compile");
   return s;
}

static GLuint
fbo_on(GLuint tex, GLint level)
{
   GLuint fbo;
   glGenFramebuffers(1, &fbo);
   glBindFramebuffer(GL_FRAMEBUFFER, fbo);
   glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, tex, level);
   CHECK(glCheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE,
         "framebuffer on level %d incomplete", level);
   return fbo;
}

static GLuint
new_texture(const void *texels)
{
   GLuint tex;
   glGenTextures(1, &tex);
   glBindTexture(GL_TEXTURE_2D, tex);
   glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA, SIZE_PX, SIZE_PX, 0, GL_RGBA, GL_UNSIGNED_BYTE, texels);
   glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
   glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
   return tex;
}

static void
draw_triangle(void)
{
   static const char *vs = "attribute vec2 pos;\n"
                           "void main() { gl_Position = vec4(pos, 0.0, 1.0); }\n";
   static const char *fs = "precision mediump float;\n"
                           "uniform vec4 color;\n"
                           "void main() { gl_FragColor = color; }\n";
   /* The lower-left half of the target: below the diagonal from (-1,1) to (1,-1). */
   static const float pos[] = {-1, -1, 1, -1, -1, 1};
   GLuint prog = glCreateProgram();
   glAttachShader(prog, compile(GL_VERTEX_SHADER, vs));
   glAttachShader(prog, compile(GL_FRAGMENT_SHADER, fs));
   glBindAttribLocation(prog, 0, "pos");
   glLinkProgram(prog);
   GLint ok = 0;
   glGetProgramiv(prog, GL_LINK_STATUS, &ok);
   CHECK(ok, "program did not link");
   glUseProgram(prog);
   glUniform4f(glGetUniformLocation(prog, "color"), 0.0f, 1.0f, 0.0f, 1.0f);
   glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, pos);
   glEnableVertexAttribArray(0);
   glDrawArrays(GL_TRIANGLES, 0, 3);
}

/* A new target: a red clear, then a green triangle over the lower-left half. */
static void
clear_and_triangle(void)
{
   GLuint target = new_texture(NULL);
   fbo_on(target, 0);
   glViewport(0, 0, SIZE_PX, SIZE_PX);
   glClearColor(1.0f, 0.0f, 0.0f, 1.0f);
   glClear(GL_COLOR_BUFFER_BIT);
   draw_triangle();
}

static void
check_clear_and_triangle(void)
{
   static const unsigned char red[4] = {255, 0, 0, 255}, green[4] = {0, 255, 0, 255};
   expect_pixel(2, 2, green, 0, "triangle");
   expect_pixel(SIZE_PX - 3, SIZE_PX - 3, red, 0, "clear");
   expect_pixel(SIZE_PX / 4, SIZE_PX / 2 + SIZE_PX / 8, green, 0, "triangle");
   expect_pixel(SIZE_PX - 3, 2, red, 0, "clear beside the triangle");
}

typedef GLenum (*reset_status_fn)(void);

/* The first render runs out of parameter memory (the fixture's job 0): the
 * application hears of it as a GL_KHR_debug error saying out of memory, the
 * context is not lost, and the next render is right. */
static int
job_out_of_memory_test(void)
{
   reset_status_fn get_reset_status =
      (reset_status_fn)eglGetProcAddress("glGetGraphicsResetStatusEXT");
   CHECK(get_reset_status, "no glGetGraphicsResetStatusEXT");
   clear_and_triangle();
   /* The render is submitted and waited for; the flush after it sees it failed. */
   glFinish();
   glFlush();
   int after_first = oom_messages;
   printf("egl_drm: %d out-of-memory debug message(s) after the first render\n", after_first);
   CHECK(oom_messages == 1, "the render out of memory gave %d GL_KHR_debug error(s) saying "
                            "out of memory, not 1", oom_messages);
   GLenum status = get_reset_status ? get_reset_status() : GL_NO_ERROR;
   printf("egl_drm: reset status 0x%04x\n", status);
   CHECK(status == GL_NO_ERROR, "a render out of memory lost the context (status 0x%04x)",
         status);
   clear_and_triangle();
   check_clear_and_triangle();
   glFinish();
   glFlush();
   CHECK(oom_messages == after_first, "the second render ran out of memory too");
   CHECK(glGetError() == GL_NO_ERROR, "a GL error after the second render");
   if (failures)
      return 1;
   printf("egl_drm: JOB-OOM-OK\n");
   return 0;
}

/* Textures until one fails; then the context still clears and reads back. */
static int
out_of_memory_test(void)
{
   static unsigned char texels[SIZE_PX * SIZE_PX * 4];
   GLenum first_error = GL_NO_ERROR;
   int n;
   for (n = 0; n < 256 && first_error == GL_NO_ERROR; n++) {
      new_texture(texels);
      first_error = glGetError();
   }
   printf("egl_drm: texture %d gave GL error 0x%x\n", n, first_error);
   CHECK(first_error == GL_OUT_OF_MEMORY, "no GL_OUT_OF_MEMORY from a failed allocation");
   GLuint target = new_texture(NULL);
   CHECK(glGetError() == GL_NO_ERROR, "the next texture failed too");
   fbo_on(target, 0);
   glViewport(0, 0, SIZE_PX, SIZE_PX);
   glClearColor(0.0f, 0.0f, 1.0f, 1.0f);
   glClear(GL_COLOR_BUFFER_BIT);
   static const unsigned char blue[4] = {0, 0, 255, 255};
   expect_pixel(3, 3, blue, 0, "clear after the failed allocation");
   if (failures)
      return 1;
   printf("egl_drm: OOM-OK\n");
   return 0;
}

int
main(int argc, char **argv)
{
   int oom = argc > 1 && strcmp(argv[1], "--oom") == 0;
   int fault = argc > 1 && strcmp(argv[1], "--fault") == 0;
   int job_oom = argc > 1 && strcmp(argv[1], "--job-oom") == 0;
   if (oom || fault || job_oom) {
      argc--;
      argv++;
   }
   const char *node = argc > 1 ? argv[1] : "/dev/dri/renderD128";
   int fd = open(node, O_RDWR | O_CLOEXEC);
   if (fd < 0) {
      perror(node);
      return 2;
   }
   struct gbm_device *gbm = gbm_create_device(fd);
   if (!gbm) {
      fprintf(stderr, "egl_drm: gbm_create_device failed\n");
      return 2;
   }
   EGLDisplay dpy = eglGetPlatformDisplay(EGL_PLATFORM_GBM_KHR, gbm, NULL);
   EGLint major, minor;
   if (dpy == EGL_NO_DISPLAY || !eglInitialize(dpy, &major, &minor)) {
      fprintf(stderr, "egl_drm: eglInitialize failed (0x%x)\n", eglGetError());
      return 2;
   }
   static const EGLint cfg_attribs[] = {EGL_RENDERABLE_TYPE, EGL_OPENGL_ES2_BIT, EGL_NONE};
   EGLConfig cfg;
   EGLint n = 0;
   eglChooseConfig(dpy, cfg_attribs, &cfg, 1, &n);
   static const EGLint plain_attribs[] = {EGL_CONTEXT_CLIENT_VERSION, 2, EGL_NONE};
   static const EGLint robust_attribs[] = {
      EGL_CONTEXT_CLIENT_VERSION, 2,
      EGL_CONTEXT_OPENGL_RESET_NOTIFICATION_STRATEGY_EXT, EGL_LOSE_CONTEXT_ON_RESET_EXT,
      EGL_NONE};
   const EGLint *ctx_attribs = plain_attribs;
   if (fault || job_oom) {
      const char *exts = eglQueryString(dpy, EGL_EXTENSIONS);
      if (!exts || !strstr(exts, "EGL_EXT_create_context_robustness")) {
         printf("egl_drm: NO-ROBUSTNESS (EGL_EXT_create_context_robustness not offered)\n");
         return 1;
      }
      ctx_attribs = robust_attribs;
   }
   eglBindAPI(EGL_OPENGL_ES_API);
   EGLContext ctx = eglCreateContext(dpy, n ? cfg : EGL_NO_CONFIG_KHR, EGL_NO_CONTEXT, ctx_attribs);
   if (ctx == EGL_NO_CONTEXT || !eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, ctx)) {
      fprintf(stderr, "egl_drm: no surfaceless GLES2 context (0x%x)\n", eglGetError());
      return 2;
   }
   const char *renderer = (const char *)glGetString(GL_RENDERER);
   printf("egl_drm: GL_RENDERER %s; GL_VERSION %s\n", renderer, glGetString(GL_VERSION));
   CHECK(renderer && strstr(renderer, "SGX535"), "renderer is not SGX535");
   if (oom)
      return out_of_memory_test();
   if (fault || job_oom) {
      debug_callback_khr_fn set_callback =
         (debug_callback_khr_fn)eglGetProcAddress("glDebugMessageCallbackKHR");
      CHECK(set_callback, "no glDebugMessageCallbackKHR");
      if (set_callback) {
         set_callback(print_debug_message, NULL);
         glEnable(DEBUG_OUTPUT_SYNCHRONOUS_KHR);
         glEnable(DEBUG_OUTPUT_KHR);
      }
   }

   if (job_oom)
      return job_out_of_memory_test();

   clear_and_triangle();
   check_clear_and_triangle();

   /* Mipmaps: columns alternately black and white average to grey at 1x1. */
   static unsigned char texels[SIZE_PX * SIZE_PX * 4];
   for (int i = 0; i < SIZE_PX * SIZE_PX; i++) {
      unsigned char v = (i % 2) ? 255 : 0;
      memset(&texels[i * 4], v, 3);
      texels[i * 4 + 3] = 255;
   }
   GLuint mip = new_texture(texels);
   glGenerateMipmap(GL_TEXTURE_2D);
   CHECK(glGetError() == GL_NO_ERROR, "glGenerateMipmap raised an error");
   int last = 0;
   while ((SIZE_PX >> last) > 1)
      last++;
   fbo_on(mip, last);
   static const unsigned char grey[4] = {128, 128, 128, 255};
   expect_pixel(0, 0, grey, 2, "1x1 mip level");
   fbo_on(mip, 1);
   expect_pixel(5, 7, grey, 2, "32x32 mip level");

   if (fault) {
      reset_status_fn get_reset_status =
         (reset_status_fn)eglGetProcAddress("glGetGraphicsResetStatusEXT");
      glFinish();
      GLenum status = get_reset_status ? get_reset_status() : GL_NO_ERROR;
      /* GL_GUILTY_CONTEXT_RESET_EXT 0x8253, INNOCENT 0x8254, UNKNOWN 0x8255. The pixel
       * checks above fail once the context is lost (its calls do nothing): expected here. */
      printf("egl_drm: reset status 0x%04x\n", status);
      if (status != GL_NO_ERROR)
         printf("egl_drm: FAULT-OK\n");
      /* The pixel checks' failures are not this mode's: the status is. */
      failures = status == GL_NO_ERROR;
   }
   eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
   eglDestroyContext(dpy, ctx);
   eglTerminate(dpy);
   gbm_device_destroy(gbm);
   close(fd);
   if (failures)
      return 1;
   if (fault)
      return 0;
   printf("egl_drm: OK\n");
   return 0;
}
