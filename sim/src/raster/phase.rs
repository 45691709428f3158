//! One job's 3D phase: the registers decoded once ([`Job3d`]), then per tile the background or
//! the loads, the tile's primitives, and the stores through the PBE and ZLS.

use sgx_hwdocs::pbe::PbeState;
use sgx_hwdocs::regs as r;
use sgx_hwdocs::render::TileCtrl;

use super::handover::{Colour, DepthStencil};
use super::{tiles, Prim, Raster, Tile};
use crate::depth::Precision;
use crate::job::{JobErr, ProgramCache};
use crate::mmu::Mmu;
use crate::pbe::{Target, ENCODED_TILE_B};
use crate::regs::RegFile;
use crate::zls::Zls;
use crate::{Counters, Unit};

/// What every tile of one 3D phase shares, decoded once from the registers.
pub(crate) struct Job3d<'a> {
    mmu: &'a Mmu,
    pub(super) w_tl: u32,
    pub(super) h_tl: u32,
    pb_base: u32,
    ctrl_base: u32,
    /// Where the tile headers start.
    headers_at: u32,
    target: Target,
    bg: [f32; 4],
    /// The background depth at the depth buffer's precision.
    bg_depth: f32,
    bg_stencil: u8,
    zls: Option<Zls>,
    depth: Precision,
    rect: (u32, u32, u32, u32),
    fast: bool,
}

/// Runs the 3D phase over the render box: tile by tile on this thread, or on `pool` (see
/// [`tiles`]).
pub(crate) fn run(
    mmu: &Mmu,
    regs: &RegFile,
    headers_off: u32,
    progs: &ProgramCache,
    fast: bool,
    pool: &tiles::Threads,
    c: &mut Counters,
) -> Result<(), JobErr> {
    let bad = |e: sgx_hwdocs::DecodeError| JobErr::bad(Unit::Isp, e.to_string());
    let screen = r::TeScreen::unpack(&[regs.get(r::TE_SCREEN)]).map_err(bad)?;
    let pb_base = r::DpmPbBase::unpack(&[regs.get(r::DPM_PB_BASE)])
        .map_err(bad)?
        .addr;
    let ctrl_base = r::TileCtrlBase::unpack(&[regs.get(r::TILE_CTRL_BASE)])
        .map_err(bad)?
        .addr;
    let pbe_words: Vec<u32> = (0..r::PBE_STATE_COUNT)
        .map(|i| regs.get(r::PBE_STATE + 4 * i))
        .collect();
    let pbe = PbeState::unpack(&pbe_words).map_err(|e| JobErr::bad(Unit::Pbe, e.to_string()))?;
    let target = Target::new(pbe)?;
    let bg: [f32; 4] = [0, 1, 2, 3].map(|i| f32::from_bits(regs.get(r::BGOBJ_COLOUR + 4 * i)));
    let bg_depth = r::IspBgobjdepth::unpack(&[regs.get(r::ISP_BGOBJDEPTH)])
        .map_err(bad)?
        .depth;
    let bg_stencil = r::BgobjStencil::unpack(&[regs.get(r::BGOBJ_STENCIL)])
        .map_err(bad)?
        .value as u8;
    let zls = Zls::from_regs(regs)?;
    // Without a depth buffer the tile keeps f32 depth (MODEL: crate::depth).
    let depth = zls.as_ref().map_or(Precision::F32, Zls::precision);
    let rect = target.rect();
    let job = Job3d {
        mmu,
        w_tl: screen.w_tl,
        h_tl: screen.h_tl,
        pb_base,
        ctrl_base,
        // Tile headers follow the primitive records; the DPM hands their offset from TA to 3D.
        headers_at: pb_base.wrapping_add(headers_off),
        target,
        bg,
        // A tile starts from the background depth as the buffer would hold it, so a clear
        // compares as it does once stored and loaded again.
        bg_depth: depth.quantise(bg_depth),
        bg_stencil,
        zls,
        depth,
        rect,
        fast,
    };
    let queries = tiles::render_all(&job, progs, pool, c)?;
    for (addr, n) in queries {
        let v = mmu.read_u32(Unit::Isp, addr)?;
        mmu.write_dwords(Unit::Isp, addr, &[v.wrapping_add(n)])?;
    }
    Ok(())
}

impl<'a> Job3d<'a> {
    /// A rasteriser for this job (one per worker or chunk of tiles).
    pub(super) fn raster(&self, progs: &ProgramCache) -> Raster<'a> {
        Raster::new(
            self.mmu,
            progs.clone(),
            self.fast,
            self.target.channel_max(),
            self.depth,
        )
    }

    /// Renders tile (`tx`, `ty`) with `rs` into `tile`'s buffers, reading memory only; the
    /// tile's control word when it is to be stored, None when the tile is skipped.
    pub(super) fn shade(
        &self,
        rs: &mut Raster,
        tile: &mut Tile,
        tx: u32,
        ty: u32,
    ) -> Result<Option<TileCtrl>, JobErr> {
        let mmu = self.mmu;
        let t = ty * self.w_tl + tx;
        let ctrl = if self.ctrl_base == 0 {
            TileCtrl {
                colour_load: false,
                colour_store: true,
                depth_load: false,
                depth_store: false,
                ..TileCtrl::default()
            }
        } else {
            let mut b = [0u8; 1];
            mmu.read(Unit::Isp, self.ctrl_base.wrapping_add(t), &mut b)?;
            TileCtrl::unpack(&[u32::from(b[0])])
                .map_err(|e| JobErr::bad(Unit::Isp, e.to_string()))?
        };
        let mut h = [0u32; 2];
        mmu.read_dwords(Unit::Isp, self.headers_at.wrapping_add(8 * t), &mut h)?;
        let (list, count) = (h[0], h[1]);
        if count == 0 && !ctrl.colour_store && !ctrl.depth_store {
            return Ok(None);
        }
        rs.c.tiles_rendered += 1;
        // Fast path: a tile no primitive touches and no load fills stays the background,
        // which its store writes without the tile's copy (`Target::store_bg`).
        tile.bg_only = self.fast && count == 0 && !ctrl.colour_load;
        if !tile.bg_only {
            tile.colour = [self.bg; 256];
        }
        if ctrl.colour_load {
            self.target.load(mmu, tx, ty, &mut tile.colour)?;
            rs.c.tiles_loaded += 1;
        }
        tile.depth = [self.bg_depth; 256];
        tile.stencil = [self.bg_stencil; 256];
        if let Some(z) = &self.zls {
            // Both halves from memory, or one (a partial clear: the other is the background).
            let (d, s) = if ctrl.depth_load {
                (true, true)
            } else {
                (ctrl.keep_depth, ctrl.keep_stencil)
            };
            if d || s {
                z.load(
                    mmu,
                    tx,
                    ty,
                    self.rect,
                    d.then_some(&mut tile.depth),
                    s.then_some(&mut tile.stencil),
                    self.fast,
                )?;
            }
        }
        let pb_base = self.pb_base;
        // The reference path's record (the fast path's come from `rs.prims`); about 560 bytes,
        // so built only where read.
        let mut pr = (!self.fast).then(Prim::default);
        for k in 0..count {
            let off = mmu.read_u32(Unit::Isp, pb_base.wrapping_add(list).wrapping_add(4 * k))?;
            let addr = pb_base.wrapping_add(off);
            if self.fast {
                let (mut p, read) = rs.prims.take(addr);
                if !read {
                    // A record that fails to read is dropped with its slot's claim.
                    rs.read_prim(addr, &mut p)?;
                }
                let r = rs.draw(&p, tile, tx, ty);
                rs.prims.put(addr, p);
                r?;
            } else if let Some(pr) = pr.as_mut() {
                rs.read_prim(addr, pr)?;
                rs.draw(pr, tile, tx, ty)?;
            }
        }
        Ok(Some(ctrl))
    }

    /// Stores a shaded tile through the PBE and ZLS as `ctrl` says; `bytes` is scratch for
    /// its encoded colours (the caller's, so no tile pays to zero it).
    pub(super) fn store(
        &self,
        c: &mut Counters,
        tile: &Tile,
        bytes: &mut [u8; ENCODED_TILE_B],
        (tx, ty): (u32, u32),
        ctrl: TileCtrl,
    ) -> Result<(), JobErr> {
        let colour = ctrl.colour_store.then(|| self.colour(tile, bytes));
        let depth = ctrl.depth_store.then_some((&tile.depth, &tile.stencil));
        self.store_parts(c, colour, depth, tx, ty)
    }

    /// How the store takes `tile`'s colours: the background, encoded into `bytes` by the
    /// fast encoder, or the floats (for the reference encoder in `Target::store`).
    pub(super) fn colour<'t>(
        &self,
        tile: &'t Tile,
        bytes: &'t mut [u8; ENCODED_TILE_B],
    ) -> Colour<'t> {
        if tile.bg_only {
            Colour::Bg
        } else if self.fast && self.target.encode(&tile.colour, bytes) {
            Colour::Encoded(bytes)
        } else {
            Colour::Floats(&tile.colour)
        }
    }

    /// Stores a tile's colours (when stored) through the PBE, then its depth and stencil
    /// (when stored, and the job has a depth buffer) through the ZLS.
    pub(super) fn store_parts(
        &self,
        c: &mut Counters,
        colour: Option<Colour<'_>>,
        depth: Option<DepthStencil<'_>>,
        tx: u32,
        ty: u32,
    ) -> Result<(), JobErr> {
        let mmu = self.mmu;
        if let Some(colour) = colour {
            c.pbe_bytes_written += match colour {
                Colour::Bg => self.target.store_bg(mmu, tx, ty, self.bg)?,
                Colour::Encoded(b) => self.target.store_encoded(mmu, tx, ty, b)?,
                Colour::Floats(f) => self.target.store(mmu, tx, ty, f)?,
            };
            c.tiles_stored += 1;
        }
        if let (Some((d, s)), Some(z)) = (depth, &self.zls) {
            z.store(mmu, tx, ty, self.rect, d, s, self.fast)?;
        }
        Ok(())
    }

    /// Whether the job has a depth buffer (a tile's depth store writes it).
    pub(super) fn has_zls(&self) -> bool {
        self.zls.is_some()
    }
}
