//! The USSE model ISA interpreter.
//!
//! A program is decoded once ([`Program::decode`]) into a compact instruction list, validated
//! against hwdocs' `usse` words and limits; [`run_vertex`] and [`run_quad`] execute it exactly
//! per the `semantics` strings of `hwdocs/defs/usse.json`.

mod decode;
mod direct;
mod exec;
#[cfg(test)]
mod tests;

pub(crate) use decode::program_extent;
pub use decode::Program;
pub(crate) use direct::{TexEmit, VaryEmit};
pub(crate) use exec::vertex::{batches_vertices, OutBank};
pub(crate) use exec::Machine;

use crate::{Fault, Unit};

/// Which data master a program runs on; decides which stage-only opcodes are legal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Stage {
    /// Vertex program (TA phase): EMITVTX legal; KILL, EMITPIX illegal.
    Vertex,
    /// Pixel program (3D phase): KILL, EMITPIX legal; EMITVTX illegal.
    Pixel,
}

/// How a texture sample chooses its level of detail.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Lod {
    /// From the coordinate derivatives (per unit of the coordinate), plus the texture's bias.
    Implicit {
        /// d(coord)/dx.
        ddx: [f32; 4],
        /// d(coord)/dy.
        ddy: [f32; 4],
    },
    /// As `Implicit`, with `bias` added.
    Bias {
        /// d(coord)/dx.
        ddx: [f32; 4],
        /// d(coord)/dy.
        ddy: [f32; 4],
        /// Added to the computed level of detail.
        bias: f32,
    },
    /// An explicit level of detail (the texture's bias is still added).
    Explicit(f32),
}

/// The texture units a program samples through.
pub trait Textures {
    /// Samples unit `unit` at `coord` (xy for 2D, xyz for cube); returns filtered, swizzled RGBA.
    fn sample(&mut self, unit: u32, coord: [f32; 4], lod: Lod) -> Result<[f32; 4], Fault>;

    /// Whether samples of unit `unit` depend on their [`Lod`]; when false the interpreter may
    /// pass any LOD to `sample_quad` (the default, true, always computes it).
    fn needs_lod(&self, unit: u32) -> bool {
        let _ = unit;
        true
    }

    /// Samples unit `unit` for the pixels `i` of a quad with `ex[i]` set, in pixel order, into
    /// `out[i]` (others untouched); the first fault in pixel order is returned. Must equal
    /// `sample` per pixel, which the default does; implementations override it to decode
    /// the unit once per quad.
    fn sample_quad(
        &mut self,
        unit: u32,
        coord: &[[f32; 4]; 4],
        lod: &[Lod; 4],
        ex: [bool; 4],
        out: &mut [[f32; 4]; 4],
    ) -> Result<(), Fault> {
        for i in 0..4 {
            if ex[i] {
                out[i] = self.sample(unit, coord[i], lod[i])?;
            }
        }
        Ok(())
    }
}

/// No texture units: every sample faults (unit TSP, address 0).
#[derive(Clone, Copy, Debug, Default)]
pub struct NoTextures;

impl Textures for NoTextures {
    fn sample(&mut self, _unit: u32, _coord: [f32; 4], _lod: Lod) -> Result<[f32; 4], Fault> {
        Err(Fault {
            unit: Unit::Tsp,
            addr: 0,
            write: false,
        })
    }
}

/// What a vertex program produced.
#[derive(Clone, Debug, PartialEq)]
pub struct VertexOut {
    /// Output bank o0..o15 at EMITVTX (o0 = clip-space position), raw bits.
    pub out: [[u32; 4]; 16],
    /// Instructions executed.
    pub instructions: u64,
}

/// What a pixel program produced for a 2x2 quad.
#[derive(Clone, Debug, PartialEq)]
pub struct QuadOut {
    /// Colour of each pixel (last EMITPIX; (0,0,0,0) without one).
    pub colour: [[f32; 4]; 4],
    /// Pixels discarded by KILL (always false for helper pixels).
    pub killed: [bool; 4],
    /// Depth of each pixel from its last EMITDEPTH, clamped to [0, 1]; None without one.
    pub depth: [Option<f32>; 4],
    /// Instructions executed, summed over the four instances.
    pub instructions: u64,
}

/// Why a program could not be decoded or run.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum UsseError {
    /// An illegal or out-of-range instruction (at decode or at run time).
    #[error("illegal USSE instruction at {pc}: {reason}")]
    Illegal {
        /// Instruction index.
        pc: u32,
        /// What is wrong with it.
        reason: String,
    },
    /// A memory fault while the program ran (a texture fetch).
    #[error("USSE memory fault: {0:?}")]
    Fault(Fault),
    /// The instance executed more than MAX_EXECUTED_PER_INSTANCE instructions.
    #[error("USSE watchdog at {pc}")]
    Watchdog {
        /// Instruction index when the watchdog fired.
        pc: u32,
    },
}

/// Runs a vertex program: `pa` = attributes, `sa` = constants (vec4 as raw u32 bits).
/// Returns the output bank at EMITVTX.
pub fn run_vertex(
    p: &Program,
    pa: &[[u32; 4]],
    sa: &[[u32; 4]],
    tex: &mut dyn Textures,
) -> Result<VertexOut, UsseError> {
    let mut m = Machine::new();
    m.run_vertex(p, pa, sa, tex)
}

/// Runs a pixel program on a 2x2 quad (pixel order (0,0) (1,0) (0,1) (1,1)); `live` marks
/// covered pixels (helper pixels run for derivatives; their `killed` is reported false).
pub fn run_quad(
    p: &Program,
    pa: &[[[u32; 4]; 16]; 4],
    live: [bool; 4],
    sa: &[[u32; 4]],
    tex: &mut dyn Textures,
) -> Result<QuadOut, UsseError> {
    let mut m = Machine::new();
    let mut out = QuadOut {
        colour: [[0.0; 4]; 4],
        killed: [false; 4],
        depth: [None; 4],
        instructions: 0,
    };
    m.run_quad(p, pa, live, sa, tex, &mut out)?;
    Ok(out)
}
