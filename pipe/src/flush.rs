//! Flushes: the pending batch becomes one render job (tile control, PBE and ZLS registers,
//! the control stream), submitted with every buffer it uses; `flush` returns the newest fence.
//! A framebuffer with more than one colour buffer gets one render per buffer, the same
//! control stream with another PBE state (MODEL: hwdocs model-choices).

use sgx_hwdocs::{pbe, regs, render, ta_stream, Format};
use sgx_winsys::{Access, Bo, BoDesc, BoFlags, Fence, Job};

use crate::batch::Batch;
use crate::context::Context;
use crate::error::Result;
use crate::state::{FramebufferState, Surface};

impl Context {
    /// Submits the pending batch, if any; returns its fence.
    pub(crate) fn flush_batch(&mut self) -> Result<Option<Fence>> {
        let Some(b) = self.batch.take() else {
            return Ok(None);
        };
        if b.is_empty() {
            return Ok(None);
        }
        let fence = self.submit_batch(b)?;
        self.stats.submissions += 1;
        self.poll_jobs();
        self.jobs.submitted(fence.clone());
        self.last_fence = Some(fence.clone());
        Ok(Some(fence))
    }

    /// `flush`: submits pending work and returns a fence for everything submitted so far.
    pub fn flush(&mut self) -> Result<Option<Fence>> {
        self.flush_batch()?;
        self.notice_resets();
        self.poll_jobs();
        Ok(self.last_fence.clone())
    }

    /// Submits pending work that reads or writes the resource, so that waiting on its buffer's
    /// fences covers it (before a CPU access, or before another context uses it).
    pub fn flush_resource(&mut self, res: &crate::resource::Resource) -> Result<()> {
        self.flush_for_cpu_access(res.id(), true)
    }

    /// Submits pending work that reads or writes `res` (for a CPU access to it).
    pub(crate) fn flush_for_cpu_access(&mut self, id: u64, cpu_writes: bool) -> Result<()> {
        if self.batch.as_ref().is_some_and(|b| b.uses(id, !cpu_writes)) {
            self.flush_batch()?;
        }
        Ok(())
    }

    fn submit_batch(&mut self, mut b: Batch) -> Result<Fence> {
        let dev = self.dev();
        let timeout = self.timeout;
        let mut stream = std::mem::take(&mut b.stream);
        stream.extend(ta_stream::CtrlTerminate::default().pack()?);
        let stream_va = b.arena.push_dwords(&*dev, &stream, 16)?;

        // Tile control: load only tiles that draws touch and no clear covered, store the
        // touched and cleared ones, skip the rest. With more than one colour buffer the render
        // is replayed per buffer (hwdocs model-choices, MODEL): every replay loads the depth
        // buffer as the render found it and only the last one stores it, so each colour
        // buffer sees the same depth and stencil tests.
        let has_c = b.fb.cbuf.is_some();
        let has_z = b.fb.zsbuf.is_some();
        let replays = 1 + b.fb.extra_cbufs.len();
        let mut ctrl = Vec::with_capacity(b.touched.len());
        let mut ctrl_no_z_store = Vec::new();
        let mut any_colour_load = false;
        let mut any_depth_load = false;
        for &t in &b.touched {
            let colour_store = has_c && (t || b.colour_cleared);
            let colour_load = has_c && t && !b.colour_cleared && !b.colour_invalidated;
            let depth_store = has_z && (t || b.depth_cleared);
            let depth_load = has_z && t && !b.depth_cleared;
            let keep_stencil = depth_store && b.keep_stencil;
            let keep_depth = depth_store && b.keep_depth;
            any_colour_load |= colour_load;
            any_depth_load |= depth_load || keep_stencil || keep_depth;
            let mut w = render::TileCtrl {
                colour_load,
                colour_store,
                depth_load,
                depth_store,
                keep_stencil,
                keep_depth,
            };
            ctrl.push(w.pack()?[0] as u8);
            if replays > 1 {
                w.depth_store = false;
                ctrl_no_z_store.push(w.pack()?[0] as u8);
            }
        }
        let ctrl_va = b.arena.push_bytes(&*dev, &ctrl, 16)?;
        let ctrl_no_z_store_va = if replays > 1 {
            b.arena.push_bytes(&*dev, &ctrl_no_z_store, 16)?
        } else {
            ctrl_va
        };

        // The TA writes the records, every tile header and the references before the 3D
        // phase reads them: the memory need not be cleared first (sgx-sim's
        // `stale_parameter_memory_changes_nothing` proves a render the same over stale bytes).
        let pb = dev.create_bo(&BoDesc::new(b.pb_size_B()).flags(BoFlags {
            undefined_contents: true,
            ..BoFlags::default()
        }))?;
        let screen = regs::TeScreen {
            w_tl: b.w_tl,
            h_tl: b.h_tl,
        }
        .pack()?[0];
        let pb_base = regs::DpmPbBase {
            addr: pb.gpu_addr(),
        }
        .pack()?[0];
        let pb_size = u32::try_from(pb.size_B()).unwrap_or(u32::MAX);
        let ta_regs = vec![
            (
                regs::VDM_CTRL_STREAM_BASE,
                regs::VdmCtrlStreamBase { addr: stream_va }.pack()?[0],
            ),
            (regs::TE_SCREEN, screen),
            (regs::DPM_PB_BASE, pb_base),
            (regs::DPM_PB_SIZE, pb_size),
            (regs::VDM_START, regs::VdmStart { start: true }.pack()?[0]),
        ];
        let td = vec![
            (regs::TE_SCREEN, screen),
            (regs::DPM_PB_BASE, pb_base),
            (regs::DPM_PB_SIZE, pb_size),
        ];

        // Background and depth/stencil registers, the same for every replay.
        let mut common = Vec::new();
        for (i, c) in b.clear_colour.iter().enumerate() {
            common.push((
                regs::BGOBJ_COLOUR + regs::BGOBJ_COLOUR_STRIDE * i as u32,
                c.to_bits(),
            ));
        }
        common.push((
            regs::ISP_BGOBJDEPTH,
            regs::IspBgobjdepth {
                depth: b.clear_depth,
            }
            .pack()?[0],
        ));
        common.push((
            regs::BGOBJ_STENCIL,
            regs::BgobjStencil {
                value: u32::from(b.clear_stencil),
            }
            .pack()?[0],
        ));
        let mut zls = Vec::new();
        let mut depth_bo = None;
        if let Some(z) = &b.fb.zsbuf {
            let (bo, layout) = {
                let st = z.resource.storage();
                (st.bo.clone(), st.layout.clone())
            };
            let layout = layout.ok_or_else(|| {
                crate::error::PipeError::InvalidArgument("depth buffer has no layout".into())
            })?;
            let lvl = layout.level(z.level)?;
            let base = bo.gpu_addr() + layout.level_range_B(z.face, z.level)?.start as u32;
            zls.push((
                regs::ISP_ZLSCTL,
                regs::IspZlsctl {
                    enable: 1,
                    format: z.resource.format(),
                }
                .pack()?[0],
            ));
            zls.push((regs::ZLS_ZBASE, regs::ZlsZbase { addr: base }.pack()?[0]));
            zls.push((
                regs::ZLS_STRIDE,
                regs::ZlsStride {
                    stride_B: lvl.stride_B as u32,
                }
                .pack()?[0],
            ));
            depth_bo = Some(bo);
        }

        // The registers every replay shares; each adds its PBE state and tile control.
        let mut shared_bos = b.arena.finish(timeout)?;
        shared_bos.push((pb, Access::Write));
        shared_bos.append(&mut b.bos);
        for (q, _) in &b.query_slots {
            if let Some(bo) = &q.st().bo {
                shared_bos.push((bo.clone(), Access::ReadWrite));
            }
        }
        let cbufs: Vec<Option<&Surface>> = if has_c {
            b.fb.cbuf
                .iter()
                .chain(&b.fb.extra_cbufs)
                .map(Some)
                .collect()
        } else {
            vec![None]
        };
        let mut fence = None;
        for (k, cbuf) in cbufs.iter().enumerate() {
            let last = k + 1 == cbufs.len();
            let (pbe_state, colour_bo) = pbe_target(*cbuf, &b.fb, (b.w_tl, b.h_tl))?;
            let mut td = td.clone();
            for (i, w) in pbe_state.pack()?.iter().enumerate() {
                td.push((regs::PBE_STATE + regs::PBE_STATE_STRIDE * i as u32, *w));
            }
            td.extend_from_slice(&common);
            let ctrl_at = if last { ctrl_va } else { ctrl_no_z_store_va };
            td.push((
                regs::TILE_CTRL_BASE,
                regs::TileCtrlBase { addr: ctrl_at }.pack()?[0],
            ));
            td.extend_from_slice(&zls);
            td.push((
                regs::ISP_START_RENDER,
                regs::IspStartRender { start: true }.pack()?[0],
            ));
            let mut job = Job::render(ta_regs.clone(), td).in_context(self.reset.id);
            job.bos.extend(shared_bos.iter().cloned());
            if let Some(bo) = colour_bo {
                let access = if any_colour_load {
                    Access::ReadWrite
                } else {
                    Access::Write
                };
                job.bos.push((bo, access));
            }
            if let Some(bo) = &depth_bo {
                // Replays before the last load the depth buffer and store nothing.
                let access = match (last, any_depth_load) {
                    (false, _) => Access::Read,
                    (true, true) => Access::ReadWrite,
                    (true, false) => Access::Write,
                };
                job.bos.push((bo.clone(), access));
            }
            fence = Some(dev.submit(job)?);
        }
        let fence = fence.expect("one render per colour buffer, at least one");
        // Every replay counted the same samples into the batch's query slots.
        for (q, addr) in &b.query_slots {
            let mut st = q.st();
            let base = st.bo.as_ref().map_or(0, |bo| bo.gpu_addr());
            let slot = (addr - base) as usize / 4;
            if let Some(n) = st.slot_renders.get_mut(slot) {
                *n = replays as u32;
            }
            st.end_fence = Some(fence.clone());
        }
        Ok(fence)
    }
}

/// The PBE state of a render of `fb` (`w_tl` x `h_tl` tiles) storing into colour buffer `s`
/// (or, without one, clipping only), and the buffer it writes.
fn pbe_target(
    s: Option<&Surface>,
    fb: &FramebufferState,
    (w_tl, h_tl): (u32, u32),
) -> Result<(pbe::PbeState, Option<Bo>)> {
    let Some(s) = s else {
        // No colour buffer: nothing is stored, but the clip still bounds the render, and
        // the depth buffer's loads and stores with it.
        let p = pbe::PbeState {
            format: Format::B8G8R8A8_UNORM,
            extent_w_tl: w_tl,
            extent_h_tl: h_tl,
            clip_xmax: fb.width - 1,
            clip_ymax: fb.height - 1,
            ..Default::default()
        };
        return Ok((p, None));
    };
    let (bo, layout) = {
        let st = s.resource.storage();
        (st.bo.clone(), st.layout.clone())
    };
    let mut layout = layout.ok_or_else(|| {
        crate::error::PipeError::InvalidArgument("colour buffer has no layout".into())
    })?;
    // An sRGB texture renders through its linear twin, whose layout is the same
    // bytes (resource::render_format).
    layout.format = crate::resource::render_format(layout.format);
    // A 3D texture's surface names a slice where a cube's names a face.
    let mut p = if s.resource.target() == crate::resource::ResourceTarget::Texture3D {
        layout.pbe_state_slice(0, s.level, s.face, bo.gpu_addr())?
    } else {
        layout.pbe_state(s.face, s.level, bo.gpu_addr())?
    };
    // The framebuffer may be smaller than the level.
    p.clip_xmax = p.clip_xmax.min(fb.width - 1);
    p.clip_ymax = p.clip_ymax.min(fb.height - 1);
    p.extent_w_tl = w_tl;
    p.extent_h_tl = h_tl;
    Ok((p, Some(bo)))
}
