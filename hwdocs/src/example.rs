//! The field guide's worked example: every word of a job that draws one textured quad into a
//! 16x16 target, packed with the generated packers. The device model's tests run this very
//! job, so the guide cannot drift from what the model executes.

use crate::{isp, pbe, regs, render, ta_stream, texture, tsp, usse, Format, PackError};

/// One buffer of the example: where it goes in GPU memory and its bytes.
#[derive(Debug, Clone)]
pub struct ExampleBuffer {
    /// What it holds.
    pub name: &'static str,
    /// GPU virtual address (page aligned).
    pub gpu_va: u32,
    /// Contents; the buffer is at least this long (and `size_B`).
    pub bytes: Vec<u8>,
    /// Size to map, in bytes.
    pub size_B: u32,
    /// The GPU writes it.
    pub gpu_writes: bool,
}

/// A whole render job: buffers, then the TA and 3D register lists.
#[derive(Debug, Clone)]
pub struct ExampleJob {
    /// Buffers to map before the job runs.
    pub buffers: Vec<ExampleBuffer>,
    /// TA phase register writes (offset, value), ending with VDM_START.
    pub ta_regs: Vec<(u32, u32)>,
    /// 3D phase register writes, ending with ISP_START_RENDER.
    pub td_regs: Vec<(u32, u32)>,
    /// Address of the 16x16 target.
    pub target_va: u32,
    /// Row stride of the target in bytes.
    pub target_stride_B: u32,
}

/// GPU addresses of the example's buffers.
pub const STREAM_VA: u32 = 0x0010_0000;
/// DrawState block, attribute table (+0x100) and texture table (+0x200).
pub const STATE_VA: u32 = 0x0011_0000;
/// Vertex program; the pixel program is at +0x1000.
pub const CODE_VA: u32 = 0x0012_0000;
/// Interleaved vertices: x y z w s t (f32).
pub const VERTEX_VA: u32 = 0x0013_0000;
/// The 2x2 texture.
pub const TEXTURE_VA: u32 = 0x0014_0000;
/// The 16x16 target.
pub const TARGET_VA: u32 = 0x0015_0000;
/// Parameter memory.
pub const PB_VA: u32 = 0x0016_0000;
/// Parameter memory size.
pub const PB_SIZE_B: u32 = 0x1_0000;

/// The 2x2 texture's texels as B, G, R, A bytes, indexed [y][x].
pub const TEXELS_BGRA: [[[u8; 4]; 2]; 2] = [
    [[0, 0, 255, 255], [0, 255, 0, 255]], // (0,0) red, (1,0) green
    [[255, 0, 0, 255], [255, 255, 255, 255]], // (0,1) blue, (1,1) white
];

fn dwords_to_bytes(dw: &[u32]) -> Vec<u8> {
    dw.iter().flat_map(|d| d.to_le_bytes()).collect()
}

fn alu(
    op: usse::Opcode,
    dst_bank: usse::DstBank,
    dst: u32,
    src_bank: usse::SrcBank,
    src: u32,
) -> usse::UsseAlu {
    usse::UsseAlu {
        opcode: op,
        dst_bank,
        dst_num: dst,
        src0_bank: src_bank,
        src0_num: src,
        ..Default::default()
    }
}

/// The vertex program: o0 = pa0 (position), o1 = pa1 (texcoord), EMITVTX, END.
pub fn vertex_program() -> Result<Vec<u32>, PackError> {
    use usse::{DstBank, Opcode, SrcBank};
    let mut w = Vec::new();
    w.extend(alu(Opcode::MOV, DstBank::OUTPUT, 0, SrcBank::PRIMARY, 0).pack()?);
    w.extend(alu(Opcode::MOV, DstBank::OUTPUT, 1, SrcBank::PRIMARY, 1).pack()?);
    for op in [Opcode::EMITVTX, Opcode::END] {
        w.extend(
            usse::UsseFlow {
                opcode: op,
                ..Default::default()
            }
            .pack()?,
        );
    }
    Ok(w)
}

/// The pixel program: r0 = TEX(sampler 0, pa0), EMITPIX r0, END.
pub fn pixel_program() -> Result<Vec<u32>, PackError> {
    use usse::{DstBank, Opcode, SrcBank};
    let mut w = Vec::new();
    w.extend(
        usse::UsseTex {
            opcode: Opcode::TEX,
            dst_bank: DstBank::TEMP,
            dst_num: 0,
            coord_bank: SrcBank::PRIMARY,
            coord_num: 0,
            sampler: 0,
            ..Default::default()
        }
        .pack()?,
    );
    w.extend(alu(Opcode::EMITPIX, DstBank::TEMP, 0, SrcBank::TEMP, 0).pack()?);
    w.extend(
        usse::UsseFlow {
            opcode: Opcode::END,
            ..Default::default()
        }
        .pack()?,
    );
    Ok(w)
}

/// Builds the whole job.
pub fn textured_quad_job() -> Result<ExampleJob, PackError> {
    // Control stream: STATE, PRIM (a 4-vertex strip), TERMINATE.
    let mut stream = Vec::new();
    stream.extend(
        ta_stream::CtrlState {
            state_addr: STATE_VA,
            ..Default::default()
        }
        .pack()?,
    );
    stream.extend(
        ta_stream::CtrlPrim {
            topology: ta_stream::Topology::TRIANGLE_STRIP,
            index_type: ta_stream::IndexType::NONE,
            count: 4,
            ..Default::default()
        }
        .pack()?,
    );
    stream.extend(ta_stream::CtrlTerminate::default().pack()?);

    // DrawState block: ProgramState, IspState, Scissor, TspState, Viewport, RasterState.
    let mut state = vec![0u32; render::DRAW_STATE_DWORDS as usize];
    let put = |state: &mut Vec<u32>, at: u64, w: &[u32]| {
        state[at as usize..at as usize + w.len()].copy_from_slice(w);
    };
    let program = render::ProgramState {
        vs_code_addr: CODE_VA,
        vs_temps: 1,
        attr_count: 2,
        vs_outputs: 2,
        fs_code_addr: CODE_VA + 0x1000,
        fs_temps: 1,
        tex_count: 1,
        attr_table_addr: STATE_VA + 0x100,
        tex_table_addr: STATE_VA + 0x200,
        ..Default::default()
    };
    put(&mut state, render::DRAW_STATE_PROGRAM_DW, &program.pack()?);
    put(
        &mut state,
        render::DRAW_STATE_ISP_DW,
        &isp::IspState::default().pack()?,
    );
    put(
        &mut state,
        render::DRAW_STATE_SCISSOR_DW,
        &isp::Scissor::default().pack()?,
    );
    let tspw = tsp::TspState {
        varying_count: 1,
        ..Default::default()
    };
    put(&mut state, render::DRAW_STATE_TSP_DW, &tspw.pack()?);
    // NDC -1..1 maps to window 0..16; y grows downwards in memory and in NDC here.
    let vp = render::Viewport {
        scale_x: 8.0,
        scale_y: 8.0,
        trans_x: 8.0,
        trans_y: 8.0,
        ..Default::default()
    };
    put(&mut state, render::DRAW_STATE_VIEWPORT_DW, &vp.pack()?);
    put(
        &mut state,
        render::DRAW_STATE_RASTER_DW,
        &render::RasterState::default().pack()?,
    );
    let mut state_bytes = dwords_to_bytes(&state);
    state_bytes.resize(0x100, 0);
    let pos = render::VertexAttr {
        addr: VERTEX_VA,
        stride_B: 24,
        ty: render::AttrType::FLOAT32,
        comps_m1: 3,
    };
    let uv = render::VertexAttr {
        addr: VERTEX_VA + 16,
        stride_B: 24,
        ty: render::AttrType::FLOAT32,
        comps_m1: 1,
    };
    state_bytes.extend(dwords_to_bytes(&pos.pack()?));
    state_bytes.extend(dwords_to_bytes(&uv.pack()?));
    state_bytes.resize(0x200, 0);
    let tex = texture::TexState {
        base_addr: TEXTURE_VA,
        format: Format::B8G8R8A8_UNORM,
        layout: pbe::MemLayout::TWIDDLED,
        levels: 1,
        width_m1: 1,
        height_m1: 1,
        wrap_s: texture::AddrMode::CLAMP_TO_EDGE,
        wrap_t: texture::AddrMode::CLAMP_TO_EDGE,
        ..Default::default()
    };
    state_bytes.extend(dwords_to_bytes(&tex.pack()?));

    // Vertices of a strip covering the target: (-1,-1) (1,-1) (-1,1) (1,1), texcoords 0..1.
    let verts: [[f32; 6]; 4] = [
        [-1.0, -1.0, 0.0, 1.0, 0.0, 0.0],
        [1.0, -1.0, 0.0, 1.0, 1.0, 0.0],
        [-1.0, 1.0, 0.0, 1.0, 0.0, 1.0],
        [1.0, 1.0, 0.0, 1.0, 1.0, 1.0],
    ];
    let vbytes: Vec<u8> = verts
        .iter()
        .flatten()
        .flat_map(|f| f.to_le_bytes())
        .collect();

    // Texture, twiddled: address bit 0 is y, bit 1 is x, so texel order (0,0) (0,1) (1,0) (1,1).
    let mut tbytes = Vec::new();
    for (x, y) in [(0, 0), (0, 1), (1, 0), (1, 1)] {
        tbytes.extend_from_slice(&TEXELS_BGRA[y][x]);
    }

    let mut code = dwords_to_bytes(&vertex_program()?);
    code.resize(0x1000, 0);
    code.extend(dwords_to_bytes(&pixel_program()?));

    let target_stride_B = 64;
    let pbe_words = pbe::PbeState {
        base_addr: TARGET_VA,
        format: Format::B8G8R8A8_UNORM,
        layout: pbe::MemLayout::LINEAR,
        stride_B: target_stride_B,
        extent_w_tl: 1,
        extent_h_tl: 1,
        clip_xmax: 15,
        clip_ymax: 15,
        ..Default::default()
    }
    .pack()?;

    let screen = regs::TeScreen { w_tl: 1, h_tl: 1 }.pack()?[0];
    let ta_regs = vec![
        (
            regs::VDM_CTRL_STREAM_BASE,
            regs::VdmCtrlStreamBase { addr: STREAM_VA }.pack()?[0],
        ),
        (regs::TE_SCREEN, screen),
        (
            regs::DPM_PB_BASE,
            regs::DpmPbBase { addr: PB_VA }.pack()?[0],
        ),
        (regs::DPM_PB_SIZE, PB_SIZE_B),
        (regs::VDM_START, regs::VdmStart { start: true }.pack()?[0]),
    ];
    let mut td_regs = vec![
        (regs::TE_SCREEN, screen),
        (
            regs::DPM_PB_BASE,
            regs::DpmPbBase { addr: PB_VA }.pack()?[0],
        ),
        (regs::DPM_PB_SIZE, PB_SIZE_B),
    ];
    for (i, w) in pbe_words.iter().enumerate() {
        td_regs.push((regs::PBE_STATE + regs::PBE_STATE_STRIDE * i as u32, *w));
    }
    for (i, c) in [0.0f32, 0.0, 0.0, 1.0].iter().enumerate() {
        td_regs.push((
            regs::BGOBJ_COLOUR + regs::BGOBJ_COLOUR_STRIDE * i as u32,
            c.to_bits(),
        ));
    }
    td_regs.push((
        regs::ISP_BGOBJDEPTH,
        regs::IspBgobjdepth { depth: 1.0 }.pack()?[0],
    ));
    td_regs.push((regs::TILE_CTRL_BASE, 0));
    td_regs.push((
        regs::ISP_START_RENDER,
        regs::IspStartRender { start: true }.pack()?[0],
    ));

    let page = |n: u32| n.max(1).div_ceil(4096) * 4096;
    let buffers = vec![
        ExampleBuffer {
            name: "control stream",
            gpu_va: STREAM_VA,
            size_B: page(stream.len() as u32 * 4),
            bytes: dwords_to_bytes(&stream),
            gpu_writes: false,
        },
        ExampleBuffer {
            name: "draw state + tables",
            gpu_va: STATE_VA,
            size_B: page(state_bytes.len() as u32),
            bytes: state_bytes,
            gpu_writes: false,
        },
        ExampleBuffer {
            name: "programs",
            gpu_va: CODE_VA,
            size_B: page(code.len() as u32),
            bytes: code,
            gpu_writes: false,
        },
        ExampleBuffer {
            name: "vertices",
            gpu_va: VERTEX_VA,
            size_B: page(vbytes.len() as u32),
            bytes: vbytes,
            gpu_writes: false,
        },
        ExampleBuffer {
            name: "texture",
            gpu_va: TEXTURE_VA,
            size_B: page(tbytes.len() as u32),
            bytes: tbytes,
            gpu_writes: false,
        },
        ExampleBuffer {
            name: "target",
            gpu_va: TARGET_VA,
            size_B: 4096,
            bytes: vec![0; 16 * 64],
            gpu_writes: true,
        },
        ExampleBuffer {
            name: "parameter memory",
            gpu_va: PB_VA,
            size_B: PB_SIZE_B,
            bytes: Vec::new(),
            gpu_writes: true,
        },
    ];
    Ok(ExampleJob {
        buffers,
        ta_regs,
        td_regs,
        target_va: TARGET_VA,
        target_stride_B,
    })
}

/// The expected target after the job: each 8x8 quadrant holds the nearest texel.
pub fn expected_target() -> Vec<u8> {
    let mut v = vec![0u8; 16 * 64];
    for y in 0..16 {
        for x in 0..16 {
            let t = TEXELS_BGRA[y / 8][x / 8];
            v[y * 64 + x * 4..y * 64 + x * 4 + 4].copy_from_slice(&t);
        }
    }
    v
}

/// A listing of every word of the job, as the field guide prints it.
pub fn listing() -> Result<String, PackError> {
    use std::fmt::Write;
    let job = textured_quad_job()?;
    let mut s = String::new();
    let name_of = |off: u32| crate::register_name(off).unwrap_or_else(|| format!("{off:#x}"));
    for (title, list) in [
        ("TA phase registers", &job.ta_regs),
        ("3D phase registers", &job.td_regs),
    ] {
        writeln!(s, "{title}:").unwrap();
        for (o, v) in list {
            writeln!(s, "  {o:#05x} {:<22} = {v:#010x}", name_of(*o)).unwrap();
        }
    }
    for b in &job.buffers {
        writeln!(
            s,
            "{} at {:#010x} ({} bytes mapped):",
            b.name, b.gpu_va, b.size_B
        )
        .unwrap();
        let n = b.bytes.len().min(0x240);
        let mut last_zero_run = false;
        for (i, c) in b.bytes[..n].chunks(4).enumerate() {
            let mut d = [0u8; 4];
            d[..c.len()].copy_from_slice(c);
            let v = u32::from_le_bytes(d);
            if v == 0 && i > 0 && b.name != "texture" {
                if !last_zero_run {
                    writeln!(s, "  ...").unwrap();
                }
                last_zero_run = true;
                continue;
            }
            last_zero_run = false;
            writeln!(s, "  +{:#05x}: {v:#010x}", i * 4).unwrap();
        }
    }
    Ok(s)
}
