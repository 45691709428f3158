#version 120
uniform vec4 w[8];
uniform int n;
attribute vec4 pos;
varying vec4 c;
void main(){ vec4 a[8]; for(int i=0;i<8;i++) a[i]=w[i]*pos.x; vec4 s=vec4(0.0); for(int i=0;i<n;i++) s+=a[i]; a[n]=s; c=a[int(pos.y)]; gl_Position=pos; }
