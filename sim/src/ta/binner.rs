//! Parameter memory as the TA fills it: primitive records, the tiles' reference lists, and
//! the bytes they take against DPM_PB_SIZE.

use sgx_hwdocs::limits::{
    MAX_PRIMS_PER_RENDER, PB_PRIM_RECORD_B, PB_TILE_HEADER_B, PB_TILE_REF_B, PB_VARYING_B,
    PB_VERTEX_B,
};
use sgx_hwdocs::render::{PrimKind, PrimRecord};

use super::{Draw, WVert, TILE};
use crate::job::JobErr;
use crate::mmu::Mmu;
use crate::Unit;

pub(super) struct Binner {
    pub w_tl: u32,
    pub h_tl: u32,
    pub pb_size: u64,
    pub records: Vec<u32>,
    pub tiles: Vec<Vec<u32>>,
    pub refs: u64,
    pub prims: u64,
    /// The triangles `add_in` bins while logging (`start_log`); None after a record binned
    /// another way (`add_to`) or past `LOG_MAX` of them.
    log: Option<Vec<Logged>>,
    logging: bool,
}

/// Most triangles logged at a time (`prim_memo.rs` keeps fewer). A model choice for speed.
const LOG_MAX: usize = 64;

/// A triangle `add_in` binned: what binning it again takes.
pub(super) struct Logged {
    pub kind: PrimKind,
    pub back: bool,
    pub v: [WVert; 3],
    pub rect: PxRect,
}

/// A rectangle of pixels, inclusive: x0, y0, x1, y1.
pub(super) type PxRect = (i64, i64, i64, i64);

/// What a record says besides its vertices: kind, facing, and a line's stipple.
#[derive(Clone, Copy)]
pub(super) struct RecordHead {
    pub kind: PrimKind,
    pub back: bool,
    /// A LINE record's stipple counter at its first pixel, when the stipple applies.
    pub stipple: Option<u32>,
}

impl Binner {
    pub(super) fn new(w_tl: u32, h_tl: u32, pb_size: u64) -> Binner {
        Binner {
            w_tl,
            h_tl,
            pb_size,
            records: Vec::new(),
            tiles: vec![Vec::new(); (w_tl * h_tl) as usize],
            refs: 0,
            prims: 0,
            log: None,
            logging: false,
        }
    }

    /// Logs the triangles `add_in` bins from now on.
    pub(super) fn start_log(&mut self) {
        let mut l = self.log.take().unwrap_or_default();
        l.clear();
        self.log = Some(l);
        self.logging = true;
    }

    /// Stops logging: the triangles binned since `start_log`, None when something else was
    /// binned or too many were.
    pub(super) fn take_log(&mut self) -> Option<Vec<Logged>> {
        self.logging = false;
        self.log.take()
    }

    pub(super) fn bytes(&self) -> u64 {
        self.records.len() as u64 * 4
            + u64::from(self.w_tl * self.h_tl) * PB_TILE_HEADER_B
            + self.refs * PB_TILE_REF_B
    }

    /// The pixels of `r` on the render box and inside the draw's scissor, None when none.
    pub(super) fn clamp(&self, d: &Draw, r: PxRect) -> Option<PxRect> {
        let (mut px0, mut py0, mut px1, mut py1) = r;
        px0 = px0.max(0);
        py0 = py0.max(0);
        px1 = px1.min(i64::from(self.w_tl) * TILE - 1);
        py1 = py1.min(i64::from(self.h_tl) * TILE - 1);
        if d.ds.isp.scissor {
            let s = &d.ds.scissor;
            px0 = px0.max(i64::from(s.xmin));
            py0 = py0.max(i64::from(s.ymin));
            px1 = px1.min(i64::from(s.xmax));
            py1 = py1.min(i64::from(s.ymax));
        }
        (px0 <= px1 && py0 <= py1).then_some((px0, py0, px1, py1))
    }

    /// The tiles (row-major indices) of a clamped pixel rectangle.
    pub(super) fn tiles_of(&self, r: PxRect, out: &mut Vec<u32>) {
        let (px0, py0, px1, py1) = r;
        for ty in py0 / TILE..=py1 / TILE {
            for tx in px0 / TILE..=px1 / TILE {
                out.push((ty * i64::from(self.w_tl) + tx) as u32);
            }
        }
    }

    /// Bins one triangle of window-space vertices into the tiles its bounding box covers.
    pub(super) fn add(
        &mut self,
        d: &Draw,
        kind: PrimKind,
        back: bool,
        v: [&WVert; 3],
    ) -> Result<(), JobErr> {
        match self.rect(d, v.map(|w| &w.p)) {
            Some(r) => self.add_in(d, kind, back, v, r),
            None => Ok(()),
        }
    }

    /// The pixels of the render box and scissor whose centres the bounding box of the
    /// window positions `p` may cover; None when none.
    pub(super) fn rect(&self, d: &Draw, p: [&[f32; 4]; 3]) -> Option<PxRect> {
        let (mut x0, mut y0, mut x1, mut y1) = (f32::MAX, f32::MAX, f32::MIN, f32::MIN);
        for w in &p {
            x0 = x0.min(w[0]);
            y0 = y0.min(w[1]);
            x1 = x1.max(w[0]);
            y1 = y1.max(w[1]);
        }
        if !(x0.is_finite() && y0.is_finite() && x1.is_finite() && y1.is_finite()) {
            return None;
        }
        // Pixels whose centres may be covered.
        let clampi = |f: f32| (f as f64).clamp(-1e9, 1e9) as i64;
        let bbox = (
            clampi((x0 - 0.5).ceil()),
            clampi((y0 - 0.5).ceil()),
            clampi((x1 - 0.5).floor()),
            clampi((y1 - 0.5).floor()),
        );
        self.clamp(d, bbox)
    }

    /// Bins one triangle into the tiles of `r` (its `rect`).
    pub(super) fn add_in(
        &mut self,
        d: &Draw,
        kind: PrimKind,
        back: bool,
        v: [&WVert; 3],
        r: PxRect,
    ) -> Result<(), JobErr> {
        let (px0, py0, px1, py1) = r;
        let head = RecordHead {
            kind,
            back,
            stipple: None,
        };
        if self.logging {
            match &mut self.log {
                Some(l) if l.len() < LOG_MAX => l.push(Logged {
                    kind,
                    back,
                    v: v.map(|w| *w),
                    rect: r,
                }),
                _ => self.log = None,
            }
        }
        let off = self.record(d, head, v)?;
        for ty in py0 / TILE..=py1 / TILE {
            for tx in px0 / TILE..=px1 / TILE {
                self.tiles[(ty * i64::from(self.w_tl) + tx) as usize].push(off);
                self.refs += 1;
            }
        }
        self.check()
    }

    /// Bins one record referenced from `tiles` (distinct row-major indices).
    pub(super) fn add_to(
        &mut self,
        d: &Draw,
        head: RecordHead,
        v: [&WVert; 3],
        tiles: &[u32],
    ) -> Result<(), JobErr> {
        if tiles.is_empty() {
            return Ok(());
        }
        // Not a triangle `add_in` can bin again: the log no longer tells all.
        self.log = None;
        let off = self.record(d, head, v)?;
        for &t in tiles {
            self.tiles[t as usize].push(off);
        }
        self.refs += tiles.len() as u64;
        self.check()
    }

    fn check(&self) -> Result<(), JobErr> {
        if self.bytes() > self.pb_size {
            return Err(JobErr::Oom);
        }
        Ok(())
    }

    /// Appends a record; its byte offset.
    fn record(&mut self, d: &Draw, head: RecordHead, v: [&WVert; 3]) -> Result<u32, JobErr> {
        if self.prims >= MAX_PRIMS_PER_RENDER {
            return Err(JobErr::Oom);
        }
        let off = (self.records.len() * 4) as u32;
        let header = PrimRecord {
            state_addr: d.state_addr,
            var_count: d.nvar as u32,
            back_facing: head.back,
            kind: head.kind,
            line_stipple: head.stipple.is_some(),
            index: self.prims as u32,
            line_stipple_start: head.stipple.unwrap_or(0),
        }
        .pack()
        .map_err(|e| JobErr::bad(Unit::Ta, format!("primitive record: {e}")))?;
        self.records.extend_from_slice(&header);
        for w in &v {
            self.records.extend(w.p.iter().map(|f| f.to_bits()));
            for var in &w.var[..d.nvar] {
                self.records.extend(var.iter().map(|f| f.to_bits()));
            }
        }
        self.prims += 1;
        debug_assert_eq!(
            PB_PRIM_RECORD_B + 3 * (PB_VERTEX_B + d.nvar as u64 * PB_VARYING_B),
            (self.records.len() * 4) as u64 - u64::from(off)
        );
        Ok(off)
    }

    pub(super) fn write(&self, mmu: &Mmu, base: u32) -> Result<(), JobErr> {
        mmu.write_dwords(Unit::Ta, base, &self.records)?;
        let rec_B = (self.records.len() * 4) as u32;
        let ntiles = (self.w_tl * self.h_tl) as usize;
        let mut headers = Vec::with_capacity(2 * ntiles);
        let mut refs = Vec::with_capacity(self.refs as usize);
        let refs_at = rec_B + ntiles as u32 * PB_TILE_HEADER_B as u32;
        for t in &self.tiles {
            headers.push(refs_at + refs.len() as u32 * PB_TILE_REF_B as u32);
            headers.push(t.len() as u32);
            refs.extend_from_slice(t);
        }
        mmu.write_dwords(Unit::Ta, base.wrapping_add(rec_B), &headers)?;
        mmu.write_dwords(Unit::Ta, base.wrapping_add(refs_at), &refs)?;
        Ok(())
    }
}
