/*
 * Copyright 2026 the sgx535 authors
 * SPDX-License-Identifier: MIT
 *
 * Textured fill rate, for mesa/bench.sh: a 512x512 window, each frame QUADS
 * full-window quads sampling a 256x256 RGBA8 texture (bilinear, no blending),
 * then a swap. Prints "texfill: mpix_per_s=M frames=N quads=Q seconds=S".
 *
 *   texfill [frames] [quads-per-frame]
 */
#include <GL/gl.h>
#include <GL/glx.h>
#include <X11/Xlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "glx_window.h"

#define SIZE_PX 512
#define TEX_PX 256

int
main(int argc, char **argv)
{
   int frames = argc > 1 ? atoi(argv[1]) : 50;
   int quads = argc > 2 ? atoi(argv[2]) : 8;
   struct glx_window w;
   if (glx_window_open(&w, "texfill", SIZE_PX, 0))
      return 1;

   static unsigned char texels[TEX_PX * TEX_PX * 4];
   for (int y = 0; y < TEX_PX; y++) {
      for (int x = 0; x < TEX_PX; x++) {
         unsigned char *t = &texels[(y * TEX_PX + x) * 4];
         t[0] = (unsigned char)x;
         t[1] = (unsigned char)y;
         t[2] = ((x / 16 + y / 16) & 1) ? 255 : 0;
         t[3] = 255;
      }
   }
   GLuint tex;
   glGenTextures(1, &tex);
   glBindTexture(GL_TEXTURE_2D, tex);
   glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
   glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
   glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, TEX_PX, TEX_PX, 0, GL_RGBA, GL_UNSIGNED_BYTE, texels);
   glEnable(GL_TEXTURE_2D);
   glViewport(0, 0, SIZE_PX, SIZE_PX);

   struct timespec t0, t1;
   for (int f = 0; f <= frames; f++) {
      if (f == 1) {
         glFinish();
         clock_gettime(CLOCK_MONOTONIC, &t0); /* frame 0 warms up shaders and textures */
      }
      glClear(GL_COLOR_BUFFER_BIT);
      for (int q = 0; q < quads; q++) {
         float o = (float)q / (float)quads;
         glBegin(GL_TRIANGLE_STRIP);
         glTexCoord2f(o, 0);
         glVertex2f(-1, -1);
         glTexCoord2f(o + 1, 0);
         glVertex2f(1, -1);
         glTexCoord2f(o, 1);
         glVertex2f(-1, 1);
         glTexCoord2f(o + 1, 1);
         glVertex2f(1, 1);
         glEnd();
      }
      glXSwapBuffers(w.dpy, w.win);
   }
   glFinish();
   clock_gettime(CLOCK_MONOTONIC, &t1);
   double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
   GLenum err = glGetError();
   printf("texfill: mpix_per_s=%.1f frames=%d quads=%d seconds=%.3f gl_error=0x%x\n",
          (double)frames * quads * SIZE_PX * SIZE_PX / s / 1e6, frames, quads, s, err);

   glx_window_close(&w);
   return err == GL_NO_ERROR ? 0 : 1;
}
