//! Job-building kit for tests and the benchmark: a tiny USSE assembler over hwdocs' packers,
//! host memory backings, and a builder for render jobs (buffers mapped, DrawState, TexState,
//! PbeState and the control stream packed with hwdocs).

#![allow(dead_code)]

use std::cell::UnsafeCell;
use std::sync::Arc;

use crate::Backing;

use sgx_hwdocs::usse::{
    DstBank, Opcode, Pred, SrcBank, SrcMod, UsseAlu, UsseFlow, UsseLimm, UsseTex,
};

/// A source operand.
#[derive(Clone, Copy)]
pub struct S {
    pub bank: SrcBank,
    pub num: u32,
    pub swz: u32,
    pub m: SrcMod,
}

fn s(bank: SrcBank, num: u32) -> S {
    S {
        bank,
        num,
        swz: sgx_hwdocs::usse::SWIZZLE_IDENTITY as u32,
        m: SrcMod::NONE,
    }
}
pub fn r(n: u32) -> S {
    s(SrcBank::TEMP, n)
}
pub fn pa(n: u32) -> S {
    s(SrcBank::PRIMARY, n)
}
pub fn sa(n: u32) -> S {
    s(SrcBank::SECONDARY, n)
}
pub fn sai(n: u32) -> S {
    s(SrcBank::SECONDARY_INDEXED, n)
}
pub fn o(n: u32) -> S {
    s(SrcBank::OUTPUT, n)
}
pub fn imm(n: u32) -> S {
    s(SrcBank::IMMEDIATE, n)
}

impl S {
    /// Swizzle from a 4-letter string of xyzw.
    pub fn sw(mut self, w: &str) -> S {
        let mut v = 0;
        for (i, c) in w.chars().enumerate() {
            v |= ("xyzw".find(c).unwrap() as u32) << (2 * i);
        }
        self.swz = v;
        self
    }
    pub fn neg(mut self) -> S {
        self.m = SrcMod::NEG;
        self
    }
    pub fn abs(mut self) -> S {
        self.m = SrcMod::ABS;
        self
    }
}

/// A destination.
#[derive(Clone, Copy)]
pub struct D {
    pub bank: DstBank,
    pub num: u32,
    pub mask: u32,
}
pub fn dr(n: u32) -> D {
    D {
        bank: DstBank::TEMP,
        num: n,
        mask: 15,
    }
}
pub fn dout(n: u32) -> D {
    D {
        bank: DstBank::OUTPUT,
        num: n,
        mask: 15,
    }
}
pub fn dp(n: u32) -> D {
    D {
        bank: DstBank::PREDICATE,
        num: n,
        mask: 15,
    }
}
pub fn da() -> D {
    D {
        bank: DstBank::ADDRESS,
        num: 0,
        mask: 15,
    }
}
impl D {
    pub fn m(mut self, mask: u32) -> D {
        self.mask = mask;
        self
    }
}

pub type W = [u32; 2];

pub fn alu_full(op: Opcode, pred: Pred, sat: bool, d: D, a: S, b: S) -> W {
    UsseAlu {
        opcode: op,
        pred,
        sat,
        dst_mask: d.mask,
        dst_bank: d.bank,
        dst_num: d.num,
        src0_swz: a.swz,
        src0_bank: a.bank,
        src0_num: a.num,
        src0_mod: a.m,
        src1_bank: b.bank,
        src1_num: b.num,
        src1_mod: b.m,
        src1_swz: b.swz,
    }
    .pack()
    .unwrap()
}
pub fn alu(op: Opcode, d: D, a: S, b: S) -> W {
    alu_full(op, Pred::ALWAYS, false, d, a, b)
}
pub fn alu1(op: Opcode, d: D, a: S) -> W {
    alu(op, d, a, r(0))
}
pub fn mov(d: D, a: S) -> W {
    alu1(Opcode::MOV, d, a)
}
pub fn emitpix(a: S) -> W {
    alu1(Opcode::EMITPIX, dr(0), a)
}
pub fn tex_full(op: Opcode, d: D, c: S, sampler: u32, grad: u32) -> W {
    UsseTex {
        opcode: op,
        pred: Pred::ALWAYS,
        sat: false,
        dst_mask: d.mask,
        dst_bank: d.bank,
        dst_num: d.num,
        coord_swz: c.swz,
        coord_bank: c.bank,
        coord_num: c.num,
        sampler,
        grad,
    }
    .pack()
    .unwrap()
}
pub fn tex(d: D, c: S, sampler: u32) -> W {
    tex_full(Opcode::TEX, d, c, sampler, 0)
}
pub fn flow(op: Opcode, pred: Pred, target: u32) -> W {
    UsseFlow {
        opcode: op,
        pred,
        target,
    }
    .pack()
    .unwrap()
}
pub fn end() -> W {
    flow(Opcode::END, Pred::ALWAYS, 0)
}
pub fn emitvtx() -> W {
    flow(Opcode::EMITVTX, Pred::ALWAYS, 0)
}
pub fn limm(d: D, v: u32) -> W {
    UsseLimm {
        opcode: Opcode::LIMM,
        pred: Pred::ALWAYS,
        dst_mask: d.mask,
        dst_bank: d.bank,
        dst_num: d.num,
        imm: v,
    }
    .pack()
    .unwrap()
}
pub fn limmf(d: D, v: f32) -> W {
    limm(d, v.to_bits())
}
pub fn words(ins: &[W]) -> Vec<u32> {
    ins.iter().flat_map(|w| w.iter().copied()).collect()
}

pub fn fv(v: [f32; 4]) -> [u32; 4] {
    v.map(f32::to_bits)
}
pub fn ff(v: [u32; 4]) -> [f32; 4] {
    v.map(f32::from_bits)
}

/// Host memory a test maps into the model.
pub use crate::HostMem as Mem;

// The kit's readers and writers run while no job does (the model runs on the test's thread),
// so they are safe here and crate-private.
impl Mem {
    pub(crate) fn new(len: usize) -> Arc<Mem> {
        Mem::filled(len, 0)
    }
    pub(crate) fn filled(len: usize, v: u8) -> Arc<Mem> {
        Arc::new(Mem {
            buf: (0..len).map(|_| UnsafeCell::new(v)).collect(),
        })
    }
    pub(crate) fn bytes(&self) -> Vec<u8> {
        // SAFETY: no job runs concurrently in tests.
        unsafe { self.to_vec() }
    }
    pub(crate) fn write(&self, off: usize, data: &[u8]) {
        for (i, b) in data.iter().enumerate() {
            // SAFETY: no job runs concurrently in tests.
            unsafe { *self.buf[off + i].get() = *b };
        }
    }
    pub(crate) fn write_u32s(&self, off: usize, data: &[u32]) {
        let b: Vec<u8> = data.iter().flat_map(|d| d.to_le_bytes()).collect();
        self.write(off, &b);
    }
    pub(crate) fn read_u32(&self, off: usize) -> u32 {
        let b = self.bytes();
        u32::from_le_bytes([b[off], b[off + 1], b[off + 2], b[off + 3]])
    }
}

use sgx_hwdocs::isp::{IspState, Scissor};
use sgx_hwdocs::limits::{TILE_H_PX, TILE_W_PX};
use sgx_hwdocs::pbe::PbeState;
use sgx_hwdocs::regs as rg;
use sgx_hwdocs::render::{
    AttrType, PolyState, PrimState, ProgramState, RasterState, VertexAttr, Viewport,
    DRAW_STATE_DWORDS, DRAW_STATE_POLY_DW, DRAW_STATE_PRIM_DW,
};
use sgx_hwdocs::ta_stream::{CtrlObjType, CtrlPrim, CtrlState, CtrlTerminate, IndexType, Topology};
use sgx_hwdocs::texture::TexState;
use sgx_hwdocs::tsp::TspState;
use sgx_hwdocs::Format;

use crate::{Gpu, JobDesc, Perm};

/// A model with a bump allocator of mapped buffers (a guard page between buffers).
pub struct Scene {
    pub gpu: Gpu,
    next: u32,
}

impl Scene {
    pub fn new() -> Scene {
        Scene {
            gpu: Gpu::new(),
            // The kit's first buffer address: any page-aligned address above 0 serves.
            next: 0x0010_0000,
        }
    }
    pub fn alloc_with(&mut self, m: Arc<Mem>, perm: Perm) -> u32 {
        let va = self.next;
        let len = m.len_B() as u32;
        self.gpu.map(va, m, perm).unwrap();
        // Each mapping whole pages, with an unmapped page between (hwdocs limits::PAGE_B).
        let page = sgx_hwdocs::limits::PAGE_B as u32;
        self.next = va + len.div_ceil(page) * page + page;
        va
    }
    pub fn alloc(&mut self, len: usize) -> (u32, Arc<Mem>) {
        let m = Mem::new(len);
        (self.alloc_with(m.clone(), Perm::RW), m)
    }
    pub fn put(&mut self, words: &[u32]) -> u32 {
        let (va, m) = self.alloc(words.len().max(1) * 4);
        m.write_u32s(0, words);
        va
    }
    /// Builds and runs a render.
    pub fn render(&mut self, rd: &RenderDesc, draws: &[DrawDesc]) -> crate::JobResult {
        let job = build(self, rd, draws);
        self.gpu.run(&job)
    }
    pub fn put_bytes(&mut self, b: &[u8]) -> u32 {
        let (va, m) = self.alloc(b.len().max(1));
        m.write(0, b);
        va
    }
}

impl Default for Scene {
    fn default() -> Self {
        Scene::new()
    }
}

/// One draw: programs, constants, vertex data, textures, state words, one primitive list.
#[derive(Clone)]
pub struct DrawDesc {
    pub vs: Vec<u32>,
    pub fs: Vec<u32>,
    pub vs_consts: Vec<[u32; 4]>,
    pub fs_consts: Vec<[u32; 4]>,
    /// Vertex attributes: (ty, comps, stride, data); their addresses are filled in.
    pub attrs: Vec<(AttrType, u32, u32, Vec<u8>)>,
    pub textures: Vec<TexState>,
    /// The table entry of the vertex program's texture unit 0 (ProgramState.vs_tex_base).
    pub vs_tex_base: u32,
    pub isp: IspState,
    pub scissor: Scissor,
    pub tsp: TspState,
    pub vp: Viewport,
    pub raster: RasterState,
    /// Provoking vertex and stipples; `stipple_addr` is filled in from `poly_stipple`.
    pub prim: PrimState,
    /// The polygon stipple pattern (PrimState.stipple_addr), rows top first.
    pub poly_stipple: [u32; 32],
    pub poly: PolyState,
    pub topology: Topology,
    pub count: u32,
    pub index: Option<(IndexType, Vec<u8>)>,
}

/// Pass-through vertex program: o0 = pa0, o1 = pa1, o2 = pa2.
pub fn passthrough_vs() -> Vec<u32> {
    words(&[
        mov(dout(0), pa(0)),
        mov(dout(1), pa(1)),
        mov(dout(2), pa(2)),
        emitvtx(),
        end(),
    ])
}

/// Clip-space position of window pixel coordinate (x, y) for a w x h viewport at the origin.
pub fn clip_xy(x: f32, y: f32, w: f32, h: f32, z: f32) -> [f32; 4] {
    [x / (w / 2.0) - 1.0, y / (h / 2.0) - 1.0, z, 1.0]
}

/// The viewport mapping clip space onto a w x h window, y down, depth [0, 1].
pub fn viewport(w: f32, h: f32) -> Viewport {
    Viewport {
        scale_x: w / 2.0,
        scale_y: h / 2.0,
        scale_z: 0.5,
        trans_x: w / 2.0,
        trans_y: h / 2.0,
        trans_z: 0.5,
    }
}

impl DrawDesc {
    /// A draw of `verts` (position, varying 0) as `topology` with the pass-through VS.
    pub fn new(
        topology: Topology,
        verts: &[([f32; 4], [f32; 4])],
        fs: Vec<u32>,
        vp: Viewport,
    ) -> DrawDesc {
        let mut data = Vec::new();
        for (p, v) in verts {
            for f in p.iter().chain(v.iter()) {
                data.extend_from_slice(&f.to_le_bytes());
            }
        }
        let tsp = TspState {
            varying_count: 1,
            ..TspState::default()
        };
        DrawDesc {
            vs: passthrough_vs(),
            fs,
            vs_consts: Vec::new(),
            fs_consts: Vec::new(),
            attrs: vec![
                (AttrType::FLOAT32, 4, 32, data.clone()),
                (AttrType::FLOAT32, 4, 32, data[16..].to_vec()),
            ],
            textures: Vec::new(),
            vs_tex_base: 0,
            isp: IspState::default(),
            scissor: Scissor::default(),
            tsp,
            vp,
            raster: RasterState::default(),
            prim: PrimState::default(),
            poly_stipple: [0; 32],
            poly: PolyState::default(),
            topology,
            count: verts.len() as u32,
            index: None,
        }
    }
}

/// The render-wide registers.
#[derive(Clone)]
pub struct RenderDesc {
    pub w_tl: u32,
    pub h_tl: u32,
    pub pbe: PbeState,
    pub bg: [f32; 4],
    pub bg_depth: f32,
    pub bg_stencil: u32,
    pub tile_ctrl: Option<Vec<u8>>,
    pub pb_size: u32,
    pub zls: Option<(Format, u32, u32)>,
}

impl RenderDesc {
    /// A linear B8G8R8A8 target of w x h pixels at `base` with `stride_B`.
    pub fn linear(base: u32, w: u32, h: u32, stride_B: u32) -> RenderDesc {
        RenderDesc {
            w_tl: w.div_ceil(TILE_W_PX as u32),
            h_tl: h.div_ceil(TILE_H_PX as u32),
            pbe: PbeState {
                base_addr: base,
                stride_B,
                extent_w_tl: w.div_ceil(TILE_W_PX as u32),
                extent_h_tl: h.div_ceil(TILE_H_PX as u32),
                clip_xmax: w - 1,
                clip_ymax: h - 1,
                ..PbeState::default()
            },
            bg: [0.0; 4],
            bg_depth: 1.0,
            bg_stencil: 0,
            tile_ctrl: None,
            pb_size: 1 << 20,
            zls: None,
        }
    }
}

/// Lays out and maps everything a render needs; returns the job.
pub fn build(scene: &mut Scene, rd: &RenderDesc, draws: &[DrawDesc]) -> JobDesc {
    let order: Vec<usize> = (0..draws.len()).collect();
    build_ordered(scene, rd, draws, &order)
}

/// As `build`, but each draw's state block and primitive list are laid out once and the
/// control stream draws `order` (indices into `draws`, repeats allowed): a STATE object and
/// the PRIM for each, so blocks are revisited by address.
pub fn build_ordered(
    scene: &mut Scene,
    rd: &RenderDesc,
    draws: &[DrawDesc],
    order: &[usize],
) -> JobDesc {
    let mut objs = Vec::new();
    for d in draws {
        let vs = scene.put(&d.vs);
        let fs = scene.put(&d.fs);
        let flat = |c: &[[u32; 4]]| {
            c.iter()
                .flat_map(|v| v.iter().copied())
                .collect::<Vec<u32>>()
        };
        let vsc = scene.put(&flat(&d.vs_consts));
        let fsc = scene.put(&flat(&d.fs_consts));
        let mut attr_words = Vec::new();
        for (ty, comps, stride, data) in &d.attrs {
            let a = scene.put_bytes(data);
            let va = VertexAttr {
                addr: a,
                stride_B: *stride,
                ty: *ty,
                comps_m1: comps - 1,
            };
            attr_words.extend_from_slice(&va.pack().unwrap());
        }
        let attrs = scene.put(&attr_words);
        let tex_words: Vec<u32> = d.textures.iter().flat_map(|t| t.pack().unwrap()).collect();
        let texs = scene.put(&tex_words);
        let ps = ProgramState {
            vs_code_addr: vs,
            vs_const_addr: vsc,
            vs_const_count: d.vs_consts.len() as u32,
            vs_temps: sgx_hwdocs::usse::TEMP_REGS as u32,
            attr_count: d.attrs.len() as u32,
            vs_outputs: 3,
            fs_code_addr: fs,
            fs_const_addr: fsc,
            fs_const_count: d.fs_consts.len() as u32,
            fs_temps: sgx_hwdocs::usse::TEMP_REGS as u32,
            tex_count: d.textures.len() as u32,
            vs_tex_base: d.vs_tex_base,
            attr_table_addr: attrs,
            tex_table_addr: texs,
        };
        let mut st = vec![0u32; DRAW_STATE_DWORDS as usize];
        st[0..8].copy_from_slice(&ps.pack().unwrap());
        st[8..12].copy_from_slice(&d.isp.pack().unwrap());
        st[12..14].copy_from_slice(&d.scissor.pack().unwrap());
        st[14..18].copy_from_slice(&d.tsp.pack().unwrap());
        st[18..24].copy_from_slice(&d.vp.pack().unwrap());
        st[24..28].copy_from_slice(&d.raster.pack().unwrap());
        let prim = PrimState {
            stipple_addr: scene.put(&d.poly_stipple),
            ..d.prim
        };
        let at = DRAW_STATE_PRIM_DW as usize;
        st[at..at + PrimState::DWORDS].copy_from_slice(&prim.pack().unwrap());
        let at = DRAW_STATE_POLY_DW as usize;
        st[at..at + 4].copy_from_slice(&d.poly.pack().unwrap());
        let state = scene.put(&st);
        let mut obj = Vec::new();
        obj.extend_from_slice(
            &CtrlState {
                obj_type: CtrlObjType::STATE,
                state_addr: state,
            }
            .pack()
            .unwrap(),
        );
        let (index_type, index_addr) = match &d.index {
            Some((t, data)) => (*t, scene.put_bytes(data)),
            None => (IndexType::NONE, 0),
        };
        let prim = CtrlPrim {
            topology: d.topology,
            index_type,
            obj_type: CtrlObjType::PRIM,
            count: d.count,
            index_addr,
            base_vertex: 0,
        };
        obj.extend_from_slice(&prim.pack().unwrap());
        objs.push(obj);
    }
    let mut stream: Vec<u32> = order.iter().flat_map(|&k| objs[k].clone()).collect();
    stream.extend_from_slice(
        &CtrlTerminate {
            obj_type: CtrlObjType::TERMINATE,
        }
        .pack()
        .unwrap(),
    );
    let cs = scene.put(&stream);
    let (pb, _) = scene.alloc(rd.pb_size.max(4) as usize);
    let screen = rg::TeScreen {
        w_tl: rd.w_tl,
        h_tl: rd.h_tl,
    }
    .pack()
    .unwrap()[0];
    let ta_regs = vec![
        (rg::VDM_CTRL_STREAM_BASE, cs),
        (rg::TE_SCREEN, screen),
        (rg::DPM_PB_BASE, pb),
        (rg::DPM_PB_SIZE, rd.pb_size),
        (rg::VDM_START, 1),
    ];
    let ctrl = match &rd.tile_ctrl {
        Some(t) => scene.put_bytes(t),
        None => 0,
    };
    let mut td_regs = vec![
        (rg::TE_SCREEN, screen),
        (rg::DPM_PB_BASE, pb),
        (rg::DPM_PB_SIZE, rd.pb_size),
    ];
    for (i, w) in rd.pbe.pack().unwrap().iter().enumerate() {
        td_regs.push((rg::PBE_STATE + 4 * i as u32, *w));
    }
    for (i, c) in rd.bg.iter().enumerate() {
        td_regs.push((rg::BGOBJ_COLOUR + 4 * i as u32, c.to_bits()));
    }
    td_regs.push((rg::ISP_BGOBJDEPTH, rd.bg_depth.to_bits()));
    td_regs.push((rg::BGOBJ_STENCIL, rd.bg_stencil));
    td_regs.push((rg::TILE_CTRL_BASE, ctrl));
    if let Some((f, base, stride)) = rd.zls {
        td_regs.push((rg::ISP_ZLSCTL, 1 | (f.raw() << 4)));
        td_regs.push((rg::ZLS_ZBASE, base));
        td_regs.push((rg::ZLS_STRIDE, stride));
    }
    td_regs.push((rg::ISP_START_RENDER, 1));
    JobDesc::Render { ta_regs, td_regs }
}

/// A deterministic generator (xorshift32) for test contents.
#[cfg(test)]
pub(crate) struct Rng(pub u32);

#[cfg(test)]
impl Rng {
    pub fn next(&mut self) -> u32 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        self.0 = x;
        x
    }
    pub fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next() as u8).collect()
    }
    /// Uniform in [lo, hi).
    pub fn f(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * (self.next() >> 8) as f32 / (1u32 << 24) as f32
    }
}
