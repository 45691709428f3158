//! Resources: buffers and textures, each one buffer object with a layout.
//!
//! A texture's storage can be replaced as a whole (the blitter's private 2048 chain is adopted
//! this way), so it sits behind a lock; everything else is fixed at creation.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use sgx_hwdocs::Format;
use sgx_layout::{Layout, Template};
use sgx_winsys::Bo;

use crate::error::{invalid, Result};

/// What kind of resource.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ResourceTarget {
    /// Bytes (vertex, index, constant data).
    Buffer,
    /// A 1D texture with levels: stored as a 2D texture of height 1.
    Texture1D,
    /// A 2D texture with levels.
    Texture2D,
    /// A 3D (volume) texture with levels.
    Texture3D,
    /// A cube map with levels.
    TextureCube,
}

/// `PIPE_BIND_*` flags.
pub mod bind {
    /// Sampled by shaders.
    pub const SAMPLER_VIEW: u32 = 1 << 3;
    /// Colour render target.
    pub const RENDER_TARGET: u32 = 1 << 1;
    /// Depth/stencil target.
    pub const DEPTH_STENCIL: u32 = 1 << 0;
    /// Vertex buffer.
    pub const VERTEX_BUFFER: u32 = 1 << 4;
    /// Index buffer.
    pub const INDEX_BUFFER: u32 = 1 << 5;
    /// Constant buffer.
    pub const CONSTANT_BUFFER: u32 = 1 << 6;
    /// Shared with another process (dma-buf).
    pub const SHARED: u32 = 1 << 20;
}

/// The format a colour target of `f` is rendered as. Whether the SGX535's pixel backend can
/// encode sRGB is not known (hwdocs: B8G8R8A8_SRGB is not renderable), so the screen offers
/// no sRGB rendering (no GL_FRAMEBUFFER_SRGB) and an sRGB texture is rendered through its
/// linear twin, which is what GL asks when sRGB writes are off: the values land unencoded.
pub fn render_format(f: Format) -> Format {
    match f {
        Format::B8G8R8A8_SRGB => Format::B8G8R8A8_UNORM,
        Format::R8G8B8A8_SRGB => Format::R8G8B8A8_UNORM,
        f => f,
    }
}

/// `pipe_resource` template.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResourceTemplate {
    /// Kind.
    pub target: ResourceTarget,
    /// Format (ignored for buffers).
    pub format: Format,
    /// Width in pixels, or the size in bytes of a buffer.
    pub width: u32,
    /// Height in pixels (1 for buffers and 1D textures).
    pub height: u32,
    /// Depth in pixels (1 except for 3D textures).
    pub depth: u32,
    /// Last mip level (0: one level).
    pub last_level: u32,
    /// Samples per pixel (only 1).
    pub nr_samples: u32,
    /// `bind` flags.
    pub bind: u32,
}

impl ResourceTemplate {
    /// A buffer of `size_B` bytes.
    pub fn buffer(size_B: u32, bind: u32) -> Self {
        ResourceTemplate {
            target: ResourceTarget::Buffer,
            format: Format::R32_FLOAT,
            width: size_B,
            height: 1,
            depth: 1,
            last_level: 0,
            nr_samples: 1,
            bind,
        }
    }

    /// A 2D texture.
    pub fn texture_2d(format: Format, width: u32, height: u32, last_level: u32, bind: u32) -> Self {
        ResourceTemplate {
            target: ResourceTarget::Texture2D,
            format,
            width,
            height,
            depth: 1,
            last_level,
            nr_samples: 1,
            bind,
        }
    }

    /// A cube map.
    pub fn cube(format: Format, size: u32, last_level: u32, bind: u32) -> Self {
        ResourceTemplate {
            target: ResourceTarget::TextureCube,
            format,
            width: size,
            height: size,
            depth: 1,
            last_level,
            nr_samples: 1,
            bind,
        }
    }

    /// A 1D texture.
    pub fn texture_1d(format: Format, width: u32, last_level: u32, bind: u32) -> Self {
        ResourceTemplate {
            target: ResourceTarget::Texture1D,
            ..Self::texture_2d(format, width, 1, last_level, bind)
        }
    }

    /// A 3D texture.
    pub fn texture_3d(
        format: Format,
        width: u32,
        height: u32,
        depth: u32,
        last_level: u32,
        bind: u32,
    ) -> Self {
        ResourceTemplate {
            target: ResourceTarget::Texture3D,
            depth,
            ..Self::texture_2d(format, width, height, last_level, bind)
        }
    }

    /// The layout template of a texture.
    pub(crate) fn layout_template(&self) -> Result<Template> {
        if self.nr_samples > 1 {
            return invalid(format!(
                "{} samples: only single-sampled resources",
                self.nr_samples
            ));
        }
        if self.depth != 1 && self.target != ResourceTarget::Texture3D {
            return invalid(format!("depth {} on a {:?}", self.depth, self.target));
        }
        let t = match self.target {
            ResourceTarget::Buffer => return invalid("a buffer has no texture layout"),
            ResourceTarget::Texture1D if self.height != 1 => {
                return invalid(format!("a 1D texture of height {}", self.height))
            }
            ResourceTarget::Texture1D | ResourceTarget::Texture2D => {
                Template::new_2d(self.format, self.width, self.height)
            }
            ResourceTarget::Texture3D => {
                Template::new_3d(self.format, self.width, self.height, self.depth)
            }
            ResourceTarget::TextureCube => {
                if self.width != self.height {
                    return invalid(format!(
                        "cube faces are square, not {}x{}",
                        self.width, self.height
                    ));
                }
                Template::new_cube(self.format, self.width)
            }
        };
        Ok(t.with_levels(self.last_level + 1))
    }
}

/// Storage of a resource: its buffer object and, for textures, where levels live.
#[derive(Debug, Clone)]
pub struct Storage {
    /// The buffer object.
    pub bo: Bo,
    /// Texture layout (None for buffers).
    pub layout: Option<Layout>,
    /// Bit L set: level L must be regenerated before it is trusted (a mip generation that
    /// stopped on an error leaves its ungenerated levels marked).
    pub stale_levels: u32,
}

/// A resource. Shared with `Arc`; the buffer object lives while any reference or job does.
#[derive(Debug)]
pub struct Resource {
    id: u64,
    template: ResourceTemplate,
    storage: Mutex<Storage>,
}

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// How many times any resource's buffer was replaced (`Resource::adopt_storage`): a draw
/// checks its packed buffers for a move only when this changed since it last looked, instead
/// of locking every buffer's storage per draw.
static STORAGE_MOVES: AtomicU64 = AtomicU64::new(0);

/// The count of storage replacements so far (see `STORAGE_MOVES`).
pub(crate) fn storage_moves() -> u64 {
    STORAGE_MOVES.load(Ordering::Acquire)
}

impl Resource {
    pub(crate) fn new(template: ResourceTemplate, storage: Storage) -> Arc<Resource> {
        Arc::new(Resource {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            template,
            storage: Mutex::new(storage),
        })
    }

    /// Process-unique id.
    pub fn id(&self) -> u64 {
        self.id
    }

    /// The template it was created from.
    pub fn template(&self) -> &ResourceTemplate {
        &self.template
    }

    /// Kind.
    pub fn target(&self) -> ResourceTarget {
        self.template.target
    }

    /// Format.
    pub fn format(&self) -> Format {
        self.template.format
    }

    /// Level-0 width (bytes for buffers).
    pub fn width(&self) -> u32 {
        self.template.width
    }

    /// Level-0 height.
    pub fn height(&self) -> u32 {
        self.template.height
    }

    /// Level-0 depth (1 unless 3D).
    pub fn depth(&self) -> u32 {
        self.template.depth
    }

    /// Last mip level.
    pub fn last_level(&self) -> u32 {
        self.template.last_level
    }

    /// Faces: 6 for cubes, 1 otherwise.
    pub fn faces(&self) -> u32 {
        if self.template.target == ResourceTarget::TextureCube {
            6
        } else {
            1
        }
    }

    /// The storage, locked.
    pub fn storage(&self) -> MutexGuard<'_, Storage> {
        // Storage is replaced whole; a poisoned lock still holds a coherent value.
        self.storage.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The current buffer object.
    pub fn bo(&self) -> Bo {
        self.storage().bo.clone()
    }

    /// The texture layout (None for buffers).
    pub fn layout(&self) -> Option<Layout> {
        self.storage().layout.clone()
    }

    /// Extent of a level in pixels.
    pub fn level_extent(&self, level: u32) -> Result<(u32, u32)> {
        if level > self.template.last_level {
            return invalid(format!(
                "level {level} of a resource with levels 0..={}",
                self.template.last_level
            ));
        }
        Ok((
            (self.template.width >> level).max(1),
            (self.template.height >> level).max(1),
        ))
    }

    /// Slices of a level: the halved depth of a 3D texture, 1 otherwise.
    pub fn level_depth(&self, level: u32) -> Result<u32> {
        self.level_extent(level)?;
        Ok((self.template.depth >> level).max(1))
    }

    /// Replaces the storage (same template): the blitter adopts a private chain this way.
    pub fn adopt_storage(&self, bo: Bo, layout: Layout) -> Result<()> {
        let mut s = self.storage();
        match &s.layout {
            Some(l)
                if l.width_px == layout.width_px
                    && l.format == layout.format
                    && l.levels.len() == layout.levels.len()
                    && l.target == layout.target => {}
            _ => return invalid("adopted storage does not match the resource"),
        }
        if bo.size_B() < layout.size_B {
            return invalid("adopted buffer is smaller than its layout");
        }
        s.bo = bo;
        s.layout = Some(layout);
        // Counted while the lock is held: whoever reads the new count then locks this storage
        // sees the new buffer.
        STORAGE_MOVES.fetch_add(1, Ordering::Release);
        Ok(())
    }

    /// Marks levels as needing regeneration (bit L = level L).
    pub fn mark_stale(&self, levels: u32) {
        self.storage().stale_levels |= levels;
    }

    /// Clears stale marks.
    pub fn clear_stale(&self, levels: u32) {
        self.storage().stale_levels &= !levels;
    }

    /// Levels marked stale.
    pub fn stale_levels(&self) -> u32 {
        self.storage().stale_levels
    }

    pub(crate) fn is_cube_target(&self) -> bool {
        self.template.target == ResourceTarget::TextureCube
    }
}
