/*
 * Copyright 2026 the sgx535 authors
 * SPDX-License-Identifier: MIT
 *
 * LD_PRELOAD helper for mesa/test.sh and mesa/bench.sh: makes glxgears (which
 * has no frame-count option) stop after a fixed number of frames, through its
 * own clean exit path (an Escape key press), so that Mesa destroys the screen
 * and the driver's SGX535_STATS line is printed.
 *
 *   GEARS_FRAMES=N        frames to draw, then press Escape
 *   GEARS_FIXED_CLOCK=1   gettimeofday advances 1/60 s per frame: frame N shows
 *                         the same gear angle on every driver, whatever its speed
 *   GEARS_SHOT_READY=F    after frame N's swap, create F and wait until
 *   GEARS_SHOT_TAKEN=F    F exists (the test takes the screenshot in between)
 *   GEARS_FPS=1           print "gears_frames: fps=F frames=N seconds=S" at frame N,
 *                         timed from the end of frame 1 (start-up is not counted)
 */
#define _GNU_SOURCE
#include <GL/glx.h>
#include <X11/Xlib.h>
#include <X11/keysym.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <stdlib.h>
#include <stdio.h>
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

int
gettimeofday(struct timeval *tv, void *tz)
{
   static int (*real)(struct timeval *, void *);
   if (!real)
      real = (int (*)(struct timeval *, void *))dlsym(RTLD_NEXT, "gettimeofday");
   if (!env_ul("GEARS_FIXED_CLOCK", 0))
      return real(tv, tz);
   unsigned long long us = 1000000ull + frames * 1000000ull / 60;
   tv->tv_sec = us / 1000000;
   tv->tv_usec = us % 1000000;
   return 0;
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

void
glXSwapBuffers(Display *dpy, GLXDrawable drawable)
{
   static void (*real)(Display *, GLXDrawable);
   if (!real)
      real = (void (*)(Display *, GLXDrawable))dlsym(RTLD_NEXT, "glXSwapBuffers");
   real(dpy, drawable);
   frames++;
   if (frames == 1)
      clock_gettime(CLOCK_MONOTONIC, &first_frame);

   unsigned long limit = env_ul("GEARS_FRAMES", 0);
   if (!limit || frames != limit)
      return;
   if (env_ul("GEARS_FPS", 0) && frames > 1) {
      /* glFinish is implied: the swap of a software window system copies
       * the finished frame. */
      double s = seconds_since(&first_frame);
      fprintf(stderr, "gears_frames: fps=%.1f frames=%lu seconds=%.3f\n", (frames - 1) / s,
              frames - 1, s);
   }
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
