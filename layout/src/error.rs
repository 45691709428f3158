//! The crate's one error type: every impossible template, out-of-range query and bad copy
//! argument is one of these, never a panic.

use sgx_hwdocs::Format;

use crate::Target;

/// What went wrong in a layout computation, a copy or a mip generation.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LayoutError {
    /// A side of zero pixels.
    #[error("texture size {width_px}x{height_px} has a zero side")]
    ZeroSize {
        /// Requested width.
        width_px: u32,
        /// Requested height.
        height_px: u32,
    },
    /// A depth of zero slices.
    #[error("texture depth 0 ({target:?}): a texture has at least one slice")]
    ZeroDepth {
        /// The asked target.
        target: Target,
    },
    /// A depth other than 1 on a 2D or cube template.
    #[error("depth {depth_px} on a {target:?} texture: only 3D textures have more than one slice")]
    DepthNot3D {
        /// The asked target.
        target: Target,
        /// Requested depth.
        depth_px: u32,
    },
    /// A 3D texture side over the (MODEL) volume limit.
    #[error("3D texture size {width_px}x{height_px}x{depth_px} exceeds the {max_px}-pixel limit")]
    TooLarge3D {
        /// Requested width.
        width_px: u32,
        /// Requested height.
        height_px: u32,
        /// Requested depth.
        depth_px: u32,
        /// Largest 3D side (hwdocs limits::MAX_TEXTURE_3D_PX).
        max_px: u32,
    },
    /// A slice index past the level's depth.
    #[error("slice {z} is outside the {depth_px} slices of the level")]
    SliceOutOfRange {
        /// Asked slice.
        z: u32,
        /// Slices in the level.
        depth_px: u32,
    },
    /// A box whose slice range leaves its level.
    #[error("box ({x_px},{y_px},{z_px}) {w_px}x{h_px}x{d_px} is outside the {level_w_px}x{level_h_px}x{level_d_px} level")]
    BoxOutOfRange {
        /// Left column.
        x_px: u32,
        /// Top row.
        y_px: u32,
        /// First slice.
        z_px: u32,
        /// Width.
        w_px: u32,
        /// Height.
        h_px: u32,
        /// Depth.
        d_px: u32,
        /// Level width.
        level_w_px: u32,
        /// Level height.
        level_h_px: u32,
        /// Level depth.
        level_d_px: u32,
    },
    /// A linear slice stride shorter than one slice of the box.
    #[error("slice stride {slice_stride_B} B is shorter than a slice of {slice_B} B")]
    SliceStrideTooSmall {
        /// Given slice stride.
        slice_stride_B: usize,
        /// Bytes one slice of the box spans at the given row stride.
        slice_B: usize,
    },
    /// A side over the hardware's maximum.
    #[error("texture size {width_px}x{height_px} exceeds the {max_px}-pixel limit")]
    TooLarge {
        /// Requested width.
        width_px: u32,
        /// Requested height.
        height_px: u32,
        /// Largest side (hwdocs limits::MAX_TEXTURE_PX).
        max_px: u32,
    },
    /// Zero levels, or more than the chain from this size has.
    #[error("{levels} levels asked; a {width_px}x{height_px} chain has 1..={max}")]
    BadLevelCount {
        /// Requested levels.
        levels: u32,
        /// Level-0 width.
        width_px: u32,
        /// Level-0 height.
        height_px: u32,
        /// Levels of the full chain.
        max: u32,
    },
    /// Cube maps need square faces.
    #[error("cube map faces must be square, got {width_px}x{height_px}")]
    NonSquareCube {
        /// Requested width.
        width_px: u32,
        /// Requested height.
        height_px: u32,
    },
    /// Multisampled layouts are not modelled.
    #[error("{samples} samples per pixel: only 1 is supported")]
    UnsupportedSamples {
        /// Requested sample count.
        samples: u32,
    },
    /// The format cannot take the asked layout (twiddling, cube sampling, rendering, ...).
    #[error("format {format:?} cannot be {what}")]
    FormatCannot {
        /// The format.
        format: Format,
        /// What it cannot do, e.g. "twiddled" or "rendered to".
        what: &'static str,
    },
    /// Twiddled layout was forced on a non-power-of-two size.
    #[error("twiddled layout needs power-of-two sides, got {width_px}x{height_px}")]
    TwiddleNeedsPowerOfTwo {
        /// Requested width.
        width_px: u32,
        /// Requested height.
        height_px: u32,
    },
    /// A level index past the chain.
    #[error("level {level} is outside the chain of {levels} levels")]
    LevelOutOfRange {
        /// Asked level.
        level: u32,
        /// Levels in the layout.
        levels: u32,
    },
    /// A face index past the faces of the layout.
    #[error("face {face} is outside the {faces} faces of the layout")]
    FaceOutOfRange {
        /// Asked face.
        face: u32,
        /// Faces in the layout (1 or 6).
        faces: u32,
    },
    /// A level window base..=last that is empty or leaves the chain.
    #[error("level window {base}..={last} is not inside 0..{levels}")]
    BadWindow {
        /// First level.
        base: u32,
        /// Last level.
        last: u32,
        /// Levels in the layout.
        levels: u32,
    },
    /// A rectangle or texel outside its level.
    #[error("rectangle ({x},{y}) {w}x{h} is outside the {level_w}x{level_h} level")]
    RectOutOfRange {
        /// Left column.
        x: u32,
        /// Top row.
        y: u32,
        /// Width.
        w: u32,
        /// Height.
        h: u32,
        /// Level width, same unit.
        level_w: u32,
        /// Level height, same unit.
        level_h: u32,
    },
    /// A pixel rectangle of a block format that does not start and end on block edges.
    #[error("rectangle ({x_px},{y_px}) {w_px}x{h_px} is not aligned to {block_w_px}x{block_h_px} blocks")]
    RectNotBlockAligned {
        /// Left column.
        x_px: u32,
        /// Top row.
        y_px: u32,
        /// Width.
        w_px: u32,
        /// Height.
        h_px: u32,
        /// Block width.
        block_w_px: u32,
        /// Block height.
        block_h_px: u32,
    },
    /// Copies handle elements of 1, 2, 4, 8 or 16 bytes.
    #[error("element size {bytes_per_el} B is not one of 1, 2, 4, 8, 16")]
    UnsupportedElementSize {
        /// Bytes per element.
        bytes_per_el: usize,
    },
    /// A linear row stride shorter than a row of the rectangle.
    #[error("stride {stride_B} B is shorter than a row of {row_B} B")]
    StrideTooSmall {
        /// Given stride.
        stride_B: usize,
        /// Bytes of one row.
        row_B: usize,
    },
    /// A buffer shorter than the bytes the operation touches.
    #[error("{what} buffer holds {len_B} B, {need_B} B needed")]
    BufferTooSmall {
        /// Which buffer.
        what: &'static str,
        /// Its length.
        len_B: usize,
        /// What the operation needs.
        need_B: u64,
    },
    /// A twiddled geometry of more than 2^15 elements per side.
    #[error("twiddled geometry 2^{log2_w} x 2^{log2_h} is too large")]
    TwiddleTooLarge {
        /// log2 of the width.
        log2_w: u32,
        /// log2 of the height.
        log2_h: u32,
    },
    /// A GPU address past 32 bits.
    #[error("address {addr:#x} does not fit 32 bits")]
    AddressOverflow {
        /// The address.
        addr: u64,
    },
    /// The CPU mip generator cannot filter this format.
    #[error("the CPU mip generator cannot filter {format:?} (needs a sampleable, uncompressed unorm, sRGB or float colour format)")]
    MipFormat {
        /// The format.
        format: Format,
    },
}

impl LayoutError {
    /// `Ok` when the `what` buffer's `len_B` bytes hold the `need_B` the operation touches,
    /// else [`LayoutError::BufferTooSmall`].
    pub(crate) fn check_len(what: &'static str, len_B: usize, need_B: u64) -> Result<(), Self> {
        if (len_B as u64) < need_B {
            return Err(LayoutError::BufferTooSmall {
                what,
                len_B,
                need_B,
            });
        }
        Ok(())
    }
}
