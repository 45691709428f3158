/*
 * Copyright 2026 the sgx535 authors
 * SPDX-License-Identifier: MIT
 *
 * A mapped square X window with a current GLX context (RGBA8, double-buffered,
 * `depth_bits` of depth), as the GL test programs (demos.c, texfill.c) open
 * and close it. Included by one source file each; everything is static.
 */
#ifndef SGX535_TESTS_GLX_WINDOW_H
#define SGX535_TESTS_GLX_WINDOW_H

#include <GL/glx.h>
#include <X11/Xlib.h>
#include <stdio.h>

struct glx_window {
   Display *dpy;
   Window win;
   GLXContext ctx;
};

/* Opens the window of `size_px` x `size_px` and makes its context current.
 * Returns 0, or 1 after printing "<prog>: no display" / "<prog>: no visual". */
static int
glx_window_open(struct glx_window *w, const char *prog, int size_px, int depth_bits)
{
   w->dpy = XOpenDisplay(NULL);
   if (!w->dpy) {
      fprintf(stderr, "%s: no display\n", prog);
      return 1;
   }
   int attribs[] = {GLX_RGBA, GLX_RED_SIZE, 8, GLX_GREEN_SIZE, 8, GLX_BLUE_SIZE, 8,
                    GLX_DEPTH_SIZE, depth_bits, GLX_DOUBLEBUFFER, None};
   XVisualInfo *vi = glXChooseVisual(w->dpy, DefaultScreen(w->dpy), attribs);
   if (!vi) {
      fprintf(stderr, "%s: no visual\n", prog);
      return 1;
   }
   Window root = RootWindow(w->dpy, vi->screen);
   XSetWindowAttributes swa = {0};
   swa.colormap = XCreateColormap(w->dpy, root, vi->visual, AllocNone);
   w->win = XCreateWindow(w->dpy, root, 0, 0, size_px, size_px, 0, vi->depth, InputOutput,
                          vi->visual, CWColormap, &swa);
   XMapWindow(w->dpy, w->win);
   w->ctx = glXCreateContext(w->dpy, vi, NULL, True);
   glXMakeCurrent(w->dpy, w->win, w->ctx);
   XFree(vi);
   return 0;
}

/* Releases the context, the window and the display. */
static void
glx_window_close(struct glx_window *w)
{
   glXMakeCurrent(w->dpy, None, NULL);
   glXDestroyContext(w->dpy, w->ctx);
   XDestroyWindow(w->dpy, w->win);
   XCloseDisplay(w->dpy);
}

#endif
