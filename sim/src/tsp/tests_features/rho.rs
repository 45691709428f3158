//! The scale factor rho of an implicit or explicit-gradient LOD: GL 2.1 section 3.8.8's
//! approximation max(|du/dx|, |du/dy|, |dv/dx|, |dv/dy|) in texels (MODEL, hwdocs
//! model-choices "Texture LOD"), not the lengths of the two derivative vectors.

use sgx_hwdocs::usse::Opcode;

use super::lod_clamp::{bytes_of_el, chain, gl_level, level_colour};
use super::*;

#[test]
fn rho_is_the_largest_axis_derivative_in_texels() {
    // 16x16, five flat levels, nearest mip selection: the pixel names the level.
    let (st, mem) = chain();
    // d/dx and d/dy of (s, t) in texels of level 0.
    let cases: [([f32; 2], [f32; 2]); 7] = [
        ([2.0, 0.0], [0.0, 0.0]),
        ([0.0, 0.0], [0.0, -4.0]),
        // Diagonal: the vector is 3.54 texels long (log2 1.82: level 2), its largest axis 2.5
        // (log2 1.32: level 1).
        ([2.5, 2.5], [0.0, 0.0]),
        ([0.0, 0.0], [-2.5, 2.5]),
        // Across and down both diagonal: the lengths 3.14 and 3.03 would pick level 2 as well.
        ([1.2, 2.9], [0.4, -3.0]),
        ([1.4, -1.4], [1.4, 1.4]),
        ([6.0, 5.9], [-5.8, 6.1]),
    ];
    let coords = vec![[0.3, 0.6, 0.0, 0.0]; 4];
    let groups: Vec<Group> = cases
        .iter()
        .map(|&(dx, dy)| Group {
            coords: coords.clone(),
            grads: Some((
                [dx[0] / 16.0, dx[1] / 16.0, 0.0, 0.0],
                [dy[0] / 16.0, dy[1] / 16.0, 0.0, 0.0],
            )),
        })
        .collect();
    let got = render(st, &mem, Opcode::TEXD, &groups);
    for (k, &(dx, dy)) in cases.iter().enumerate() {
        let rho = [dx[0], dx[1], dy[0], dy[1]]
            .iter()
            .fold(0.0f32, |m, d| m.max(d.abs()));
        let want = bytes_of_el(level_colour(gl_level(rho.log2(), -1000.0, 1000.0, 0, 4)));
        for p in 0..4 {
            assert_eq!(got[4 * k + p], want, "d/dx {dx:?} d/dy {dy:?} texels");
        }
    }
    // The diagonal cases pick other levels than the vector lengths would: the test tells the
    // two forms apart.
    assert_ne!(got[8], bytes_of_el(level_colour(2)));
    assert_eq!(got[8], bytes_of_el(level_colour(1)));
}
