//! 4x4 matrices as OpenGL's fixed-function pipeline builds them (glRotatef, glTranslatef,
//! glFrustum), stored row-major so that each row is one constant register a vertex shader
//! DP4s against, as Mesa's state tracker lays out the MVP matrix.

/// A 4x4 matrix, `m[row][column]`, acting on column vectors.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Mat4(pub [[f32; 4]; 4]);

impl Mat4 {
    /// The identity.
    pub fn identity() -> Mat4 {
        let mut m = [[0.0; 4]; 4];
        for (i, r) in m.iter_mut().enumerate() {
            r[i] = 1.0;
        }
        Mat4(m)
    }

    /// `self * o`.
    pub fn mul(&self, o: &Mat4) -> Mat4 {
        let mut m = [[0.0; 4]; 4];
        for (r, row) in m.iter_mut().enumerate() {
            for (c, x) in row.iter_mut().enumerate() {
                *x = (0..4).map(|k| self.0[r][k] * o.0[k][c]).sum();
            }
        }
        Mat4(m)
    }

    /// glTranslatef.
    pub fn translate(x: f32, y: f32, z: f32) -> Mat4 {
        let mut m = Mat4::identity();
        m.0[0][3] = x;
        m.0[1][3] = y;
        m.0[2][3] = z;
        m
    }

    /// glRotatef: `deg` degrees about the axis (x, y, z).
    pub fn rotate(deg: f32, x: f32, y: f32, z: f32) -> Mat4 {
        let len = (x * x + y * y + z * z).sqrt();
        let (x, y, z) = (x / len, y / len, z / len);
        let (s, c) = deg.to_radians().sin_cos();
        let t = 1.0 - c;
        Mat4([
            [x * x * t + c, x * y * t - z * s, x * z * t + y * s, 0.0],
            [y * x * t + z * s, y * y * t + c, y * z * t - x * s, 0.0],
            [x * z * t - y * s, y * z * t + x * s, z * z * t + c, 0.0],
            [0.0, 0.0, 0.0, 1.0],
        ])
    }

    /// glFrustum: clip z in [-w, w], as GL (and the model's clipper) expect.
    pub fn frustum(l: f32, r: f32, b: f32, t: f32, n: f32, f: f32) -> Mat4 {
        Mat4([
            [2.0 * n / (r - l), 0.0, (r + l) / (r - l), 0.0],
            [0.0, 2.0 * n / (t - b), (t + b) / (t - b), 0.0],
            [0.0, 0.0, -(f + n) / (f - n), -2.0 * f * n / (f - n)],
            [0.0, 0.0, -1.0, 0.0],
        ])
    }

    /// gluPerspective: vertical field of view in degrees.
    pub fn perspective(fovy_deg: f32, aspect: f32, n: f32, f: f32) -> Mat4 {
        let t = n * (fovy_deg.to_radians() / 2.0).tan();
        Mat4::frustum(-t * aspect, t * aspect, -t, t, n, f)
    }

    /// glScalef.
    pub fn scale(x: f32, y: f32, z: f32) -> Mat4 {
        let mut m = Mat4::identity();
        m.0[0][0] = x;
        m.0[1][1] = y;
        m.0[2][2] = z;
        m
    }

    /// glOrtho: eye z -n maps to clip z -1, eye z -f to +1.
    pub fn ortho(l: f32, r: f32, b: f32, t: f32, n: f32, f: f32) -> Mat4 {
        Mat4([
            [2.0 / (r - l), 0.0, 0.0, -(r + l) / (r - l)],
            [0.0, 2.0 / (t - b), 0.0, -(t + b) / (t - b)],
            [0.0, 0.0, -2.0 / (f - n), -(f + n) / (f - n)],
            [0.0, 0.0, 0.0, 1.0],
        ])
    }

    /// gluLookAt: the eye at `eye` looking at `centre`, `up` roughly up.
    pub fn look_at(eye: [f32; 3], centre: [f32; 3], up: [f32; 3]) -> Mat4 {
        let f = normalize(sub(centre, eye));
        let s = normalize(cross(f, up));
        let u = cross(s, f);
        let rot = Mat4([
            [s[0], s[1], s[2], 0.0],
            [u[0], u[1], u[2], 0.0],
            [-f[0], -f[1], -f[2], 0.0],
            [0.0, 0.0, 0.0, 1.0],
        ]);
        rot.mul(&Mat4::translate(-eye[0], -eye[1], -eye[2]))
    }

    /// The matrix applied to a point.
    #[cfg(test)]
    pub fn apply(&self, v: [f32; 4]) -> [f32; 4] {
        let mut o = [0.0; 4];
        for (r, x) in o.iter_mut().enumerate() {
            *x = (0..4).map(|k| self.0[r][k] * v[k]).sum();
        }
        o
    }
}

/// The six faces of the cube from -1 to 1 on each axis, as (normal, u, v) with u x v = normal:
/// a face's corners `normal + su * u + sv * v` taken in the order (-1, -1), (1, -1), (1, 1),
/// (-1, 1) wind counter-clockwise seen from outside, GL's front faces. The cube and shadow
/// demos build their boxes from it.
pub const CUBE_FACES: [([f32; 3], [f32; 3], [f32; 3]); 6] = [
    ([1.0, 0.0, 0.0], [0.0, 0.0, -1.0], [0.0, 1.0, 0.0]),
    ([-1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, 1.0, 0.0]),
    ([0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, -1.0]),
    ([0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]),
    ([0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]),
    ([0.0, 0.0, -1.0], [-1.0, 0.0, 0.0], [0.0, 1.0, 0.0]),
];

/// `a - b`.
pub fn sub(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

/// `a x b`.
pub fn cross(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// Panics unless every triangle of `idx` winds counter-clockwise seen from outside: its
/// geometric normal points the way of the vertex normal. Vertices are `stride_f32` floats
/// apart, position at 0..3 and normal at 3..6 (a test helper for the demos' meshes).
#[cfg(test)]
pub fn assert_ccw_from_outside(verts: &[f32], stride_f32: usize, idx: &[u16]) {
    let p = |i: u16| {
        let o = i as usize * stride_f32;
        (
            [verts[o], verts[o + 1], verts[o + 2]],
            [verts[o + 3], verts[o + 4], verts[o + 5]],
        )
    };
    for t in idx.chunks(3) {
        let ((a, normal), (b, _), (c, _)) = (p(t[0]), p(t[1]), p(t[2]));
        let n = cross(sub(b, a), sub(c, a));
        let d = n[0] * normal[0] + n[1] * normal[1] + n[2] * normal[2];
        assert!(d > 0.0, "triangle {t:?} winds clockwise");
    }
}

/// `v / |v|`.
pub fn normalize(v: [f32; 3]) -> [f32; 3] {
    let l = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    [v[0] / l, v[1] / l, v[2] / l]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rotate_z_quarter_turn_maps_x_to_y() {
        let p = Mat4::rotate(90.0, 0.0, 0.0, 1.0).apply([1.0, 0.0, 0.0, 1.0]);
        assert!((p[0]).abs() < 1e-6 && (p[1] - 1.0).abs() < 1e-6, "{p:?}");
    }

    #[test]
    fn frustum_maps_near_and_far_planes_to_clip_bounds() {
        let m = Mat4::frustum(-1.0, 1.0, -1.0, 1.0, 5.0, 60.0);
        let near = m.apply([0.0, 0.0, -5.0, 1.0]);
        let far = m.apply([0.0, 0.0, -60.0, 1.0]);
        assert!((near[2] / near[3] + 1.0).abs() < 1e-5, "{near:?}");
        assert!((far[2] / far[3] - 1.0).abs() < 1e-5, "{far:?}");
    }

    #[test]
    fn look_at_puts_the_centre_on_the_negative_z_axis_and_up_on_y() {
        let m = Mat4::look_at([3.0, 4.0, 5.0], [1.0, 1.0, 1.0], [0.0, 1.0, 0.0]);
        let c = m.apply([1.0, 1.0, 1.0, 1.0]);
        let d = (4.0f32 + 9.0 + 16.0).sqrt();
        assert!(c[0].abs() < 1e-5 && c[1].abs() < 1e-5, "{c:?}");
        assert!((c[2] + d).abs() < 1e-5, "{c:?}");
        // A point straight above the eye is above the view axis.
        assert!(m.apply([3.0, 5.0, 5.0, 1.0])[1] > 0.0);
    }

    #[test]
    fn ortho_maps_its_box_onto_the_clip_cube() {
        let m = Mat4::ortho(-2.0, 4.0, -1.0, 3.0, 5.0, 15.0);
        let a = m.apply([-2.0, -1.0, -5.0, 1.0]);
        let b = m.apply([4.0, 3.0, -15.0, 1.0]);
        for (got, want) in a.iter().zip([-1.0, -1.0, -1.0, 1.0]) {
            assert!((got - want).abs() < 1e-6, "{a:?}");
        }
        for (got, want) in b.iter().zip([1.0, 1.0, 1.0, 1.0]) {
            assert!((got - want).abs() < 1e-6, "{b:?}");
        }
    }

    #[test]
    fn every_cube_face_has_u_cross_v_equal_to_its_normal() {
        for (n, u, v) in CUBE_FACES {
            assert_eq!(cross(u, v), n, "u {u:?} v {v:?}");
        }
    }

    #[test]
    fn translate_then_multiply_composes_right_to_left() {
        let m = Mat4::translate(1.0, 0.0, 0.0).mul(&Mat4::rotate(90.0, 0.0, 0.0, 1.0));
        let p = m.apply([1.0, 0.0, 0.0, 1.0]);
        assert!(
            (p[0] - 1.0).abs() < 1e-6 && (p[1] - 1.0).abs() < 1e-6,
            "{p:?}"
        );
    }
}
