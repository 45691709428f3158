uniform int index;
uniform int col;
uniform vec2 expect;
varying vec4 color;
void main()
{
      mat2 m[3];
m[0] = mat2(1.0, 2.0, 3.0, 4.0);
m[1] = mat2(5.0, 6.0, 7.0, 8.0);
m[2] = mat2(9.0, 10.0, 11.0, 12.0);
    gl_FragColor = (m[index][col] == expect)       ? vec4(0.0, 1.0, 0.0, 1.0) : vec4(1.0, 0.0, 0.0, 1.0);
}


