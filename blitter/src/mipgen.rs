//! generate_mipmap, as the seed article describes it: one fenced submission per generated
//! level, each sampling level L-1 with linear filtering and drawing level L; the application's
//! state saved and restored and its queries paused; a refusal before the first submission
//! falls back to the CPU generator, a failure after it stops.

use std::sync::Arc;

use sgx_hwdocs::limits;
use sgx_pipe::{map_flags, Context, PipeBox, Resource, ResourceTarget};
use sgx_winsys::{Access, FenceStatus};

use crate::admission::{DeviceKind, MipRequest};
use crate::blitter::{Blitter, QuadDraw};
use crate::error::{BlitError, Result};
use crate::save::SaveGuard;

/// Which route produced the levels.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Route {
    /// GPU passes, one submission per level.
    Gpu,
    /// The CPU generator, after a refusal before any submission.
    Cpu {
        /// Why the GPU route refused.
        reason: String,
    },
}

/// One generation pass.
#[derive(Debug, Clone)]
pub struct Pass {
    /// Level written.
    pub level: u32,
    /// Level sampled.
    pub src_level: u32,
    /// Out-fence of its submission.
    pub fence: sgx_winsys::Fence,
}

/// What generate_mipmap did.
#[derive(Debug, Clone)]
pub struct MipgenReport {
    /// GPU or CPU.
    pub route: Route,
    /// GPU passes in submission order.
    pub passes: Vec<Pass>,
    /// The levels were generated into a private chain that the resource adopted.
    pub private_chain: bool,
}

/// The first error among fences that have already ended (no waiting): its index and error.
fn first_error(passes: &[Pass]) -> Option<(usize, sgx_pipe::PipeError)> {
    passes
        .iter()
        .enumerate()
        .find_map(|(i, p)| match p.fence.status() {
            FenceStatus::Error(error) => Some((
                i,
                sgx_pipe::PipeError::Winsys(sgx_winsys::WinsysError::Job {
                    fence: p.fence.id(),
                    error,
                }),
            )),
            _ => None,
        })
}

fn levels_mask(from: u32, to: u32) -> u32 {
    (from..=to).fold(0, |m, l| m | (1 << l))
}

impl Blitter {
    /// Generates levels `base+1..=last` of a texture from level `base`.
    pub fn generate_mipmap(
        &self,
        ctx: &mut Context,
        res: &Arc<Resource>,
        base: u32,
        last: u32,
    ) -> Result<MipgenReport> {
        if res.target() == ResourceTarget::Buffer {
            return Err(BlitError::InvalidArgument(
                "generate_mipmap of a buffer".into(),
            ));
        }
        if base > last || last > res.last_level() {
            return Err(BlitError::InvalidArgument(format!(
                "levels {base}..={last} of a resource with levels 0..={}",
                res.last_level()
            )));
        }
        let kind = if ctx.screen().device().info().is_model {
            DeviceKind::Model
        } else {
            DeviceKind::Hardware
        };
        let req = MipRequest {
            format: res.format(),
            width_px: res.width(),
            height_px: res.height(),
            single_layer: res.target() == ResourceTarget::Texture2D,
            samples: res.template().nr_samples.max(1),
            base_level: base,
        };
        let admitted = self.admission.admits(kind, &req);
        if base == last {
            // An empty window does no work; its report still names the route admission
            // chose, so a window the GPU route refuses is not reported as a GPU one.
            return Ok(MipgenReport {
                route: match admitted {
                    Ok(()) => Route::Gpu,
                    Err(reason) => Route::Cpu { reason },
                },
                passes: Vec::new(),
                private_chain: false,
            });
        }
        if let Err(reason) = admitted {
            return self.cpu_fallback(ctx, res, base, last, reason);
        }
        // A whole chain of the largest texture (hwdocs limits::MAX_TEXTURE_PX) is generated
        // into a private allocation the resource then adopts.
        let whole_largest = base == 0 && u64::from(res.width()) == limits::MAX_TEXTURE_PX;
        let private = if whole_largest {
            match ctx.screen().resource_create(res.template()) {
                Ok(p) => Some(p),
                Err(e) => {
                    return self.cpu_fallback(
                        ctx,
                        res,
                        base,
                        last,
                        format!("private chain allocation failed: {e}"),
                    )
                }
            }
        } else {
            None
        };
        if let Some(p) = &private {
            // Level 0 into the private chain (CPU; this is not a generation submission).
            let (w, h) = res.level_extent(0)?;
            let t = ctx.transfer_map(res, 0, 0, map_flags::READ, PipeBox::new(0, 0, w, h))?;
            ctx.texture_subdata(p, 0, 0, PipeBox::new(0, 0, w, h), &t.data, t.stride_B, 0)?;
        }
        let target = private.as_ref().unwrap_or(res);

        let mut ctx = SaveGuard::save_and_pause(ctx);
        let mut passes: Vec<Pass> = Vec::new();
        let mut failure = None;
        for level in base + 1..=last {
            // A pass already failed on the GPU: stop rather than build on it.
            if let Some((i, e)) = first_error(&passes) {
                failure = Some((passes[i].level, e));
                break;
            }
            let (w, h) = target.level_extent(level)?;
            let q = QuadDraw {
                src: target,
                src_format: target.format(),
                src_level: level - 1,
                st: [0.0, 0.0, 1.0, 1.0],
                dst: target,
                dst_level: level,
                rect: [0, 0, w, h],
                linear: true,
            };
            // flush() returns the newest fence even when it submitted nothing: a pass that
            // recorded no work must not borrow an earlier submission's fence.
            let r = self.draw_quad(&mut ctx, &q).and_then(|()| {
                let before = ctx.stats().submissions;
                let f = ctx.flush()?;
                Ok(f.filter(|_| ctx.stats().submissions > before))
            });
            match r {
                Ok(Some(f)) => passes.push(Pass {
                    level,
                    src_level: level - 1,
                    fence: f,
                }),
                Ok(None) => {
                    failure = Some((
                        level,
                        sgx_pipe::PipeError::InvalidArgument(
                            "a generation pass submitted nothing".into(),
                        ),
                    ));
                    break;
                }
                Err(e) => {
                    failure = Some((level, e));
                    break;
                }
            }
        }
        let restored = ctx.restore();
        if let Some((level, source)) = failure {
            // Ownership stays: a private chain is not adopted, so every generated level of the
            // resource is stale; in place, the levels from the failed pass on are.
            let first_stale = if private.is_some() { base + 1 } else { level };
            res.mark_stale(levels_mask(first_stale, last));
            return Err(BlitError::Stopped {
                level,
                first_stale,
                source,
            });
        }
        restored?;
        if let Some(p) = private {
            let st = p.storage().clone();
            let layout = st
                .layout
                .ok_or_else(|| BlitError::InvalidArgument("private chain has no layout".into()))?;
            res.adopt_storage(st.bo, layout)?;
        }
        res.clear_stale(levels_mask(base + 1, last));
        Ok(MipgenReport {
            route: Route::Gpu,
            passes,
            private_chain: whole_largest,
        })
    }

    /// Waits for every pass of a GPU generation, in order. A pass that ended with an error
    /// (a GPU fault surfaces on its fence, after submission) stops the generation as a
    /// submission error would: its level and the levels after it are marked stale.
    pub fn wait_mipmap(
        &self,
        res: &Arc<Resource>,
        report: &MipgenReport,
        timeout: std::time::Duration,
    ) -> Result<()> {
        let Some(last) = report.passes.last().map(|p| p.level) else {
            return Ok(());
        };
        for p in &report.passes {
            if let Err(e) = p.fence.wait(timeout) {
                res.mark_stale(levels_mask(p.level, last));
                return Err(BlitError::Stopped {
                    level: p.level,
                    first_stale: p.level,
                    source: e.into(),
                });
            }
        }
        Ok(())
    }

    /// The CPU generator over the resource's storage, after a refusal before any submission.
    fn cpu_fallback(
        &self,
        ctx: &mut Context,
        res: &Arc<Resource>,
        base: u32,
        last: u32,
        reason: String,
    ) -> Result<MipgenReport> {
        log::info!("generate_mipmap: CPU route: {reason}");
        ctx.flush_resource(res)?;
        let (bo, layout) = {
            let st = res.storage();
            (st.bo.clone(), st.layout.clone())
        };
        let layout =
            layout.ok_or_else(|| BlitError::InvalidArgument("texture without layout".into()))?;
        let map = bo.map(Access::ReadWrite, sgx_pipe::DEFAULT_TIMEOUT)?;
        let mut alloc = map.to_vec();
        sgx_layout::mipgen::generate_mipmaps(&layout, &mut alloc, base, last)?;
        map.write_at(0, &alloc)?;
        res.clear_stale(levels_mask(base + 1, last));
        Ok(MipgenReport {
            route: Route::Cpu { reason },
            passes: Vec::new(),
            private_chain: false,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sgx_winsys::{Device, SimDevice};

    fn pass(level: u32, fence: sgx_winsys::Fence) -> Pass {
        Pass {
            level,
            src_level: level - 1,
            fence,
        }
    }

    /// The check between passes: only a pass whose fence already ended in error stops the
    /// chain; pending and completed passes do not, and the first failed pass is the one named.
    #[test]
    fn first_error_names_the_first_pass_that_ended_in_error() {
        let dev = SimDevice::new().unwrap();
        let done = dev.user_fence().unwrap();
        let pending = dev.user_fence().unwrap();
        let failed = dev.user_fence().unwrap();
        let failed_later = dev.user_fence().unwrap();
        let mut passes = vec![
            pass(1, done.fence().clone()),
            pass(2, pending.fence().clone()),
        ];
        done.signal();
        assert!(first_error(&passes).is_none(), "done and pending passes");

        let (failed_id, later) = (failed.fence().id(), failed_later.fence().clone());
        passes.push(pass(3, failed.fence().clone()));
        passes.push(pass(4, later));
        failed_later.fail("the later pass");
        failed.fail("the pass at level 3");
        let (i, e) = first_error(&passes).expect("a failed pass");
        assert_eq!(i, 2, "the first failed pass in submission order");
        match e {
            sgx_pipe::PipeError::Winsys(sgx_winsys::WinsysError::Job { fence, error }) => {
                assert_eq!(fence, failed_id);
                assert!(error.to_string().contains("level 3"), "{error}");
            }
            e => panic!("{e:?}"),
        }
        drop(pending);
    }

    #[test]
    fn levels_mask_covers_exactly_the_window() {
        assert_eq!(levels_mask(2, 4), 0b1_1100);
        assert_eq!(levels_mask(0, 0), 1);
        assert_eq!(levels_mask(3, 11), 0xff8);
    }
}
