uniform mat3 src_matrix;
uniform vec3 v;
uniform vec3 expect;
uniform int index;
uniform int index2;
uniform int row;
uniform int col;
uniform float value;

float distanceSqr(vec3 a, vec3 b) { vec3 diff = a - b; return dot(diff, diff); }

void main()
{
  mat3 dst_matrix[3];
dst_matrix[0] = mat3(0.0);
dst_matrix[1] = mat3(0.0);
dst_matrix[2] = mat3(0.0);
  
    /* Patch the supplied matrix with the supplied value.  If the resulting
     * matrix is correct, it will transform the input vector to the expected
     * value.  Verify that the distance between the result and the expected
     * vector is less than epsilon.
     *
     * NOTE: This test assumes that reads of arrays using non-constant
     * indicies works correctly.  If reads and writes happen to fail in an
     * identical manner, this test may give false positives.
     */

    dst_matrix[index] = src_matrix;
    dst_matrix[index][col][row] = value;


  gl_FragColor = (distanceSqr(dst_matrix[index2] * v, expect) < 4e-9)
    ? vec4(0.0, 1.0, 0.0, 1.0) : vec4(1.0, 0.0, 0.0, 1.0);
}


