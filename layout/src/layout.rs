//! The layout descriptor: one plain struct, filled by one pure function from a template.
//!
//! Rules (hwdocs texture.json, limits.json; the sampler computes the same offsets):
//! power-of-two textures of a twiddlable format are twiddled, others linear with rows of
//! `align_up(width_el * bytes_per_el, LINEAR_STRIDE_ALIGN_B)`; levels are consecutive, largest
//! first, packed; cube faces sit at `align_up(chain_B, CUBE_FACE_ALIGN_B)` in the order
//! +X -X +Y -Y +Z -Z, and the allocation holds six such aligned faces. A 3D level holds its
//! depth slices consecutively, slice 0 first, each laid out exactly as a 2D level of that
//! width and height; the slice stride is that 2D level's size, with no padding (MODEL:
//! hwdocs texture.json, the 3D texture flag).

use std::ops::Range;

use serde::{Serialize, Serializer};
use sgx_hwdocs::limits;
use sgx_hwdocs::pbe::{MemLayout, PbeState};
use sgx_hwdocs::Format;

use crate::morton::Twiddle;
use crate::LayoutError;

/// Faces of a cube map.
pub const CUBE_FACES: u32 = 6;
/// Cube face names in memory order.
pub const CUBE_FACE_NAMES: [&str; 6] = ["+X", "-X", "+Y", "-Y", "+Z", "-Z"];

const TILE_W_PX: u32 = limits::TILE_W_PX as u32;
const TILE_H_PX: u32 = limits::TILE_H_PX as u32;
const MAX_TEXTURE_PX: u32 = limits::MAX_TEXTURE_PX as u32;
const MAX_TEXTURE_3D_PX: u32 = limits::MAX_TEXTURE_3D_PX as u32;

/// What kind of texture.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum Target {
    /// One image with its levels.
    #[serde(rename = "2d")]
    Tex2D,
    /// Six square faces, each with its levels.
    #[serde(rename = "cube")]
    Cube,
    /// A volume: each level a stack of depth slices (MODEL, see the module doc).
    #[serde(rename = "3d")]
    Tex3D,
}

impl Target {
    /// Short name as the level table prints it.
    pub fn name(self) -> &'static str {
        match self {
            Target::Tex2D => "2D",
            Target::Cube => "cube",
            Target::Tex3D => "3D",
        }
    }
}

/// The order of a level's texels in memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Tiling {
    /// Morton order, Y in address bit 0 (see [`crate::morton`]).
    Twiddled,
    /// Rows of `stride_B` bytes.
    Linear,
}

impl Tiling {
    /// Lower-case name.
    pub fn name(self) -> &'static str {
        match self {
            Tiling::Twiddled => "twiddled",
            Tiling::Linear => "linear",
        }
    }

    /// The PBE / texture word encoding.
    pub fn mem_layout(self) -> MemLayout {
        match self {
            Tiling::Twiddled => MemLayout::TWIDDLED,
            Tiling::Linear => MemLayout::LINEAR,
        }
    }
}

/// A width and a height; the unit is in the name of the field that holds it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub struct Extent {
    /// Width.
    pub w: u32,
    /// Height.
    pub h: u32,
}

/// What a texture is asked to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Template {
    /// Texel format.
    pub format: Format,
    /// Level-0 width.
    pub width_px: u32,
    /// Level-0 height.
    pub height_px: u32,
    /// Level-0 depth: 1 for 2D and cube, 1 ..= MAX_TEXTURE_3D_PX for 3D.
    pub depth_px: u32,
    /// 2D, cube or 3D.
    pub target: Target,
    /// Levels in the chain, 1 ..= [`chain_levels_3d`].
    pub levels: u32,
    /// Samples per pixel (only 1 is supported).
    pub samples: u32,
    /// `None`: the sampler's rule (twiddled when power-of-two and twiddlable, else linear).
    /// `Some` forces a tiling, or fails if the format or size cannot take it.
    pub tiling: Option<Tiling>,
}

impl Template {
    /// A single-level, single-sample 2D texture with the sampler's tiling rule.
    pub fn new_2d(format: Format, width_px: u32, height_px: u32) -> Self {
        Self {
            format,
            width_px,
            height_px,
            depth_px: 1,
            target: Target::Tex2D,
            levels: 1,
            samples: 1,
            tiling: None,
        }
    }

    /// A single-level cube map with faces of `size_px` square.
    pub fn new_cube(format: Format, size_px: u32) -> Self {
        Self {
            target: Target::Cube,
            ..Self::new_2d(format, size_px, size_px)
        }
    }

    /// A single-level 3D texture of `width_px x height_px x depth_px`.
    pub fn new_3d(format: Format, width_px: u32, height_px: u32, depth_px: u32) -> Self {
        Self {
            target: Target::Tex3D,
            depth_px,
            ..Self::new_2d(format, width_px, height_px)
        }
    }

    /// The same template with `levels` levels.
    pub fn with_levels(self, levels: u32) -> Self {
        Self { levels, ..self }
    }

    /// The same template with every level down to 1x1.
    pub fn with_full_chain(self) -> Self {
        Self {
            levels: chain_levels_3d(self.width_px, self.height_px, self.depth_px),
            ..self
        }
    }

    /// The same template with a forced tiling.
    pub fn with_tiling(self, tiling: Tiling) -> Self {
        Self {
            tiling: Some(tiling),
            ..self
        }
    }
}

/// Levels of a full chain from `width_px x height_px` down to 1x1 (0 for a zero side).
pub fn chain_levels(width_px: u32, height_px: u32) -> u32 {
    chain_levels_3d(width_px, height_px, 1)
}

/// Levels of a full chain from `width_px x height_px x depth_px` down to 1x1x1, from the
/// largest of the three sides (0 for a zero side).
pub fn chain_levels_3d(width_px: u32, height_px: u32, depth_px: u32) -> u32 {
    if width_px == 0 || height_px == 0 || depth_px == 0 {
        return 0;
    }
    32 - width_px.max(height_px).max(depth_px).leading_zeros()
}

/// The PBE clip rectangle of a level: limits are inclusive, so the maxima are extent - 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct PbeClip {
    /// First column written.
    pub xmin: u32,
    /// First row written.
    pub ymin: u32,
    /// Last column written.
    pub xmax: u32,
    /// Last row written.
    pub ymax: u32,
}

/// Where one level of one face lives and how it is ordered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct LevelLayout {
    /// The level index.
    pub level: u32,
    /// Offset from the start of its face (equal to `level_offsets_B[level]`).
    pub offset_B: u64,
    /// Bytes the level spans in the chain, all its slices; the next level starts at
    /// `offset_B + size_B`.
    pub size_B: u64,
    /// Bytes of texel data the level really holds (`w_el * h_el * depth_px * bytes_per_el`);
    /// equal to `size_B` for twiddled levels, smaller by the row padding for linear ones. A
    /// write of the whole level touches exactly this many bytes.
    pub footprint_B: u64,
    /// Size in pixels (of one slice for 3D).
    pub extent_px: Extent,
    /// Depth slices: 1 for 2D and cube, `max(1, depth >> level)` for 3D.
    pub depth_px: u32,
    /// Bytes from one slice to the next: the size of one slice laid out as a 2D level
    /// (equal to `size_B` when the depth is 1).
    pub slice_stride_B: u64,
    /// Size in elements (blocks for block formats; pixels otherwise).
    pub extent_el: Extent,
    /// Texel order.
    pub tiling: Tiling,
    /// Linear: bytes from one row of elements to the next. Twiddled: 0 (no rows).
    pub stride_B: u64,
    /// The PBE target extent in 16x16 tiles, at least one each way.
    pub target_extent_tl: Extent,
    /// Twiddled: log2 of `extent_el.w`. Linear: 0.
    pub log2_w: u32,
    /// Twiddled: log2 of `extent_el.h`. Linear: 0.
    pub log2_h: u32,
}

impl LevelLayout {
    /// The level's Morton geometry if twiddled.
    #[inline]
    pub fn twiddle(&self) -> Option<Twiddle> {
        match self.tiling {
            // The layout only builds twiddled levels whose log2s are in range.
            Tiling::Twiddled => Twiddle::new(self.log2_w, self.log2_h).ok(),
            Tiling::Linear => None,
        }
    }

    /// Byte offset of slice `z` from the start of the level; `None` past the last slice.
    #[inline]
    pub fn slice_offset_B(&self, z: u32) -> Option<u64> {
        (z < self.depth_px).then(|| u64::from(z) * self.slice_stride_B)
    }

    /// Byte offset of element (x, y) of slice `z` from the start of the level; `None`
    /// outside the level.
    #[inline]
    pub fn texel_offset_xyz_B(
        &self,
        x_el: u32,
        y_el: u32,
        z: u32,
        bytes_per_el: u32,
    ) -> Option<u64> {
        Some(self.slice_offset_B(z)? + self.texel_offset_B(x_el, y_el, bytes_per_el)?)
    }

    /// Byte offset of element (x, y) of slice 0 from the start of the level; `None` outside
    /// the level.
    #[inline]
    pub fn texel_offset_B(&self, x_el: u32, y_el: u32, bytes_per_el: u32) -> Option<u64> {
        if x_el >= self.extent_el.w || y_el >= self.extent_el.h {
            return None;
        }
        let bpe = u64::from(bytes_per_el);
        match self.tiling {
            Tiling::Twiddled => self.twiddle()?.offset_el(x_el, y_el).map(|e| e * bpe),
            Tiling::Linear => Some(u64::from(y_el) * self.stride_B + u64::from(x_el) * bpe),
        }
    }

    /// The PBE clip limits that confine a render into this level to its pixels.
    #[inline]
    pub fn pbe_clip(&self) -> PbeClip {
        PbeClip {
            xmin: 0,
            ymin: 0,
            xmax: self.extent_px.w - 1,
            ymax: self.extent_px.h - 1,
        }
    }

    /// The level's bytes, relative to the start of its face.
    #[inline]
    pub fn range_B(&self) -> Range<u64> {
        self.offset_B..self.offset_B + self.size_B
    }
}

/// The byte ranges of a level window `base..=last`: one range per face, in allocation
/// offsets. Bytes outside these ranges belong to other levels or to face padding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LevelWindow {
    /// First level.
    pub base: u32,
    /// Last level.
    pub last: u32,
    /// One contiguous range per face (levels are consecutive).
    pub ranges_B: Vec<Range<u64>>,
}

impl LevelWindow {
    /// Whether an allocation offset lies in the window.
    pub fn contains_B(&self, offset_B: u64) -> bool {
        self.ranges_B.iter().any(|r| r.contains(&offset_B))
    }
}

/// Where every level and face of a texture lives.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Layout {
    /// Texel format.
    #[serde(serialize_with = "ser_format")]
    pub format: Format,
    /// Level-0 width.
    pub width_px: u32,
    /// Level-0 height.
    pub height_px: u32,
    /// Level-0 depth (1 unless 3D).
    pub depth_px: u32,
    /// 2D, cube or 3D.
    pub target: Target,
    /// Samples per pixel.
    pub samples: u32,
    /// Bytes per element (per block for block formats).
    pub bytes_per_el: u32,
    /// Block width (1 for uncompressed formats).
    pub block_w_px: u32,
    /// Block height.
    pub block_h_px: u32,
    /// Texel order of every level.
    pub tiling: Tiling,
    /// Per level, largest first.
    pub levels: Vec<LevelLayout>,
    /// Offset of each level from its face's start, then the chain's end at `[levels]`.
    pub level_offsets_B: Vec<u64>,
    /// Bytes of one face's chain (`level_offsets_B[levels]`).
    pub chain_B: u64,
    /// 1, or 6 for a cube.
    pub faces: u32,
    /// Distance between faces: the chain aligned to CUBE_FACE_ALIGN_B for cubes, the chain
    /// itself for 2D.
    pub face_stride_B: u64,
    /// The allocation: `faces * face_stride_B`.
    pub size_B: u64,
}

fn ser_format<S: Serializer>(f: &Format, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(f.name())
}

fn align_up(v: u64, a: u64) -> u64 {
    v.div_ceil(a) * a
}

impl Layout {
    /// Computes the layout of a template, or says why it is impossible.
    pub fn new(t: &Template) -> Result<Layout, LayoutError> {
        let (width_px, height_px, depth_px) = (t.width_px, t.height_px, t.depth_px);
        if t.samples != 1 {
            return Err(LayoutError::UnsupportedSamples { samples: t.samples });
        }
        if width_px == 0 || height_px == 0 {
            return Err(LayoutError::ZeroSize {
                width_px,
                height_px,
            });
        }
        if depth_px == 0 {
            return Err(LayoutError::ZeroDepth { target: t.target });
        }
        if width_px > MAX_TEXTURE_PX || height_px > MAX_TEXTURE_PX {
            return Err(LayoutError::TooLarge {
                width_px,
                height_px,
                max_px: MAX_TEXTURE_PX,
            });
        }
        if t.target != Target::Tex3D && depth_px != 1 {
            return Err(LayoutError::DepthNot3D {
                target: t.target,
                depth_px,
            });
        }
        if t.target == Target::Tex3D && width_px.max(height_px).max(depth_px) > MAX_TEXTURE_3D_PX {
            return Err(LayoutError::TooLarge3D {
                width_px,
                height_px,
                depth_px,
                max_px: MAX_TEXTURE_3D_PX,
            });
        }
        if t.target == Target::Cube && width_px != height_px {
            return Err(LayoutError::NonSquareCube {
                width_px,
                height_px,
            });
        }
        let max = chain_levels_3d(width_px, height_px, depth_px);
        if t.levels == 0 || t.levels > max {
            return Err(LayoutError::BadLevelCount {
                levels: t.levels,
                width_px,
                height_px,
                max,
            });
        }
        let info = t.format.info();
        let depth = matches!(
            info.kind,
            sgx_hwdocs::FormatKind::Depth | sgx_hwdocs::FormatKind::DepthStencil
        );
        // Depth formats are ZLS buffers: one 2D surface, never cube faces.
        if t.target == Target::Cube && (!info.sampleable || depth) {
            return Err(LayoutError::FormatCannot {
                format: t.format,
                what: "a cube map (not a sampleable colour format)",
            });
        }
        // The sampler reads volumes; depth formats are 2D ZLS surfaces only.
        if t.target == Target::Tex3D && (!info.sampleable || depth) {
            return Err(LayoutError::FormatCannot {
                format: t.format,
                what: "a 3D texture (not a sampleable colour format)",
            });
        }
        let pot = width_px.is_power_of_two() && height_px.is_power_of_two();
        let tiling = match t.tiling {
            Some(Tiling::Twiddled) if !info.twiddlable => {
                return Err(LayoutError::FormatCannot {
                    format: t.format,
                    what: "twiddled",
                })
            }
            Some(Tiling::Twiddled) if !pot => {
                return Err(LayoutError::TwiddleNeedsPowerOfTwo {
                    width_px,
                    height_px,
                })
            }
            Some(tiling) => tiling,
            None if pot && info.twiddlable => Tiling::Twiddled,
            None => Tiling::Linear,
        };
        let (bw, bh) = (info.block_w_px.max(1), info.block_h_px.max(1));
        let bpe = u64::from(info.bytes_per_el);

        let mut levels = Vec::with_capacity(t.levels as usize);
        let mut level_offsets_B = Vec::with_capacity(t.levels as usize + 1);
        let mut offset_B = 0u64;
        for level in 0..t.levels {
            let extent_px = Extent {
                w: (width_px >> level).max(1),
                h: (height_px >> level).max(1),
            };
            let extent_el = Extent {
                w: extent_px.w.div_ceil(bw),
                h: extent_px.h.div_ceil(bh),
            };
            let level_depth_px = (depth_px >> level).max(1);
            let slice_footprint_B = u64::from(extent_el.w) * u64::from(extent_el.h) * bpe;
            let (stride_B, slice_stride_B, log2_w, log2_h) = match tiling {
                Tiling::Twiddled => {
                    // Block grids of power-of-two textures with odd block sizes are not powers of two.
                    let tw = Twiddle::from_extent(extent_el.w, extent_el.h)?;
                    (0, slice_footprint_B, tw.log2_w, tw.log2_h)
                }
                Tiling::Linear => {
                    let stride_B =
                        align_up(u64::from(extent_el.w) * bpe, limits::LINEAR_STRIDE_ALIGN_B);
                    (stride_B, stride_B * u64::from(extent_el.h), 0, 0)
                }
            };
            let target_extent_tl = Extent {
                w: extent_px.w.div_ceil(TILE_W_PX).max(1),
                h: extent_px.h.div_ceil(TILE_H_PX).max(1),
            };
            let size_B = slice_stride_B * u64::from(level_depth_px);
            level_offsets_B.push(offset_B);
            levels.push(LevelLayout {
                level,
                offset_B,
                size_B,
                footprint_B: slice_footprint_B * u64::from(level_depth_px),
                extent_px,
                depth_px: level_depth_px,
                slice_stride_B,
                extent_el,
                tiling,
                stride_B,
                target_extent_tl,
                log2_w,
                log2_h,
            });
            offset_B += size_B;
        }
        level_offsets_B.push(offset_B);
        let chain_B = offset_B;
        let (faces, face_stride_B) = match t.target {
            Target::Tex2D | Target::Tex3D => (1, chain_B),
            Target::Cube => (CUBE_FACES, align_up(chain_B, limits::CUBE_FACE_ALIGN_B)),
        };
        Ok(Layout {
            format: t.format,
            width_px,
            height_px,
            depth_px,
            target: t.target,
            samples: t.samples,
            bytes_per_el: info.bytes_per_el,
            block_w_px: bw,
            block_h_px: bh,
            tiling,
            levels,
            level_offsets_B,
            chain_B,
            faces,
            face_stride_B,
            size_B: u64::from(faces) * face_stride_B,
        })
    }

    /// Levels in the chain.
    #[inline]
    pub fn level_count(&self) -> u32 {
        self.levels.len() as u32
    }

    /// One level's layout.
    #[inline]
    pub fn level(&self, level: u32) -> Result<&LevelLayout, LayoutError> {
        self.levels
            .get(level as usize)
            .ok_or(LayoutError::LevelOutOfRange {
                level,
                levels: self.level_count(),
            })
    }

    /// Offset of a face's level 0 in the allocation.
    #[inline]
    pub fn face_offset_B(&self, face: u32) -> Result<u64, LayoutError> {
        if face >= self.faces {
            return Err(LayoutError::FaceOutOfRange {
                face,
                faces: self.faces,
            });
        }
        Ok(u64::from(face) * self.face_stride_B)
    }

    /// A level's bytes in the allocation.
    pub fn level_range_B(&self, face: u32, level: u32) -> Result<Range<u64>, LayoutError> {
        let base = self.face_offset_B(face)?;
        let r = self.level(level)?.range_B();
        Ok(base + r.start..base + r.end)
    }

    /// The bytes of slice `z` of a level in the allocation (the whole level when its depth is
    /// 1 and `z` is 0).
    pub fn slice_range_B(&self, face: u32, level: u32, z: u32) -> Result<Range<u64>, LayoutError> {
        let start = self.level_range_B(face, level)?.start;
        let l = self.level(level)?;
        let off = l.slice_offset_B(z).ok_or(LayoutError::SliceOutOfRange {
            z,
            depth_px: l.depth_px,
        })?;
        Ok(start + off..start + off + l.slice_stride_B)
    }

    /// Allocation offset of the element holding pixel (x, y) of slice `z` of a level of a face.
    pub fn texel_offset_xyz_B(
        &self,
        face: u32,
        level: u32,
        x_px: u32,
        y_px: u32,
        z: u32,
    ) -> Result<u64, LayoutError> {
        let slice = self.slice_range_B(face, level, z)?.start;
        let in_slice =
            self.texel_offset_B(face, level, x_px, y_px)? - self.level_range_B(face, level)?.start;
        Ok(slice + in_slice)
    }

    /// Allocation offset of the element holding pixel (x, y) of a level of a face (slice 0
    /// of a 3D level).
    pub fn texel_offset_B(
        &self,
        face: u32,
        level: u32,
        x_px: u32,
        y_px: u32,
    ) -> Result<u64, LayoutError> {
        let base = self.face_offset_B(face)?;
        let l = self.level(level)?;
        let (x_el, y_el) = (x_px / self.block_w_px, y_px / self.block_h_px);
        let off =
            l.texel_offset_B(x_el, y_el, self.bytes_per_el)
                .ok_or(LayoutError::RectOutOfRange {
                    x: x_px,
                    y: y_px,
                    w: 1,
                    h: 1,
                    level_w: l.extent_px.w,
                    level_h: l.extent_px.h,
                })?;
        Ok(base + l.offset_B + off)
    }

    /// The byte ranges covered by levels `base..=last` of every face.
    pub fn window(&self, base: u32, last: u32) -> Result<LevelWindow, LayoutError> {
        if base > last || last >= self.level_count() {
            return Err(LayoutError::BadWindow {
                base,
                last,
                levels: self.level_count(),
            });
        }
        let (start, end) = (
            self.level_offsets_B[base as usize],
            self.level_offsets_B[last as usize + 1],
        );
        let ranges_B = (0..self.faces)
            .map(|f| {
                let fo = u64::from(f) * self.face_stride_B;
                fo + start..fo + end
            })
            .collect();
        Ok(LevelWindow {
            base,
            last,
            ranges_B,
        })
    }

    /// The PBE state that renders into one level of one face of an allocation at
    /// `alloc_addr` (a GPU address): base address, layout, stride or Morton size, a target
    /// extent of at least one tile and clip limits confining the write to the level.
    pub fn pbe_state(
        &self,
        face: u32,
        level: u32,
        alloc_addr: u32,
    ) -> Result<PbeState, LayoutError> {
        self.pbe_state_slice(face, level, 0, alloc_addr)
    }

    /// As [`Layout::pbe_state`], rendering into slice `z` of a 3D level (a slice is laid out
    /// as a 2D level, so only the base address moves).
    pub fn pbe_state_slice(
        &self,
        face: u32,
        level: u32,
        z: u32,
        alloc_addr: u32,
    ) -> Result<PbeState, LayoutError> {
        if !self.format.info().renderable {
            return Err(LayoutError::FormatCannot {
                format: self.format,
                what: "rendered to",
            });
        }
        let start = u64::from(alloc_addr) + self.slice_range_B(face, level, z)?.start;
        let base_addr =
            u32::try_from(start).map_err(|_| LayoutError::AddressOverflow { addr: start })?;
        let l = self.level(level)?;
        let clip = l.pbe_clip();
        Ok(PbeState {
            base_addr,
            format: self.format,
            layout: l.tiling.mem_layout(),
            log2_w: l.log2_w,
            log2_h: l.log2_h,
            stride_B: u32::try_from(l.stride_B)
                .map_err(|_| LayoutError::AddressOverflow { addr: l.stride_B })?,
            extent_w_tl: l.target_extent_tl.w,
            extent_h_tl: l.target_extent_tl.h,
            clip_xmin: clip.xmin,
            clip_ymin: clip.ymin,
            clip_xmax: clip.xmax,
            clip_ymax: clip.ymax,
        })
    }
}
