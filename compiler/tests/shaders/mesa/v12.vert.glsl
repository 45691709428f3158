#version 120
attribute vec4 pos;
varying float f0,f1,f2,f3; varying vec2 v0,v1,v2,v3; varying vec3 t0,t1; varying vec4 q0,q1;
void main(){ f0=pos.x;f1=pos.y;f2=pos.z;f3=pos.w; v0=pos.xy;v1=pos.yz;v2=pos.zw;v3=pos.wx; t0=pos.xyz;t1=pos.yzw;q0=pos;q1=pos.wzyx; gl_Position=pos; }
