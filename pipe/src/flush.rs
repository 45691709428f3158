//! Flushes: the pending batch becomes one render job (tile control, PBE and ZLS registers,
//! the control stream), submitted with every buffer it uses; `flush` returns the newest fence.

use sgx_hwdocs::{pbe, regs, render, ta_stream, Format};
use sgx_winsys::{Access, Bo, BoDesc, Fence, Job};

use crate::batch::Batch;
use crate::context::Context;
use crate::error::Result;

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
        // touched and cleared ones, skip the rest.
        let has_c = b.fb.cbuf.is_some();
        let has_z = b.fb.zsbuf.is_some();
        let mut ctrl = Vec::with_capacity(b.touched.len());
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
            let w = render::TileCtrl {
                colour_load,
                colour_store,
                depth_load,
                depth_store,
                keep_stencil,
                keep_depth,
            }
            .pack()?[0];
            ctrl.push(w as u8);
        }
        let ctrl_va = b.arena.push_bytes(&*dev, &ctrl, 16)?;

        let pb = dev.create_bo(&BoDesc::new(b.pb_size_B()))?;
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
        let mut td = vec![
            (regs::TE_SCREEN, screen),
            (regs::DPM_PB_BASE, pb_base),
            (regs::DPM_PB_SIZE, pb_size),
        ];

        let mut job_bos: Vec<(Bo, Access)> = Vec::new();
        // Colour target.
        let pbe_state = match &b.fb.cbuf {
            Some(s) => {
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
                p.clip_xmax = p.clip_xmax.min(b.fb.width - 1);
                p.clip_ymax = p.clip_ymax.min(b.fb.height - 1);
                p.extent_w_tl = b.w_tl;
                p.extent_h_tl = b.h_tl;
                job_bos.push((
                    bo,
                    if any_colour_load {
                        Access::ReadWrite
                    } else {
                        Access::Write
                    },
                ));
                p
            }
            // No colour buffer: nothing is stored, but the clip still bounds the render, and
            // the depth buffer's loads and stores with it.
            None => pbe::PbeState {
                format: Format::B8G8R8A8_UNORM,
                extent_w_tl: b.w_tl,
                extent_h_tl: b.h_tl,
                clip_xmax: b.fb.width - 1,
                clip_ymax: b.fb.height - 1,
                ..Default::default()
            },
        };
        for (i, w) in pbe_state.pack()?.iter().enumerate() {
            td.push((regs::PBE_STATE + regs::PBE_STATE_STRIDE * i as u32, *w));
        }
        for (i, c) in b.clear_colour.iter().enumerate() {
            td.push((
                regs::BGOBJ_COLOUR + regs::BGOBJ_COLOUR_STRIDE * i as u32,
                c.to_bits(),
            ));
        }
        td.push((
            regs::ISP_BGOBJDEPTH,
            regs::IspBgobjdepth {
                depth: b.clear_depth,
            }
            .pack()?[0],
        ));
        td.push((
            regs::BGOBJ_STENCIL,
            regs::BgobjStencil {
                value: u32::from(b.clear_stencil),
            }
            .pack()?[0],
        ));
        td.push((
            regs::TILE_CTRL_BASE,
            regs::TileCtrlBase { addr: ctrl_va }.pack()?[0],
        ));
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
            td.push((
                regs::ISP_ZLSCTL,
                regs::IspZlsctl {
                    enable: 1,
                    format: z.resource.format(),
                }
                .pack()?[0],
            ));
            td.push((regs::ZLS_ZBASE, regs::ZlsZbase { addr: base }.pack()?[0]));
            td.push((
                regs::ZLS_STRIDE,
                regs::ZlsStride {
                    stride_B: lvl.stride_B as u32,
                }
                .pack()?[0],
            ));
            job_bos.push((
                bo,
                if any_depth_load {
                    Access::ReadWrite
                } else {
                    Access::Write
                },
            ));
        }
        td.push((
            regs::ISP_START_RENDER,
            regs::IspStartRender { start: true }.pack()?[0],
        ));

        let mut job = Job::render(ta_regs, td).in_context(self.reset.id);
        job.bos.extend(b.arena.finish(timeout)?);
        job.bos.push((pb, Access::Write));
        job.bos.append(&mut job_bos);
        job.bos.append(&mut b.bos);
        for (q, _) in &b.query_slots {
            if let Some(bo) = &q.st().bo {
                job.bos.push((bo.clone(), Access::ReadWrite));
            }
        }
        let fence = dev.submit(job)?;
        for (q, _) in &b.query_slots {
            q.st().end_fence = Some(fence.clone());
        }
        Ok(fence)
    }
}
