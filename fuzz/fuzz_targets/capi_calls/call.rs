//! What a fuzzed call is: its handles, formats, boxes and arguments, from `arbitrary` bytes.

use arbitrary::Arbitrary;
use sgx535::sgx535_box;

/// Gallium formats worth hitting often; `Fmt::Raw` reaches the rest and the nonsense.
pub(crate) const FORMATS: [u32; 12] = [54, 53, 14, 16, 130, 132, 133, 134, 136, 140, 143, 144];
pub(crate) const VS: &str = "VERT\nDCL IN[0]\nDCL IN[1]\nDCL OUT[0], POSITION\nDCL OUT[1], GENERIC[0]\n  0: MOV OUT[0], IN[0]\n  1: MOV OUT[1], IN[1]\n  2: END\n";
pub(crate) const FS_TEX: &str = "FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\nDCL SAMP[0]\nDCL SVIEW[0], 2D, FLOAT\n  0: TEX OUT[0], IN[0], SAMP[0], 2D\n  1: END\n";
pub(crate) const FS_CONST: &str =
    "FRAG\nDCL OUT[0], COLOR\nDCL CONST[0]\n  0: MOV OUT[0], CONST[0]\n  1: END\n";
/// Bytes the harness is willing to hand a call (bigger requests are not made).
pub(crate) const MAX_DATA_B: u64 = 4 << 20;

/// A handle argument: one the sequence made (of any kind, maybe destroyed), none, or forged.
#[derive(Arbitrary, Debug, Clone, Copy)]
pub(crate) enum H {
    Made(u8),
    Null,
    Forged(u64),
}

#[derive(Arbitrary, Debug, Clone, Copy)]
pub(crate) enum Fmt {
    Known(u8),
    Raw(u32),
}

impl Fmt {
    pub(crate) fn get(self) -> u32 {
        match self {
            Fmt::Known(i) => FORMATS[usize::from(i) % FORMATS.len()],
            Fmt::Raw(v) => v,
        }
    }
}

/// A size: usually small (fast on the model), sometimes anything.
#[derive(Arbitrary, Debug, Clone, Copy)]
pub(crate) enum Dim {
    Small(u8),
    Any(u32),
}

impl Dim {
    pub(crate) fn get(self) -> u32 {
        match self {
            Dim::Small(v) => u32::from(v % 64),
            Dim::Any(v) => v,
        }
    }
}

#[derive(Arbitrary, Debug, Clone, Copy)]
pub(crate) struct ABox {
    pub(crate) x: i8,
    pub(crate) y: i8,
    pub(crate) z: i8,
    pub(crate) w: Dim,
    pub(crate) h: Dim,
    pub(crate) d: i8,
}

impl ABox {
    pub(crate) fn get(self) -> sgx535_box {
        let c = |v: u32| i32::try_from(v).unwrap_or(i32::MAX);
        sgx535_box {
            x: i32::from(self.x),
            y: i32::from(self.y),
            z: i32::from(self.z),
            width: c(self.w.get()),
            height: c(self.h.get()),
            depth: i32::from(self.d),
        }
    }
}

#[derive(Arbitrary, Debug)]
pub(crate) enum Call {
    ContextCreate,
    ContextDestroy(H),
    ResourceCreate {
        target: u8,
        format: Fmt,
        w: Dim,
        h: Dim,
        d: u8,
        array: u8,
        last_level: u8,
        samples: u8,
        bind: u32,
    },
    ResourceDestroy(H),
    ResourceGetTemplate(H),
    Surface {
        ctx: H,
        res: H,
        format: Fmt,
        level: u8,
        first: u8,
        last: u8,
    },
    SurfaceDestroy(H, H),
    SamplerView {
        ctx: H,
        res: H,
        format: Fmt,
        first: u8,
        last: u8,
        swizzle: [u8; 4],
    },
    SamplerViewDestroy(H, H),
    SetSamplerViews(H, u8, Vec<H>),
    Shader {
        ctx: H,
        vertex: bool,
        which: u8,
        text: Vec<u8>,
    },
    BindShader(H, bool, H),
    DeleteShader(H, bool, H),
    Cso {
        ctx: H,
        kind: u8,
        bytes: Vec<u8>,
    },
    BindCso(H, u8, H),
    DeleteCso(H, u8, H),
    BindSamplers(H, u8, Vec<H>),
    VertexElements(H, Vec<(u32, u8, Fmt)>),
    Framebuffer {
        ctx: H,
        w: Dim,
        h: Dim,
        nr_cbufs: u8,
        cbuf: H,
        zsbuf: H,
    },
    Viewport(H, [f32; 6]),
    Scissor(H, [u16; 4]),
    SampleMask(H, u32),
    VertexBuffers {
        ctx: H,
        stride: u16,
        offset: u32,
        buffer: H,
        user: Option<Vec<u8>>,
    },
    ConstantBuffer {
        ctx: H,
        stage: u8,
        index: u8,
        buffer: H,
        offset: u32,
        user: Option<Vec<u8>>,
    },
    Draw {
        ctx: H,
        mode: u8,
        index_size: u8,
        index_buffer: H,
        user_indices: bool,
        start: u16,
        count: u16,
        bias: i8,
        instances: u8,
    },
    Clear {
        ctx: H,
        buffers: u8,
        color: [f32; 4],
        depth: f64,
        stencil: u8,
    },
    ClearRenderTarget {
        ctx: H,
        surface: H,
        color: [f32; 4],
        rect: [Dim; 4],
    },
    Blit {
        ctx: H,
        dst: H,
        dst_level: u8,
        dst_box: ABox,
        src: H,
        src_level: u8,
        src_box: ABox,
        format: Option<Fmt>,
        mask: u8,
        filter: u8,
    },
    CopyRegion {
        ctx: H,
        dst: H,
        dst_level: u8,
        at: [u8; 3],
        src: H,
        src_level: u8,
        src_box: ABox,
    },
    GenerateMipmap {
        ctx: H,
        res: H,
        format: Option<Fmt>,
        base: u8,
        last: u8,
        first_layer: u8,
        last_layer: u8,
    },
    TextureSubdata {
        ctx: H,
        res: H,
        level: u8,
        b: ABox,
        stride: u16,
        layer_stride: u32,
    },
    BufferSubdata {
        ctx: H,
        res: H,
        offset: u32,
        size: u32,
    },
    TransferMap {
        ctx: H,
        res: H,
        level: u8,
        usage: u8,
        b: ABox,
    },
    TransferUnmap(H, H),
    Flush(H),
    FenceFinish(H, u8),
    FenceReference(H),
    FenceDestroy(H),
    Query {
        ctx: H,
        kind: u8,
    },
    QueryOp(H, u8, H),
    ResetStatus(H),
}
