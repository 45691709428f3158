//! The screen: one per device. Capabilities, formats, resources, fences, contexts.

use std::sync::Arc;
use std::time::Duration;

use sgx_hwdocs::{Format, FormatKind};
use sgx_layout::Layout;
use sgx_winsys::{BoDesc, Device, Fence};

use crate::caps::{self, Cap, ShaderCap, ShaderStage};
use crate::context::Context;
use crate::error::{invalid, PipeError, Result};
use crate::resource::{bind, Resource, ResourceTarget, ResourceTemplate, Storage};
use crate::shader_cache::ShaderCache;

/// Texture targets for format queries (`PIPE_BUFFER`, `PIPE_TEXTURE_2D`, `PIPE_TEXTURE_CUBE`).
pub type Target = ResourceTarget;

struct ScreenInner {
    dev: Arc<dyn Device>,
    shaders: ShaderCache,
}

/// A screen. Cheap to clone; contexts hold one.
#[derive(Clone)]
pub struct Screen(Arc<ScreenInner>);

impl std::fmt::Debug for Screen {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Screen").finish_non_exhaustive()
    }
}

impl Screen {
    /// A screen on a winsys device. The shader disk cache follows `SGX_SHADER_CACHE` and
    /// `XDG_CACHE_HOME`.
    pub fn new(dev: Arc<dyn Device>) -> Screen {
        Screen(Arc::new(ScreenInner {
            dev,
            shaders: ShaderCache::from_env(),
        }))
    }

    /// A screen with an explicit shader cache (tests).
    pub fn with_shader_cache(dev: Arc<dyn Device>, shaders: ShaderCache) -> Screen {
        Screen(Arc::new(ScreenInner { dev, shaders }))
    }

    /// The winsys device.
    pub fn device(&self) -> &Arc<dyn Device> {
        &self.0.dev
    }

    /// The shader cache.
    pub fn shader_cache(&self) -> &ShaderCache {
        &self.0.shaders
    }

    /// `get_param`.
    pub fn get_param(&self, cap: Cap) -> i64 {
        caps::get_param(cap)
    }

    /// `get_shader_param`.
    pub fn get_shader_param(&self, stage: ShaderStage, cap: ShaderCap) -> i64 {
        caps::get_shader_param(stage, cap)
    }

    /// `is_format_supported`: whether `format` can serve `bind` on `target` with `samples`.
    pub fn is_format_supported(
        &self,
        format: Format,
        target: Target,
        bind_flags: u32,
        samples: u32,
    ) -> bool {
        if samples > 1 {
            return false;
        }
        if target == Target::Buffer {
            return bind_flags & (bind::RENDER_TARGET | bind::DEPTH_STENCIL | bind::SAMPLER_VIEW)
                == 0;
        }
        let info = format.info();
        let depth = matches!(info.kind, FormatKind::Depth | FormatKind::DepthStencil);
        if bind_flags & bind::SAMPLER_VIEW != 0 && !info.sampleable {
            return false;
        }
        if bind_flags & bind::RENDER_TARGET != 0 && (!info.renderable || depth) {
            return false;
        }
        if bind_flags & bind::DEPTH_STENCIL != 0 && (!depth || target != Target::Texture2D) {
            return false;
        }
        if target == Target::TextureCube && depth {
            return false;
        }
        true
    }

    /// `resource_create`.
    pub fn resource_create(&self, t: &ResourceTemplate) -> Result<Arc<Resource>> {
        if t.width == 0 || t.height == 0 {
            return invalid(format!("resource of {}x{}", t.width, t.height));
        }
        if t.target == ResourceTarget::Buffer {
            if t.height != 1 || t.last_level != 0 {
                return invalid("a buffer has height 1 and one level");
            }
            let bo = self.0.dev.create_bo(&BoDesc::new(u64::from(t.width)))?;
            return Ok(Resource::new(
                *t,
                Storage {
                    bo,
                    layout: None,
                    stale_levels: 0,
                },
            ));
        }
        if !self.is_format_supported(t.format, t.target, t.bind, t.nr_samples) {
            return Err(PipeError::UnsupportedFormat {
                format: t.format,
                what: "for this target and binding",
            });
        }
        let layout = Layout::new(&t.layout_template()?)?;
        let bo = self.0.dev.create_bo(&BoDesc::new(layout.size_B))?;
        Ok(Resource::new(
            *t,
            Storage {
                bo,
                layout: Some(layout),
                stale_levels: 0,
            },
        ))
    }

    /// `resource_destroy`: drops this reference; the storage goes when jobs and views are done.
    pub fn resource_destroy(&self, r: Arc<Resource>) {
        drop(r);
    }

    /// `fence_finish`: waits for a fence; Ok(true) when it signalled in time.
    pub fn fence_finish(&self, fence: &Fence, timeout: Duration) -> Result<bool> {
        match fence.wait(timeout) {
            Ok(()) => Ok(true),
            Err(sgx_winsys::WinsysError::Timeout { .. }) => Ok(false),
            Err(e) => Err(e.into()),
        }
    }

    /// `context_create`.
    pub fn context_create(&self) -> Context {
        Context::new(self.clone())
    }
}
