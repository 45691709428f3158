#version 120
uniform vec4 pal[256];
attribute vec4 pos; attribute vec4 idx;
varying vec4 c;
void main(){ int i=int(idx.x); vec4 p = vec4(dot(pos,pal[i*3]),dot(pos,pal[i*3+1]),dot(pos,pal[i*3+2]),1.0); c=pal[int(idx.y)]; gl_Position=p; }
