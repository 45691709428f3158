//! What a job's phases share, below them all: why a phase stopped ([`JobErr`]), the decoded
//! DrawState block, program fetch and the per-job program cache, constant loads. The phases
//! (`ta`, `raster`, `pbe`, `zls`, `tsp`, `regs`, `twod`) import these from here and not from
//! one another, so the module graph reads top-down: `render` -> `ta`, `raster` -> units -> `job`.

use std::collections::HashMap;
use std::sync::Arc;

use sgx_hwdocs::isp::{IspState, Scissor};
use sgx_hwdocs::render::{
    PolyState, PrimState, ProgramState, RasterState, Viewport, DRAW_STATE_DWORDS,
    DRAW_STATE_ISP_DW, DRAW_STATE_POLY_DW, DRAW_STATE_PRIM_DW, DRAW_STATE_PROGRAM_DW,
    DRAW_STATE_RASTER_DW, DRAW_STATE_SCISSOR_DW, DRAW_STATE_TSP_DW, DRAW_STATE_VIEWPORT_DW,
};
use sgx_hwdocs::tsp::{Interp, TspState};
use sgx_hwdocs::usse::{Opcode, INSTR_BYTES};

use crate::mmu::Mmu;
use crate::usse::{Program, Stage, UsseError};
use crate::{Fault, JobStatus, Unit};

/// Varyings a primitive record can carry (hwdocs MAX_VARYINGS): the TA writes records, the
/// 3D phase reads them.
pub(crate) const MAX_VAR: usize = sgx_hwdocs::limits::MAX_VARYINGS as usize;

/// Why a job phase stopped.
#[derive(Debug)]
pub(crate) enum JobErr {
    Fault(Fault),
    Oom,
    Illegal { unit: Unit, pc: u32, reason: String },
    Bad { unit: Unit, reason: String },
}

impl JobErr {
    pub(crate) fn bad(unit: Unit, reason: impl Into<String>) -> JobErr {
        JobErr::Bad {
            unit,
            reason: reason.into(),
        }
    }

    pub(crate) fn usse(e: UsseError) -> JobErr {
        match e {
            UsseError::Fault(f) => JobErr::Fault(f),
            UsseError::Illegal { pc, reason } => JobErr::Illegal {
                unit: Unit::UssePds,
                pc,
                reason,
            },
            UsseError::Watchdog { pc } => JobErr::Illegal {
                unit: Unit::UssePds,
                pc,
                reason: "watchdog: MAX_EXECUTED_PER_INSTANCE instructions executed".into(),
            },
        }
    }

    pub(crate) fn status(self) -> JobStatus {
        match self {
            JobErr::Fault(f) => JobStatus::Fault(f),
            JobErr::Oom => JobStatus::OutOfMemory,
            JobErr::Illegal { unit, pc, reason } => {
                JobStatus::IllegalInstruction { unit, pc, reason }
            }
            JobErr::Bad { unit, reason } => JobStatus::BadState { unit, reason },
        }
    }
}

impl From<Fault> for JobErr {
    fn from(f: Fault) -> JobErr {
        JobErr::Fault(f)
    }
}

/// A decoded DrawState block.
#[derive(Clone, Debug)]
pub(crate) struct DrawState {
    pub prog: ProgramState,
    pub isp: IspState,
    pub scissor: Scissor,
    pub tsp: TspState,
    pub vp: Viewport,
    pub raster: RasterState,
    pub prim: PrimState,
    pub poly: PolyState,
}

impl DrawState {
    /// The interpolation mode of each varying.
    pub(crate) fn interp(&self) -> [Interp; MAX_VAR] {
        let t = &self.tsp;
        [
            t.v0_interp,
            t.v1_interp,
            t.v2_interp,
            t.v3_interp,
            t.v4_interp,
            t.v5_interp,
            t.v6_interp,
            t.v7_interp,
            t.v8_interp,
            t.v9_interp,
        ]
    }
}

/// Refuses a program whose texture instruction reads a texture past the draw's `tex_count`:
/// the instruction's sampler plus `tex_base` is its texture table entry (a vertex program's
/// samplers start at the table's `vs_tex_base`, a pixel program's at 0).
pub(crate) fn check_samplers(
    prog: &Program,
    stage: Stage,
    tex_base: u32,
    tex_count: usize,
) -> Result<(), JobErr> {
    for (pc, i) in prog.ins.iter().enumerate() {
        let entry = u32::from(i.sampler) + tex_base;
        if matches!(
            i.op,
            Opcode::TEX | Opcode::TEXB | Opcode::TEXL | Opcode::TEXD
        ) && entry as usize >= tex_count
        {
            let s = i.sampler;
            return Err(JobErr::Illegal {
                unit: Unit::UssePds,
                pc: pc as u32,
                reason: match stage {
                    Stage::Pixel => format!("sampler {s} past the draw's {tex_count} textures"),
                    Stage::Vertex => format!(
                        "vertex sampler {s} (table entry {entry}) past the draw's {tex_count} textures"
                    ),
                },
            });
        }
    }
    Ok(())
}

/// Reads and decodes the DrawState block at `addr`; reserved bits are BadState of `unit`.
pub(crate) fn load_draw_state(mmu: &Mmu, unit: Unit, addr: u32) -> Result<DrawState, JobErr> {
    let mut dw = [0u32; DRAW_STATE_DWORDS as usize];
    mmu.read_dwords(unit, addr, &mut dw)?;
    let at = |o: u64| &dw[o as usize..];
    let bad =
        |e: sgx_hwdocs::DecodeError| JobErr::bad(unit, format!("DrawState at {addr:#x}: {e}"));
    Ok(DrawState {
        prog: ProgramState::unpack(at(DRAW_STATE_PROGRAM_DW)).map_err(bad)?,
        isp: IspState::unpack(at(DRAW_STATE_ISP_DW)).map_err(bad)?,
        scissor: Scissor::unpack(at(DRAW_STATE_SCISSOR_DW)).map_err(bad)?,
        tsp: TspState::unpack(at(DRAW_STATE_TSP_DW)).map_err(bad)?,
        vp: Viewport::unpack(at(DRAW_STATE_VIEWPORT_DW)).map_err(bad)?,
        raster: RasterState::unpack(at(DRAW_STATE_RASTER_DW)).map_err(bad)?,
        prim: PrimState::unpack(at(DRAW_STATE_PRIM_DW)).map_err(bad)?,
        poly: PolyState::unpack(at(DRAW_STATE_POLY_DW)).map_err(bad)?,
    })
}

/// Fetches and decodes the program at `addr`: as many instructions as reach its final END.
pub(crate) fn fetch_program(mmu: &Mmu, addr: u32, stage: Stage) -> Result<Program, JobErr> {
    let mut words: Vec<u32> = Vec::new();
    let mut fault = None;
    let n = crate::usse::program_extent(|k| {
        let mut w = [0u32; 2];
        match mmu.read_dwords(
            Unit::UssePds,
            addr.wrapping_add((k as u64 * INSTR_BYTES) as u32),
            &mut w,
        ) {
            Ok(()) => {
                words.extend_from_slice(&w);
                Some(w)
            }
            Err(f) => {
                fault = Some(f);
                None
            }
        }
    });
    if let Some(f) = fault {
        return Err(JobErr::Fault(f));
    }
    let n = n.ok_or_else(|| JobErr::Illegal {
        unit: Unit::UssePds,
        pc: words.len() as u32 / 2,
        reason: "no final END within MAX_INSTRUCTIONS".into(),
    })?;
    Program::decode(&words[..2 * n], stage).map_err(JobErr::usse)
}

/// Reads `count` vec4 constants.
pub(crate) fn load_consts(
    mmu: &Mmu,
    unit: Unit,
    addr: u32,
    count: u32,
) -> Result<Vec<[u32; 4]>, JobErr> {
    let mut flat = vec![0u32; 4 * count as usize];
    mmu.read_dwords(unit, addr, &mut flat)?;
    Ok(flat.chunks(4).map(|c| [c[0], c[1], c[2], c[3]]).collect())
}

/// Programs decoded during one job, by address and stage.
#[derive(Clone, Default)]
pub(crate) struct ProgramCache {
    map: HashMap<(u32, Stage), Arc<Program>>,
}

impl ProgramCache {
    pub(crate) fn get(
        &mut self,
        mmu: &Mmu,
        addr: u32,
        stage: Stage,
    ) -> Result<Arc<Program>, JobErr> {
        if let Some(p) = self.map.get(&(addr, stage)) {
            return Ok(p.clone());
        }
        let p = Arc::new(fetch_program(mmu, addr, stage)?);
        self.map.insert((addr, stage), p.clone());
        Ok(p)
    }
}
