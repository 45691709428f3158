//! Gallium boxes: for a cube the z of a box is the face, for a 3D texture the slice.

use sgx_pipe::{PipeBox, Resource, ResourceTarget};

use crate::status::{invalid, unsupported, Result};

/// `pipe_box`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[allow(non_camel_case_types)]
pub struct sgx535_box {
    /// Left.
    pub x: i32,
    /// Top.
    pub y: i32,
    /// First slice, or cube face.
    pub z: i32,
    /// Width (negative: a flipped blit, unsupported).
    pub width: i32,
    /// Height.
    pub height: i32,
    /// Slices or faces.
    pub depth: i32,
}

/// The pipe's face and box for a Gallium box of `r`: faces of a cube come one at a time.
pub(crate) fn split(r: &Resource, b: &sgx535_box) -> Result<(u32, PipeBox)> {
    let v = [b.x, b.y, b.z, b.width, b.height, b.depth];
    if v.iter().any(|x| *x < 0) {
        return unsupported(format!("box {b:?}: negative offsets or sizes (flips)"));
    }
    let [x, y, z, w, h, d] = v.map(|x| x as u32);
    match r.target() {
        ResourceTarget::TextureCube => {
            if d != 1 {
                return invalid(format!("box of {d} cube faces: one face at a time"));
            }
            Ok((z, PipeBox::new(x, y, w, h)))
        }
        ResourceTarget::Texture3D => Ok((0, PipeBox::new_3d(x, y, z, w, h, d))),
        _ => {
            if z != 0 || d != 1 {
                return invalid(format!("box {b:?}: z {z}, depth {d} on a 1D/2D resource"));
            }
            Ok((0, PipeBox::new(x, y, w, h)))
        }
    }
}
