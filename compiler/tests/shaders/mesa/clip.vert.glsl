#version 120
uniform mat4 mv;
void main(){ gl_ClipVertex = mv*gl_Vertex; gl_Position = ftransform(); gl_FrontColor=gl_Color; }
