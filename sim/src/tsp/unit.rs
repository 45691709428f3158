//! One texture unit as the sampler holds it: its TexState checked, each level's size, stride and
//! address (cube faces and volume slices included), wrap, border and compare settings, the LOD
//! range, host pointers for levels that lie in one mapping; and the reference texel fetch.

use sgx_hwdocs::isp::CompareFunc;
use sgx_hwdocs::limits::{CUBE_FACE_ALIGN_B, LINEAR_STRIDE_ALIGN_B, MAX_TEXTURE_3D_PX};
use sgx_hwdocs::pbe::MemLayout;
use sgx_hwdocs::render::ProgramState;
use sgx_hwdocs::texture::{AddrMode, MipFilter, TexState, LOD_BIAS_STEPS};
use sgx_hwdocs::FormatKind;

use super::addr::twiddle;
use super::decode::{Decoder, UNORM8};
use super::fast::FastUnit;
use super::LEVELS;
use crate::job::JobErr;
use crate::mmu::Mmu;
use crate::{Fault, Unit};

/// One decoded texture unit with its level addresses.
#[derive(Clone, Debug)]
pub(crate) struct TexUnit {
    pub(super) st: TexState,
    pub(super) dec: Decoder,
    /// What the fast paths precompute.
    pub(super) fast: FastUnit,
    pub(super) bpe: u32,
    pub(super) twiddled: bool,
    pub(super) w: [u32; LEVELS],
    pub(super) h: [u32; LEVELS],
    /// Slices of each level (1 unless `st.volume`).
    pub(super) d: [u32; LEVELS],
    pub(super) lw: [u32; LEVELS],
    pub(super) lh: [u32; LEVELS],
    pub(super) stride: [u32; LEVELS],
    /// Bytes from one slice of a level to the next: the size of that 2D level.
    pub(super) slice_B: [u32; LEVELS],
    pub(super) off: [u32; LEVELS],
    /// Bytes of each level, all its slices.
    pub(super) size: [u32; LEVELS],
    pub(super) face_stride: u32,
    /// The addressing mode of s, t and r as sampled (cube faces clamp to the edge).
    pub(super) wraps: [AddrMode; 3],
    /// What a tap outside the level reads under CLAMP_TO_BORDER: the border colour standing
    /// in for a decoded texel.
    pub(super) border: [f32; 4],
    /// The shadow compare (depth formats only).
    pub(super) cmp: Option<CompareFunc>,
    /// A volume, a border-addressed axis or a compare: more than the plain 2D filter.
    pub(super) ext: bool,
    /// Host pointers of each (face, level) when it lies wholly in one readable mapping.
    pub(super) ptr: Vec<Option<*const u8>>,
    /// The highest LOD a sample reaches: the view's level range and TexState.max_lod.
    pub(super) lod_max: f32,
    /// TexState.min_lod and max_lod in levels: the clamp of the biased LOD, applied before
    /// the magnification test.
    pub(super) lod_clamp: (f32, f32),
    pub(super) bias: f32,
    /// Every sample reads the base level of face 0 with `mag_filter`, whatever the LOD
    /// (one filter, no mip selection left once clamped to `lod_max`): the fast path then
    /// skips the LOD computation.
    pub(super) lod_free: bool,
}

/// The texture table of a draw.
#[derive(Clone, Debug, Default)]
pub(crate) struct TexTable {
    pub(super) units: Vec<TexUnit>,
}

fn align_up(v: u64, a: u64) -> u64 {
    v.div_ceil(a) * a
}

impl TexUnit {
    /// A unit with `st`'s format and layout and no levels yet.
    pub(super) fn blank(st: TexState) -> TexUnit {
        let bpe = st.format.info().bytes_per_el;
        let dec = Decoder::new(st.format);
        TexUnit {
            st,
            dec,
            fast: FastUnit::new(&st, &dec, bpe),
            bpe,
            twiddled: st.layout == MemLayout::TWIDDLED,
            w: [1; LEVELS],
            h: [1; LEVELS],
            d: [1; LEVELS],
            lw: [0; LEVELS],
            lh: [0; LEVELS],
            stride: [0; LEVELS],
            slice_B: [0; LEVELS],
            off: [0; LEVELS],
            size: [0; LEVELS],
            face_stride: 0,
            wraps: [AddrMode::CLAMP_TO_EDGE; 3],
            border: [0.0, 0.0, 0.0, 1.0],
            cmp: None,
            ext: false,
            ptr: Vec::new(),
            lod_max: 0.0,
            lod_clamp: (0.0, 0.0),
            bias: 0.0,
            lod_free: false,
        }
    }

    /// Refuses TexState combinations the sampler cannot take.
    pub(super) fn check(st: &TexState) -> Result<(), String> {
        let info = st.format.info();
        if !info.sampleable {
            return Err(format!("{} is not sampleable", info.name));
        }
        let depth_fmt = matches!(info.kind, FormatKind::Depth | FormatKind::DepthStencil);
        let (w0, h0, d0) = (st.width_m1 + 1, st.height_m1 + 1, st.depth_m1 + 1);
        if st.volume && st.cube {
            return Err("volume and cube together".into());
        }
        if st.unnormalized && (st.cube || st.volume) {
            return Err("unnormalized coordinates on a cube or volume".into());
        }
        if !st.volume && d0 != 1 {
            return Err(format!("depth {d0} on a texture that is not a volume"));
        }
        if st.volume {
            let max = MAX_TEXTURE_3D_PX as u32;
            if w0.max(h0).max(d0) > max {
                return Err(format!("volume {w0}x{h0}x{d0} has a side over {max}"));
            }
            // A volume never holds depth, so it has nothing to compare.
            if st.compare {
                return Err("compare on a volume texture".into());
            }
            if depth_fmt {
                return Err(format!("{} cannot be a volume", info.name));
            }
        }
        if st.compare && !depth_fmt {
            return Err(format!("compare on {} (not a depth format)", info.name));
        }
        let twiddled = st.layout == MemLayout::TWIDDLED;
        if twiddled && (!w0.is_power_of_two() || !h0.is_power_of_two()) {
            return Err(format!("twiddled {w0}x{h0} is not power-of-two"));
        }
        if twiddled && !info.twiddlable {
            return Err(format!("{} cannot be twiddled", info.name));
        }
        if st.cube && w0 != h0 {
            return Err(format!("cube faces {w0}x{h0} are not square"));
        }
        let full = 32 - w0.max(h0).max(d0).leading_zeros();
        if st.levels == 0 || st.levels > full {
            return Err(format!(
                "{} levels for {w0}x{h0}x{d0} (1..={full})",
                st.levels
            ));
        }
        if st.base_level >= st.levels {
            return Err(format!(
                "base_level {} past {} levels",
                st.base_level, st.levels
            ));
        }
        Ok(())
    }

    pub(super) fn new(mmu: &Mmu, st: TexState, unit: Unit) -> Result<TexUnit, JobErr> {
        TexUnit::check(&st).map_err(|m| JobErr::bad(unit, format!("TexState: {m}")))?;
        let info = st.format.info();
        let (w0, h0, d0) = (st.width_m1 + 1, st.height_m1 + 1, st.depth_m1 + 1);
        let twiddled = st.layout == MemLayout::TWIDDLED;
        let bpe = info.bytes_per_el;
        let mut u = TexUnit::blank(st);
        u.bias = st.lod_bias as f32 / 16.0;
        let mut at = 0u64;
        for l in 0..st.levels as usize {
            let (w, h, d) = ((w0 >> l).max(1), (h0 >> l).max(1), (d0 >> l).max(1));
            u.w[l] = w;
            u.h[l] = h;
            u.d[l] = d;
            u.lw[l] = w.trailing_zeros();
            u.lh[l] = h.trailing_zeros();
            u.stride[l] = if twiddled {
                w * bpe
            } else {
                align_up(u64::from(w * bpe), LINEAR_STRIDE_ALIGN_B) as u32
            };
            let slice = if twiddled {
                u64::from(w * h * bpe)
            } else {
                u64::from(u.stride[l]) * u64::from(h)
            };
            // At most 512 x 512 x 4 B x 512 slices = 2^29 B for a volume's level 0.
            let size = slice * u64::from(d);
            u.slice_B[l] = slice as u32;
            u.off[l] = at as u32;
            u.size[l] = size as u32;
            at += size;
        }
        u.face_stride = if st.cube {
            align_up(at, CUBE_FACE_ALIGN_B) as u32
        } else {
            0
        };
        u.wraps = if st.cube {
            // Cube faces clamp to the edge in every mode, CLAMP_TO_BORDER included (a
            // seam-free lookup has no border).
            [AddrMode::CLAMP_TO_EDGE; 3]
        } else if st.volume {
            [st.wrap_s, st.wrap_t, st.wrap_r]
        } else {
            [st.wrap_s, st.wrap_t, AddrMode::CLAMP_TO_EDGE]
        };
        let b = |v: u32| UNORM8[v as usize];
        u.border = if matches!(info.kind, FormatKind::Depth | FormatKind::DepthStencil) {
            // A depth texel reads (d, d, d, 1); border_r is the border depth.
            [b(st.border_r), b(st.border_r), b(st.border_r), 1.0]
        } else {
            [
                b(st.border_r),
                b(st.border_g),
                b(st.border_b),
                b(st.border_a),
            ]
        };
        u.cmp = st.compare.then_some(st.compare_func);
        u.ext = st.volume || u.cmp.is_some() || u.wraps.contains(&AddrMode::CLAMP_TO_BORDER);
        let max = st.max_level.min(st.levels - 1).max(st.base_level);
        let steps = LOD_BIAS_STEPS as f32;
        u.lod_clamp = (st.min_lod as f32 / steps, st.max_lod as f32 / steps);
        u.lod_max = ((max - st.base_level) as f32).min(u.lod_clamp.1);
        // With lod_max 0 a minified sample clamps to LOD 0: NEAREST picks level 0 and LINEAR
        // has fraction 0, so only the filter could differ from magnification.
        u.lod_free = !st.cube
            && st.min_filter == st.mag_filter
            && (st.mip_filter == MipFilter::NONE || u.lod_max == 0.0);
        let faces = if st.cube { 6 } else { 1 };
        for face in 0..faces {
            for l in 0..LEVELS {
                let p = if l < st.levels as usize {
                    let a = u.level_addr(face, l);
                    mmu.span(a, u.size[l] as usize, false)
                        .map(|p| p as *const u8)
                } else {
                    None
                };
                u.ptr.push(p);
            }
        }
        FastUnit::plan(&mut u);
        Ok(u)
    }

    pub(super) fn level_addr(&self, face: u32, l: usize) -> u32 {
        self.st
            .base_addr
            .wrapping_add(face.wrapping_mul(self.face_stride))
            .wrapping_add(self.off[l])
    }

    /// The decoded element at (x, y) of slice z of level l (every coordinate inside it).
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    pub(super) fn texel(
        &self,
        mmu: &Mmu,
        face: u32,
        l: usize,
        x: u32,
        y: u32,
        z: u32,
        n: &mut u64,
    ) -> Result<[f32; 4], Fault> {
        *n += 1;
        let in_slice = if self.twiddled {
            twiddle(x, y, self.lw[l], self.lh[l]) * self.bpe
        } else {
            y * self.stride[l] + x * self.bpe
        };
        let off = z * self.slice_B[l] + in_slice;
        let bpe = self.bpe as usize;
        let v = match self.ptr[face as usize * LEVELS + l] {
            // SAFETY: the (face, level) span was checked to lie in a readable mapping at setup
            // and off + bpe <= the level size; no mapping changes while a job runs.
            Some(p) => unsafe {
                let p = p.add(off as usize);
                match bpe {
                    4 => u32::from_le(std::ptr::read_unaligned(p as *const u32)),
                    2 => u32::from(u16::from_le(std::ptr::read_unaligned(p as *const u16))),
                    _ => u32::from(*p),
                }
            },
            None => {
                let mut b = [0u8; 4];
                mmu.read(
                    Unit::Tsp,
                    self.level_addr(face, l).wrapping_add(off),
                    &mut b[..bpe],
                )?;
                u32::from_le_bytes(b)
            }
        };
        Ok(self.dec.decode(v))
    }
}

impl TexTable {
    /// Reads `tex_count` TexState entries of the draw.
    pub(crate) fn load(mmu: &Mmu, ps: &ProgramState, unit: Unit) -> Result<TexTable, JobErr> {
        let mut units = Vec::with_capacity(ps.tex_count as usize);
        for i in 0..ps.tex_count {
            let mut w = [0u32; TexState::DWORDS];
            let entry_B = 4 * TexState::DWORDS as u32;
            mmu.read_dwords(unit, ps.tex_table_addr.wrapping_add(entry_B * i), &mut w)?;
            let st = TexState::unpack(&w)
                .map_err(|e| JobErr::bad(unit, format!("TexState {i}: {e}")))?;
            units.push(TexUnit::new(mmu, st, unit)?);
        }
        Ok(TexTable { units })
    }

    pub(crate) fn len(&self) -> usize {
        self.units.len()
    }
}
