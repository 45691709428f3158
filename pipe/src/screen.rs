//! The screen: one per device. Capabilities, formats, resources, fences, contexts.

use std::os::fd::{BorrowedFd, OwnedFd};
use std::sync::Arc;
use std::time::Duration;

use sgx_hwdocs::{Format, FormatKind};
use sgx_layout::{Layout, Tiling};
use sgx_winsys::{Bo, BoDesc, Device, Fence};

use crate::caps::{self, Cap, ShaderCap, ShaderStage};
use crate::error::{invalid, PipeError, Result};
use crate::resource::{bind, render_format, Resource, ResourceTarget, ResourceTemplate, Storage};
use crate::shader_cache::ShaderCache;

/// Texture targets for format queries (`PIPE_BUFFER`, `PIPE_TEXTURE_2D`, `PIPE_TEXTURE_CUBE`).
pub type Target = ResourceTarget;

/// How an exported resource's bytes are laid out: the stride and offset of Gallium's
/// `winsys_handle`, and the texel order, which an importer must agree on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HandleLayout {
    /// Offset of level 0 (face 0) in the buffer; always 0 here.
    pub offset_B: u64,
    /// Level 0's row pitch in bytes: 0 when twiddled (no rows), a buffer's size for a buffer.
    pub stride_B: u64,
    /// Bytes the resource occupies (the layout's size; a buffer's width).
    pub size_B: u64,
    /// Texel order of level 0 (None for buffers).
    pub tiling: Option<Tiling>,
}

impl HandleLayout {
    fn of(size_B: u64, layout: Option<&Layout>) -> HandleLayout {
        HandleLayout {
            offset_B: 0,
            stride_B: layout.map_or(size_B, |l| l.levels[0].stride_B),
            size_B,
            tiling: layout.map(|l| l.levels[0].tiling),
        }
    }
}

struct ScreenInner {
    dev: Arc<dyn Device>,
    shaders: ShaderCache,
}

/// The screen's format rule (see [`Screen::is_format_supported`]).
pub(crate) fn format_supported(
    format: Format,
    target: Target,
    bind_flags: u32,
    samples: u32,
) -> bool {
    if samples > 1 {
        return false;
    }
    if target == Target::Buffer {
        return bind_flags & (bind::RENDER_TARGET | bind::DEPTH_STENCIL | bind::SAMPLER_VIEW) == 0;
    }
    let info = format.info();
    let depth = matches!(info.kind, FormatKind::Depth | FormatKind::DepthStencil);
    if bind_flags & bind::SAMPLER_VIEW != 0 && !info.sampleable {
        return false;
    }
    if bind_flags & bind::RENDER_TARGET != 0 && (!info.renderable || depth) {
        return false;
    }
    // A 1D texture is laid out as a 2D one of height 1, so a 1D depth texture is one ZLS
    // surface too: st/mesa asks for DEPTH_STENCIL on 2D and then creates the 1D shadow
    // textures (sampler1DShadow) with that binding.
    if bind_flags & bind::DEPTH_STENCIL != 0
        && (!depth || !matches!(target, Target::Texture1D | Target::Texture2D))
    {
        return false;
    }
    // Depth formats are ZLS buffers: one linear surface, so no faces and no slices.
    if depth && matches!(target, Target::TextureCube | Target::Texture3D) {
        return false;
    }
    true
}

/// Whether `resource_create` takes a template: what the format rule supports, and also an
/// sRGB texture asking RENDER_TARGET where its linear twin renders. st/mesa asks for that
/// binding speculatively (`default_bindings` retries with the linear format), then renders to
/// the texture only through linear-format surfaces, as [`render_format`] does.
pub(crate) fn format_creatable(
    format: Format,
    target: Target,
    bind_flags: u32,
    samples: u32,
) -> bool {
    format_supported(format, target, bind_flags, samples)
        || (bind_flags & bind::RENDER_TARGET != 0
            && render_format(format) != format
            && format_supported(format, target, bind_flags & !bind::RENDER_TARGET, samples)
            && format_supported(render_format(format), target, bind_flags, samples))
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

    /// `get_paramf`.
    pub fn get_paramf(&self, cap: crate::caps::CapF) -> f32 {
        caps::get_paramf(cap)
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
        format_supported(format, target, bind_flags, samples)
    }

    /// Checks a template and works out its storage: bytes and, for textures, the layout.
    fn plan(&self, t: &ResourceTemplate) -> Result<(u64, Option<Layout>)> {
        if t.width == 0 || t.height == 0 {
            return invalid(format!("resource of {}x{}", t.width, t.height));
        }
        if t.target == ResourceTarget::Buffer {
            if t.height != 1 || t.last_level != 0 {
                return invalid("a buffer has height 1 and one level");
            }
            return Ok((u64::from(t.width), None));
        }
        if !format_creatable(t.format, t.target, t.bind, t.nr_samples) {
            return Err(PipeError::UnsupportedFormat {
                format: t.format,
                what: "for this target and binding",
            });
        }
        let layout = Layout::new(&t.layout_template()?)?;
        Ok((layout.size_B, Some(layout)))
    }

    fn wrap(t: &ResourceTemplate, bo: Bo, layout: Option<Layout>) -> Arc<Resource> {
        Resource::new(
            *t,
            Storage {
                bo,
                layout,
                stale_levels: 0,
            },
        )
    }

    /// `resource_create`.
    pub fn resource_create(&self, t: &ResourceTemplate) -> Result<Arc<Resource>> {
        let (size_B, layout) = self.plan(t)?;
        let bo = self.0.dev.create_bo(&BoDesc::new(size_B))?;
        Ok(Screen::wrap(t, bo, layout))
    }

    /// `resource_get_handle` (WINSYS_HANDLE_TYPE_FD): the resource's buffer as a dma-buf fd,
    /// and its layout. Fences do not travel with the fd: flush the contexts that write the
    /// resource and wait for their fences before another device reads it.
    /// Err(Winsys(Unsupported)) where the backend cannot export.
    pub fn resource_get_handle(&self, r: &Arc<Resource>) -> Result<(OwnedFd, HandleLayout)> {
        let (bo, layout) = {
            let s = r.storage();
            (s.bo.clone(), s.layout.clone())
        };
        let size_B = layout.as_ref().map_or(u64::from(r.width()), |l| l.size_B);
        let fd = self.0.dev.export_bo(&bo)?;
        Ok((fd, HandleLayout::of(size_B, layout.as_ref())))
    }

    /// `resource_from_handle` (WINSYS_HANDLE_TYPE_FD): a resource of template `t` whose storage
    /// is the dma-buf `fd`, laid out as this driver lays out `t`. With `expect` (the exporter's
    /// [`HandleLayout`]), a different stride, offset, size or tiling is an error. A file smaller
    /// than the layout is an error. The fd is duplicated; the caller may close it.
    pub fn resource_from_handle(
        &self,
        t: &ResourceTemplate,
        fd: BorrowedFd<'_>,
        expect: Option<&HandleLayout>,
    ) -> Result<Arc<Resource>> {
        let (size_B, layout) = self.plan(t)?;
        let ours = HandleLayout::of(size_B, layout.as_ref());
        if let Some(e) = expect {
            if *e != ours {
                return invalid(format!(
                    "imported layout {e:?} differs from this template's {ours:?}"
                ));
            }
        }
        let bo = self.0.dev.import_bo(fd, size_B)?;
        Ok(Screen::wrap(t, bo, layout))
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

    /// `get_timestamp`: the GPU clock in nanoseconds, the end of the newest finished job (the
    /// model's clock on the model).
    pub fn get_timestamp(&self) -> u64 {
        crate::query::cycles_to_ns(self.0.dev.trace_totals().end_cycles)
    }
}
