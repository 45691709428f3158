/*
 * Copyright 2026 the sgx535 authors
 * SPDX-License-Identifier: MIT
 *
 * LD_PRELOAD helper for mesa/test.sh, mesa/bench.sh and mesa/apps.sh: makes
 * glxgears (which has no frame-count option) stop after a fixed number of
 * frames, through its own clean exit path (an Escape key press), so that Mesa
 * destroys the screen and the driver's SGX535_STATS line is printed; gives
 * glmark2 a frame clock and reads a chosen frame back to a file.
 *
 *   GEARS_FRAMES=N        frames to draw, then press Escape
 *   GEARS_FIXED_CLOCK=1   the program's clock advances 1/60 s per frame
 *                         (gettimeofday, and clock_gettime(CLOCK_MONOTONIC) and
 *                         time() when called from the program itself, not from
 *                         Mesa or the library, whose timeouts need real time):
 *                         frame N shows the same picture on every driver,
 *                         whatever its speed
 *   GEARS_SHOT_READY=F    after frame N's swap, create F and wait until
 *   GEARS_SHOT_TAKEN=F    F exists (the test takes the screenshot in between)
 *   GEARS_FPS=1           print "gears_frames: fps=F frames=N seconds=S" at frame N
 *                         (or at exit when no GEARS_FRAMES), timed from the end of
 *                         frame 1 (start-up is not counted)
 *   GEARS_READ_AT=N       before frame N's swap, glReadPixels the back buffer
 *   GEARS_READ_FILE=F     into F, a binary PPM (top row first)
 *
 * Swaps are caught both as direct calls (glxgears links libGL) and through
 * dlsym (glmark2 dlopens libGL / libEGL and looks glXSwapBuffers and
 * eglSwapBuffers up by name).
 */
#define _GNU_SOURCE
#include <EGL/egl.h>
#include <GL/glx.h>
#include <X11/Xlib.h>
#include <X11/keysym.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static unsigned long frames;
static struct timespec first_frame;

static double
seconds_since(const struct timespec *t0)
{
   struct timespec t;
   clock_gettime(CLOCK_MONOTONIC, &t);
   return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) * 1e-9;
}

static unsigned long
env_ul(const char *name, unsigned long dflt)
{
   const char *v = getenv(name);
   return v && *v ? strtoul(v, NULL, 10) : dflt;
}

/* The main program's address range (the first object dl_iterate_phdr lists):
 * the fixed clock applies to its calls only. */
static uintptr_t exe_lo, exe_hi;

static int
find_exe(struct dl_phdr_info *info, size_t size, void *data)
{
   (void)size;
   (void)data;
   for (int i = 0; i < info->dlpi_phnum; i++) {
      const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
      if (ph->p_type != PT_LOAD)
         continue;
      uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
      if (!exe_lo || lo < exe_lo)
         exe_lo = lo;
      if (hi > exe_hi)
         exe_hi = hi;
   }
   return 1; /* the first object is the program */
}

static int
called_from_program(const void *ret)
{
   if (!exe_hi)
      dl_iterate_phdr(find_exe, NULL);
   return (uintptr_t)ret >= exe_lo && (uintptr_t)ret < exe_hi;
}

static unsigned long long
fixed_clock_us(void)
{
   return 1000000ull + frames * 1000000ull / 60;
}

int
gettimeofday(struct timeval *tv, void *tz)
{
   static int (*real)(struct timeval *, void *);
   if (!real)
      real = (int (*)(struct timeval *, void *))dlsym(RTLD_NEXT, "gettimeofday");
   if (!env_ul("GEARS_FIXED_CLOCK", 0))
      return real(tv, tz);
   unsigned long long us = fixed_clock_us();
   tv->tv_sec = us / 1000000;
   tv->tv_usec = us % 1000000;
   return 0;
}

int
clock_gettime(clockid_t id, struct timespec *ts)
{
   static int (*real)(clockid_t, struct timespec *);
   if (!real)
      real = (int (*)(clockid_t, struct timespec *))dlsym(RTLD_NEXT, "clock_gettime");
   if (id != CLOCK_MONOTONIC || !env_ul("GEARS_FIXED_CLOCK", 0) ||
       !called_from_program(__builtin_return_address(0)))
      return real(id, ts);
   unsigned long long us = fixed_clock_us();
   ts->tv_sec = us / 1000000;
   ts->tv_nsec = (us % 1000000) * 1000;
   return 0;
}

time_t
time(time_t *t)
{
   static time_t (*real)(time_t *);
   if (!real)
      real = (time_t(*)(time_t *))dlsym(RTLD_NEXT, "time");
   if (!env_ul("GEARS_FIXED_CLOCK", 0) || !called_from_program(__builtin_return_address(0)))
      return real(t);
   /* A fixed seed for the program's srand(time(NULL)). */
   time_t v = (time_t)(fixed_clock_us() / 1000000);
   if (t)
      *t = v;
   return v;
}

static void
press_escape(Display *dpy, GLXDrawable win)
{
   XKeyEvent ev = {0};
   ev.type = KeyPress;
   ev.display = dpy;
   ev.window = win;
   ev.root = DefaultRootWindow(dpy);
   ev.same_screen = True;
   ev.keycode = XKeysymToKeycode(dpy, XK_Escape);
   XSendEvent(dpy, win, True, KeyPressMask, (XEvent *)&ev);
   XFlush(dpy);
}

/* A GL entry point from whichever GL library the program loaded (glvnd's
 * libGL and libGLESv2 both dispatch to the current context). */
static void *
gl_proc(const char *name)
{
   static const char *const libs[] = {"libGLESv2.so.2", "libGL.so.1", "libOpenGL.so.0"};
   for (unsigned i = 0; i < sizeof(libs) / sizeof(libs[0]); i++) {
      void *h = dlopen(libs[i], RTLD_LAZY | RTLD_NOLOAD);
      void *p = h ? dlsym(h, name) : NULL;
      if (p)
         return p;
   }
   return NULL;
}

/* Reads the back buffer (w x h) into GEARS_READ_FILE as a PPM, top row first. */
static void
read_frame(int w, int h)
{
   const char *path = getenv("GEARS_READ_FILE");
   void (*read_pixels)(GLint, GLint, GLsizei, GLsizei, GLenum, GLenum, void *) =
      (void (*)(GLint, GLint, GLsizei, GLsizei, GLenum, GLenum, void *))gl_proc("glReadPixels");
   void (*pixel_store)(GLenum, GLint) = (void (*)(GLenum, GLint))gl_proc("glPixelStorei");
   if (!path || !read_pixels || !pixel_store || w <= 0 || h <= 0) {
      fprintf(stderr, "gears_frames: cannot read frame %lu (%dx%d)\n", frames + 1, w, h);
      return;
   }
   unsigned char *rgba = malloc((size_t)w * h * 4);
   if (!rgba)
      return;
   pixel_store(GL_PACK_ALIGNMENT, 1);
   read_pixels(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, rgba);
   pixel_store(GL_PACK_ALIGNMENT, 4);
   FILE *f = fopen(path, "wb");
   if (f) {
      fprintf(f, "P6\n%d %d\n255\n", w, h);
      for (int y = h - 1; y >= 0; y--)
         for (int x = 0; x < w; x++)
            fwrite(rgba + ((size_t)y * w + x) * 4, 1, 3, f);
      fclose(f);
      fprintf(stderr, "gears_frames: read frame %lu (%dx%d) to %s\n", frames + 1, w, h, path);
   }
   free(rgba);
}

static void
print_fps(void)
{
   static int printed;
   if (printed || !env_ul("GEARS_FPS", 0) || frames < 2)
      return;
   printed = 1;
   /* glFinish is implied: the swap of a software window system copies the
    * finished frame. */
   double s = seconds_since(&first_frame);
   fprintf(stderr, "gears_frames: fps=%.1f frames=%lu seconds=%.3f\n", (frames - 1) / s,
           frames - 1, s);
}

__attribute__((destructor)) static void
at_exit(void)
{
   print_fps();
}

/* Before a swap: read the frame if it is the chosen one. */
static void
before_swap(int w, int h)
{
   if (env_ul("GEARS_READ_AT", 0) == frames + 1)
      read_frame(w, h);
}

/* After a swap: count it; at the frame limit, screenshot hand-shake and Escape. */
static void
after_swap(Display *dpy, GLXDrawable drawable)
{
   frames++;
   if (frames == 1)
      clock_gettime(CLOCK_MONOTONIC, &first_frame);

   unsigned long limit = env_ul("GEARS_FRAMES", 0);
   if (!limit || frames != limit)
      return;
   print_fps();
   const char *ready = getenv("GEARS_SHOT_READY");
   const char *taken = getenv("GEARS_SHOT_TAKEN");
   if (ready && taken) {
      XSync(dpy, False);
      int fd = open(ready, O_CREAT | O_WRONLY, 0644);
      if (fd >= 0)
         close(fd);
      while (access(taken, F_OK) != 0)
         usleep(10000);
   }
   press_escape(dpy, drawable);
}

typedef void (*glx_swap_fn)(Display *, GLXDrawable);
typedef EGLBoolean (*egl_swap_fn)(EGLDisplay, EGLSurface);
static glx_swap_fn real_glx_swap;
static egl_swap_fn real_egl_swap;
static void *(*real_dlsym)(void *, const char *);

void
glXSwapBuffers(Display *dpy, GLXDrawable drawable)
{
   if (!real_glx_swap)
      real_glx_swap = (glx_swap_fn)dlsym(RTLD_NEXT, "glXSwapBuffers");
   if (env_ul("GEARS_READ_AT", 0) == frames + 1) {
      Window root;
      int x, y;
      unsigned w = 0, h = 0, border, depth;
      XGetGeometry(dpy, drawable, &root, &x, &y, &w, &h, &border, &depth);
      before_swap((int)w, (int)h);
   }
   real_glx_swap(dpy, drawable);
   after_swap(dpy, drawable);
}

EGLBoolean
eglSwapBuffers(EGLDisplay dpy, EGLSurface surface)
{
   if (!real_egl_swap)
      real_egl_swap = (egl_swap_fn)dlsym(RTLD_NEXT, "eglSwapBuffers");
   if (env_ul("GEARS_READ_AT", 0) == frames + 1) {
      EGLBoolean (*query)(EGLDisplay, EGLSurface, EGLint, EGLint *) =
         (EGLBoolean(*)(EGLDisplay, EGLSurface, EGLint, EGLint *))real_dlsym(
            dlopen("libEGL.so.1", RTLD_LAZY | RTLD_NOLOAD), "eglQuerySurface");
      EGLint w = 0, h = 0;
      if (query) {
         query(dpy, surface, EGL_WIDTH, &w);
         query(dpy, surface, EGL_HEIGHT, &h);
      }
      before_swap(w, h);
   }
   EGLBoolean ok = real_egl_swap(dpy, surface);
   frames++;
   if (frames == 1)
      clock_gettime(CLOCK_MONOTONIC, &first_frame);
   return ok;
}

/* glmark2 looks its swap functions up by name in the library it dlopened:
 * hand it the wrappers above (only to the program itself; every other caller,
 * Mesa and glvnd included, gets the real answer). */
void *
dlsym(void *handle, const char *name)
{
   if (!real_dlsym)
      real_dlsym = (void *(*)(void *, const char *))dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
   if (!real_dlsym)
      real_dlsym = (void *(*)(void *, const char *))dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
   if (handle != RTLD_NEXT && called_from_program(__builtin_return_address(0))) {
      if (!strcmp(name, "glXSwapBuffers")) {
         real_glx_swap = (glx_swap_fn)real_dlsym(handle, name);
         return real_glx_swap ? (void *)glXSwapBuffers : NULL;
      }
      if (!strcmp(name, "eglSwapBuffers")) {
         real_egl_swap = (egl_swap_fn)real_dlsym(handle, name);
         return real_egl_swap ? (void *)eglSwapBuffers : NULL;
      }
   }
   return real_dlsym(handle, name);
}
