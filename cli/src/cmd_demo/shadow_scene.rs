//! The `demo shadow` scene in numbers (a box on a floor, one directional light, the camera),
//! and a CPU ray caster over the same numbers that says which floor pixels the box shadows.
//! The ray caster is the slow obvious reference the GPU's shadow map is tested against; it
//! uses no matrices, so a wrong matrix in the demo cannot agree with it by accident. Plain
//! std only: cli/tests/demo_shadow.rs includes this file too.

/// Side of the square colour target, in pixels.
pub const SIZE_PX: u32 = 256;
/// Side of the square shadow map, in texels.
pub const SHADOW_MAP_PX: u32 = 256;
/// The floor is the square |x|, |z| <= FLOOR_HALF at y = 0.
pub const FLOOR_HALF: f32 = 4.0;
/// The box is a cube of half side BOX_HALF standing on the floor at the origin...
pub const BOX_HALF: f32 = 0.8;
/// ...turned this far about y (counter-clockwise seen from above).
pub const BOX_YAW_DEG: f32 = 30.0;
/// The camera.
pub const EYE: [f32; 3] = [0.0, 4.2, 7.5];
/// Where the camera looks.
pub const LOOK_AT: [f32; 3] = [0.4, 0.2, 0.4];
/// The camera's vertical field of view.
pub const FOVY_DEG: f32 = 45.0;
/// The light's height above the horizon.
pub const LIGHT_ELEVATION_DEG: f32 = 50.0;
/// The light's azimuth at frame 0, from +z towards +x: 100 degrees puts it on the camera's
/// right, a little behind the box, so the shadow falls to the left where the camera sees it.
pub const LIGHT_AZIMUTH_DEG: f32 = 100.0;
/// The light circles the box by this much per frame.
pub const LIGHT_DEG_PER_FRAME: f32 = 20.0;

type V3 = [f32; 3];

/// Unit vector towards the (directional) light in frame `frame`.
pub fn towards_light(frame: u32) -> V3 {
    let az = (LIGHT_AZIMUTH_DEG + LIGHT_DEG_PER_FRAME * frame as f32).to_radians();
    let el = LIGHT_ELEVATION_DEG.to_radians();
    [el.cos() * az.sin(), el.sin(), el.cos() * az.cos()]
}

/// A world point of the box given in the box's own frame (centre at the origin, unturned).
pub fn box_to_world(p: V3) -> V3 {
    let (s, c) = BOX_YAW_DEG.to_radians().sin_cos();
    [c * p[0] + s * p[2], p[1] + BOX_HALF, -s * p[0] + c * p[2]]
}

// The demo itself needs only the numbers above; the ray caster serves the tests.
#[cfg(test)]
/// The inverse of [`box_to_world`] for directions (no translation).
fn world_dir_to_box(d: V3) -> V3 {
    let (s, c) = BOX_YAW_DEG.to_radians().sin_cos();
    [c * d[0] - s * d[2], d[1], s * d[0] + c * d[2]]
}

#[cfg(test)]
/// What a pixel of the target shows, by ray casting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Seen {
    /// The background, or the box.
    Other,
    /// The floor; `shadowed` when the box stands between it and the light.
    Floor { shadowed: bool },
}

#[cfg(test)]
/// Entry distance along `o + t d` (t > 0) into the box, if the ray hits it.
fn box_hit(o: V3, d: V3) -> Option<f32> {
    let o = world_dir_to_box([o[0], o[1] - BOX_HALF, o[2]]);
    let d = world_dir_to_box(d);
    let (mut t0, mut t1) = (1e-4f32, f32::INFINITY);
    for k in 0..3 {
        if d[k].abs() < 1e-12 {
            if o[k].abs() > BOX_HALF {
                return None;
            }
            continue;
        }
        let (a, b) = ((-BOX_HALF - o[k]) / d[k], (BOX_HALF - o[k]) / d[k]);
        t0 = t0.max(a.min(b));
        t1 = t1.min(a.max(b));
    }
    (t0 <= t1).then_some(t0)
}

#[cfg(test)]
/// The camera ray through the centre of pixel (x, y) of a `size_px` square target whose row 0
/// is the top (gluLookAt + gluPerspective, aspect 1).
fn camera_ray(x: u32, y: u32, size_px: u32) -> V3 {
    let norm = |v: V3| {
        let l = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
        [v[0] / l, v[1] / l, v[2] / l]
    };
    let cross = |a: V3, b: V3| {
        [
            a[1] * b[2] - a[2] * b[1],
            a[2] * b[0] - a[0] * b[2],
            a[0] * b[1] - a[1] * b[0],
        ]
    };
    let f = norm([
        LOOK_AT[0] - EYE[0],
        LOOK_AT[1] - EYE[1],
        LOOK_AT[2] - EYE[2],
    ]);
    let s = norm(cross(f, [0.0, 1.0, 0.0]));
    let u = cross(s, f);
    let tan = (FOVY_DEG.to_radians() / 2.0).tan();
    let nx = (2.0 * (x as f32 + 0.5) / size_px as f32 - 1.0) * tan;
    let ny = (1.0 - 2.0 * (y as f32 + 0.5) / size_px as f32) * tan;
    [0, 1, 2].map(|k| f[k] + nx * s[k] + ny * u[k])
}

#[cfg(test)]
/// What pixel (x, y) of a `size_px` target shows in frame `frame`.
pub fn seen(x: u32, y: u32, size_px: u32, frame: u32) -> Seen {
    let d = camera_ray(x, y, size_px);
    if d[1] >= 0.0 {
        return Seen::Other;
    }
    let t = -EYE[1] / d[1];
    if box_hit(EYE, d).is_some_and(|tb| tb < t) {
        return Seen::Other;
    }
    let p = [EYE[0] + t * d[0], 0.0, EYE[2] + t * d[2]];
    if p[0].abs() > FLOOR_HALF || p[2].abs() > FLOOR_HALF {
        return Seen::Other;
    }
    Seen::Floor {
        shadowed: box_hit(p, towards_light(frame)).is_some(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_box_shadows_the_floor_on_its_side_away_from_the_light_up_to_the_tip() {
        let l = towards_light(0);
        let h = (l[0] * l[0] + l[2] * l[2]).sqrt();
        let on_floor = |d: f32| [-l[0] / h * d, 0.0, -l[2] / h * d];
        assert!(box_hit(on_floor(1.5 * BOX_HALF), l).is_some());
        // The shadow ends where the light grazes the box's top corner farthest from it.
        let tip = BOX_HALF * 2f32.sqrt() + 2.0 * BOX_HALF / LIGHT_ELEVATION_DEG.to_radians().tan();
        assert!(box_hit(on_floor(tip + 0.05), l).is_none());
        assert!(box_hit(on_floor(-1.5 * BOX_HALF), l).is_none());
    }

    #[test]
    fn the_camera_sees_the_box_in_the_middle_the_floor_below_and_the_sky_above() {
        let c = SIZE_PX / 2;
        assert_eq!(seen(c, c - 30, SIZE_PX, 0), Seen::Other);
        assert_eq!(
            seen(c, SIZE_PX - 30, SIZE_PX, 0),
            Seen::Floor { shadowed: false }
        );
        assert_eq!(seen(c, 5, SIZE_PX, 0), Seen::Other);
        assert!(box_hit(EYE, camera_ray(c, c - 30, SIZE_PX)).is_some());
    }
}
