#version 120
varying float f0,f1,f2,f3; varying vec2 v0,v1,v2,v3; varying vec3 t0,t1; varying vec4 q0,q1;
void main(){ gl_FragColor=vec4(f0+f1+f2+f3, dot(v0+v1,v2+v3), dot(t0,t1), dot(q0,q1)); }
