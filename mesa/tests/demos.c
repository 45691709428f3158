/*
 * Copyright 2026 the sgx535 authors
 * SPDX-License-Identifier: MIT
 *
 * The project's demos (`sgx535 demo cube|shadow`, cli/src/cmd_demo) as GL
 * programs, for mesa/apps.sh: the same scenes, drawn the way a GL 2.1
 * application draws them, so they reach the library through Mesa.
 *
 *   demos cube|shadow [frames] [size-px]
 *
 * cube:   fixed-function lighting (one directional light), a 128x128 checker
 *         texture whose mip chain glGenerateMipmap makes, trilinear filtering,
 *         depth test, back-face culling, perspective; turning 9 and 15 degrees
 *         a frame as the Rust demo does.
 * shadow: a box on a floor lit by a light circling it 20 degrees a frame; two
 *         passes a frame: depth from the light into a 256x256 depth texture (an
 *         FBO with no colour buffer), then the camera's pass with GLSL 1.20's
 *         shadow2DProj through a LEQUAL compare sampler (LINEAR: 2x2 PCF).
 * glxgears is the third demo (`sgx535 demo gears`); mesa/apps.sh runs it itself.
 *
 * Frames are drawn back to back and swapped; mesa/tests/gears_frames.c (an
 * LD_PRELOAD) reads a frame back and times them. Exit status 1 on a GL error.
 */
#define GL_GLEXT_PROTOTYPES
#include <GL/gl.h>
#include <GL/glext.h>
#include <GL/glx.h>
#include <X11/Xlib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "glx_window.h"

typedef float mat4[16]; /* column-major, as GL takes it */

static void
mat_identity(mat4 m)
{
   memset(m, 0, sizeof(mat4));
   m[0] = m[5] = m[10] = m[15] = 1.0f;
}

static void
mat_mul(mat4 out, const mat4 a, const mat4 b)
{
   mat4 r;
   for (int c = 0; c < 4; c++)
      for (int row = 0; row < 4; row++) {
         float s = 0;
         for (int k = 0; k < 4; k++)
            s += a[k * 4 + row] * b[c * 4 + k];
         r[c * 4 + row] = s;
      }
   memcpy(out, r, sizeof(mat4));
}

static void
mat_ortho(mat4 m, float l, float r, float b, float t, float n, float f)
{
   mat_identity(m);
   m[0] = 2 / (r - l);
   m[5] = 2 / (t - b);
   m[10] = -2 / (f - n);
   m[12] = -(r + l) / (r - l);
   m[13] = -(t + b) / (t - b);
   m[14] = -(f + n) / (f - n);
}

static void
mat_perspective(mat4 m, float fovy_deg, float n, float f)
{
   float c = 1.0f / tanf(fovy_deg * (float)M_PI / 360.0f);
   memset(m, 0, sizeof(mat4));
   m[0] = m[5] = c;
   m[10] = (f + n) / (n - f);
   m[11] = -1;
   m[14] = 2 * f * n / (n - f);
}

static void
normalize3(float v[3])
{
   float l = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
   v[0] /= l, v[1] /= l, v[2] /= l;
}

static void
cross3(float o[3], const float a[3], const float b[3])
{
   o[0] = a[1] * b[2] - a[2] * b[1];
   o[1] = a[2] * b[0] - a[0] * b[2];
   o[2] = a[0] * b[1] - a[1] * b[0];
}

static void
mat_look_at(mat4 m, const float eye[3], const float at[3])
{
   float f[3] = {at[0] - eye[0], at[1] - eye[1], at[2] - eye[2]}, up[3] = {0, 1, 0}, s[3], u[3];
   normalize3(f);
   cross3(s, f, up);
   normalize3(s);
   cross3(u, s, f);
   mat_identity(m);
   for (int k = 0; k < 3; k++) {
      m[k * 4 + 0] = s[k];
      m[k * 4 + 1] = u[k];
      m[k * 4 + 2] = -f[k];
   }
   m[12] = -(s[0] * eye[0] + s[1] * eye[1] + s[2] * eye[2]);
   m[13] = -(u[0] * eye[0] + u[1] * eye[1] + u[2] * eye[2]);
   m[14] = f[0] * eye[0] + f[1] * eye[1] + f[2] * eye[2];
}

/* ---- cube (cli/src/cmd_demo/cube.rs) ---- */
#define TEX_PX 128
#define CHECK_PX 16

static const float face_axes[6][3][3] = {
   {{1, 0, 0}, {0, 0, -1}, {0, 1, 0}},  {{-1, 0, 0}, {0, 0, 1}, {0, 1, 0}},
   {{0, 1, 0}, {1, 0, 0}, {0, 0, -1}},  {{0, -1, 0}, {1, 0, 0}, {0, 0, 1}},
   {{0, 0, 1}, {1, 0, 0}, {0, 1, 0}},   {{0, 0, -1}, {-1, 0, 0}, {0, 1, 0}},
};
static const float corners[4][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};

static void
cube_setup(void)
{
   static unsigned char t[TEX_PX * TEX_PX * 4];
   for (int y = 0; y < TEX_PX; y++)
      for (int x = 0; x < TEX_PX; x++) {
         unsigned char *p = &t[(y * TEX_PX + x) * 4];
         if (((x / CHECK_PX) + (y / CHECK_PX)) % 2 == 0) {
            p[0] = 250, p[1] = 170 + x * 80 / TEX_PX, p[2] = 40 + y * 60 / TEX_PX;
         } else {
            p[0] = 30 + y * 40 / TEX_PX, p[1] = 50, p[2] = 150 + x * 100 / TEX_PX;
         }
         p[3] = 255;
      }
   GLuint tex;
   glGenTextures(1, &tex);
   glBindTexture(GL_TEXTURE_2D, tex);
   glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, TEX_PX, TEX_PX, 0, GL_RGBA, GL_UNSIGNED_BYTE, t);
   glGenerateMipmap(GL_TEXTURE_2D);
   glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR_MIPMAP_LINEAR);
   glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
   glTexEnvi(GL_TEXTURE_ENV, GL_TEXTURE_ENV_MODE, GL_MODULATE);
   glEnable(GL_TEXTURE_2D);

   glEnable(GL_LIGHTING);
   glEnable(GL_LIGHT0);
   const float white[4] = {1, 1, 1, 1}, black[4] = {0, 0, 0, 1};
   const float diffuse[4] = {0.85f, 0.85f, 0.85f, 1}, ambient[4] = {0.2f, 0.2f, 0.2f, 1};
   glLightModelfv(GL_LIGHT_MODEL_AMBIENT, black);
   glLightfv(GL_LIGHT0, GL_DIFFUSE, diffuse);
   glLightfv(GL_LIGHT0, GL_AMBIENT, ambient);
   glLightfv(GL_LIGHT0, GL_SPECULAR, black);
   glMaterialfv(GL_FRONT_AND_BACK, GL_AMBIENT_AND_DIFFUSE, white);
   glEnable(GL_DEPTH_TEST);
   glEnable(GL_CULL_FACE);
   glEnable(GL_NORMALIZE);
   glMatrixMode(GL_PROJECTION);
   mat4 p;
   mat_perspective(p, 40, 1, 20);
   glLoadMatrixf(p);
   glMatrixMode(GL_MODELVIEW);
}

static void
cube_draw(int frame)
{
   glClearColor(0.08f, 0.09f, 0.14f, 1);
   glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
   glLoadIdentity();
   /* The light's direction is given in eye space, as the Rust demo's. */
   const float light_dir[4] = {0.4f, 0.6f, 1.0f, 0};
   glLightfv(GL_LIGHT0, GL_POSITION, light_dir);
   glTranslatef(0, 0, -6);
   glRotatef(25.0f + 9.0f * frame, 1, 0, 0);
   glRotatef(35.0f + 15.0f * frame, 0, 1, 0);
   glBegin(GL_QUADS);
   for (int f = 0; f < 6; f++) {
      const float *n = face_axes[f][0], *u = face_axes[f][1], *v = face_axes[f][2];
      glNormal3fv(n);
      for (int c = 0; c < 4; c++) {
         float su = corners[c][0], sv = corners[c][1];
         glTexCoord2f((su + 1) / 2 * 2, (sv + 1) / 2 * 2);
         glVertex3f(n[0] + su * u[0] + sv * v[0], n[1] + su * u[1] + sv * v[1],
                    n[2] + su * u[2] + sv * v[2]);
      }
   }
   glEnd();
}

/* ---- shadow (cli/src/cmd_demo/shadow.rs, shadow_scene.rs) ---- */
#define SHADOW_MAP_PX 256
static const float eye_pos[3] = {0.0f, 4.2f, 7.5f}, look_at[3] = {0.4f, 0.2f, 0.4f};
static GLuint shadow_fbo, shadow_tex, prog_depth, prog_main;

/* Prints the info log of shader or program `obj` when its `status` (GL_COMPILE_STATUS
 * through glGetShaderiv, GL_LINK_STATUS through glGetProgramiv) is false. */
static void
report_failure(GLuint obj, GLenum status, PFNGLGETSHADERIVPROC get_iv,
               PFNGLGETSHADERINFOLOGPROC get_log, const char *what)
{
   GLint ok;
   get_iv(obj, status, &ok);
   if (!ok) {
      char log[1024];
      get_log(obj, sizeof(log), NULL, log);
      fprintf(stderr, "demos: %s: %s\n", what, log);
   }
}

static GLuint
compile(GLenum stage, const char *src)
{
   GLuint s = glCreateShader(stage);
   glShaderSource(s, 1, &src, NULL);
   glCompileShader(s);
   report_failure(s, GL_COMPILE_STATUS, glGetShaderiv, glGetShaderInfoLog, "shader");
   return s;
}

static GLuint
link_program(const char *vs, const char *fs)
{
   GLuint p = glCreateProgram();
   glAttachShader(p, compile(GL_VERTEX_SHADER, vs));
   glAttachShader(p, compile(GL_FRAGMENT_SHADER, fs));
   glLinkProgram(p);
   report_failure(p, GL_LINK_STATUS, glGetProgramiv, glGetProgramInfoLog, "link");
   return p;
}

static const char *vs_depth = "#version 120\n"
                              "uniform mat4 mvp;\n"
                              "void main() { gl_Position = mvp * gl_Vertex; }\n";
static const char *fs_depth = "#version 120\n"
                              "void main() { gl_FragColor = vec4(1.0); }\n";
static const char *vs_main =
   "#version 120\n"
   "uniform mat4 mvp, shadow_m;\n"
   "uniform vec3 to_light;\n"
   "varying vec4 diffuse, ambient, shadow_coord;\n"
   "void main() {\n"
   "   gl_Position = mvp * gl_Vertex;\n"
   "   float d = max(dot(gl_Normal, to_light), 0.0);\n"
   "   diffuse = clamp(gl_Color * vec4(0.8, 0.8, 0.8, 0.0) * d, 0.0, 1.0);\n"
   "   ambient = clamp(gl_Color * vec4(0.3, 0.3, 0.3, 1.0), 0.0, 1.0);\n"
   "   shadow_coord = shadow_m * gl_Vertex;\n"
   "}\n";
static const char *fs_main = "#version 120\n"
                             "uniform sampler2DShadow map;\n"
                             "varying vec4 diffuse, ambient, shadow_coord;\n"
                             "void main() {\n"
                             "   float lit = shadow2DProj(map, shadow_coord).x;\n"
                             "   gl_FragColor = clamp(diffuse * lit + ambient, 0.0, 1.0);\n"
                             "}\n";

static void
towards_light(int frame, float l[3])
{
   float az = (100.0f + 20.0f * frame) * (float)M_PI / 180, el = 50.0f * (float)M_PI / 180;
   l[0] = cosf(el) * sinf(az), l[1] = sinf(el), l[2] = cosf(el) * cosf(az);
}

static void
box_to_world(const float p[3], float o[3])
{
   float s = sinf(30.0f * (float)M_PI / 180), c = cosf(30.0f * (float)M_PI / 180);
   o[0] = c * p[0] + s * p[2], o[1] = p[1] + 0.8f, o[2] = -s * p[0] + c * p[2];
}

static void
shadow_geometry(void)
{
   glBegin(GL_QUADS);
   glColor4f(0.70f, 0.74f, 0.80f, 1);
   glNormal3f(0, 1, 0);
   glVertex3f(-4, 0, 4), glVertex3f(4, 0, 4), glVertex3f(4, 0, -4), glVertex3f(-4, 0, -4);
   glColor4f(0.92f, 0.45f, 0.18f, 1);
   for (int f = 0; f < 6; f++) {
      const float *n = face_axes[f][0], *u = face_axes[f][1], *v = face_axes[f][2];
      float wn[3], zero[3] = {0, 0, 0}, o[3];
      box_to_world(n, wn);
      box_to_world(zero, o);
      glNormal3f(wn[0] - o[0], wn[1] - o[1], wn[2] - o[2]);
      for (int c = 0; c < 4; c++) {
         float p[3], w[3];
         for (int k = 0; k < 3; k++)
            p[k] = 0.8f * (n[k] + corners[c][0] * u[k] + corners[c][1] * v[k]);
         box_to_world(p, w);
         glVertex3fv(w);
      }
   }
   glEnd();
}

static void
shadow_setup(void)
{
   glGenTextures(1, &shadow_tex);
   glBindTexture(GL_TEXTURE_2D, shadow_tex);
   glTexImage2D(GL_TEXTURE_2D, 0, GL_DEPTH_COMPONENT24, SHADOW_MAP_PX, SHADOW_MAP_PX, 0,
                GL_DEPTH_COMPONENT, GL_UNSIGNED_INT, NULL);
   glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
   glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
   glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_BORDER);
   glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_BORDER);
   const float border[4] = {1, 1, 1, 1};
   glTexParameterfv(GL_TEXTURE_2D, GL_TEXTURE_BORDER_COLOR, border);
   glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_COMPARE_MODE, GL_COMPARE_R_TO_TEXTURE);
   glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_COMPARE_FUNC, GL_LEQUAL);
   glGenFramebuffers(1, &shadow_fbo);
   glBindFramebuffer(GL_FRAMEBUFFER, shadow_fbo);
   glFramebufferTexture2D(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_TEXTURE_2D, shadow_tex, 0);
   glDrawBuffer(GL_NONE);
   glReadBuffer(GL_NONE);
   GLenum st = glCheckFramebufferStatus(GL_FRAMEBUFFER);
   if (st != GL_FRAMEBUFFER_COMPLETE)
      fprintf(stderr, "demos: shadow FBO incomplete (0x%x)\n", st);
   glBindFramebuffer(GL_FRAMEBUFFER, 0);
   prog_depth = link_program(vs_depth, fs_depth);
   prog_main = link_program(vs_main, fs_main);
   glEnable(GL_DEPTH_TEST);
}

static void
shadow_draw(int frame, int size_px)
{
   float l[3], leye[3], origin[3] = {0, 0, 0};
   towards_light(frame, l);
   for (int k = 0; k < 3; k++)
      leye[k] = l[k] * 10;
   mat4 view, proj, light_vp, bias, shadow_m, cam;
   mat_look_at(view, leye, origin);
   mat_ortho(proj, -3, 3, -3, 3, 5, 15);
   mat_mul(light_vp, proj, view);
   /* Clip space to texture space and the stored depth, less a bias against acne. */
   mat_identity(bias);
   bias[0] = bias[5] = bias[10] = 0.5f;
   bias[12] = bias[13] = 0.5f;
   bias[14] = 0.5f - 0.003f;
   mat_mul(shadow_m, bias, light_vp);

   glBindFramebuffer(GL_FRAMEBUFFER, shadow_fbo);
   glViewport(0, 0, SHADOW_MAP_PX, SHADOW_MAP_PX);
   glClear(GL_DEPTH_BUFFER_BIT);
   glUseProgram(prog_depth);
   glUniformMatrix4fv(glGetUniformLocation(prog_depth, "mvp"), 1, GL_FALSE, light_vp);
   shadow_geometry();

   glBindFramebuffer(GL_FRAMEBUFFER, 0);
   glViewport(0, 0, size_px, size_px);
   glClearColor(0, 0, 0, 1);
   glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
   mat_perspective(proj, 45, 1, 30);
   mat_look_at(view, eye_pos, look_at);
   mat_mul(cam, proj, view);
   glUseProgram(prog_main);
   glUniformMatrix4fv(glGetUniformLocation(prog_main, "mvp"), 1, GL_FALSE, cam);
   glUniformMatrix4fv(glGetUniformLocation(prog_main, "shadow_m"), 1, GL_FALSE, shadow_m);
   glUniform3fv(glGetUniformLocation(prog_main, "to_light"), 1, l);
   glUniform1i(glGetUniformLocation(prog_main, "map"), 0);
   glBindTexture(GL_TEXTURE_2D, shadow_tex);
   shadow_geometry();
}

int
main(int argc, char **argv)
{
   const char *which = argc > 1 ? argv[1] : "cube";
   int frames = argc > 2 ? atoi(argv[2]) : 10;
   int size_px = argc > 3 ? atoi(argv[3]) : 256;
   int cube = !strcmp(which, "cube");
   if (!cube && strcmp(which, "shadow")) {
      fprintf(stderr, "usage: demos cube|shadow [frames] [size-px]\n");
      return 2;
   }
   struct glx_window w;
   if (glx_window_open(&w, "demos", size_px, 24))
      return 1;
   glViewport(0, 0, size_px, size_px);

   if (cube)
      cube_setup();
   else
      shadow_setup();
   for (int f = 0; f < frames; f++) {
      if (cube)
         cube_draw(f);
      else
         shadow_draw(f, size_px);
      glXSwapBuffers(w.dpy, w.win);
   }
   GLenum err = glGetError();
   printf("demos: %s frames=%d gl_error=0x%x\n", which, frames, err);

   glx_window_close(&w);
   return err == GL_NO_ERROR ? 0 : 1;
}
