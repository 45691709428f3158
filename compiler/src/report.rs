//! The CLI's views: a compile report and a disassembly.

use std::fmt::Write as _;
use std::time::Instant;

use crate::disasm;
use crate::error::Result;
use crate::link::link;
use crate::shader::{compile, CompiledShader};
use crate::tgsi::ShaderStage;

fn section(out: &mut String, s: &CompiledShader, micros: u128) -> Result<()> {
    let stage = match s.stage {
        ShaderStage::Vertex => "vertex",
        ShaderStage::Fragment => "fragment",
    };
    let _ = writeln!(out, "; {stage} program");
    out.push_str(&disasm::disasm_words(&s.code)?);
    let per = if s.tgsi_instructions == 0 {
        0.0
    } else {
        f64::from(s.instructions) / f64::from(s.tgsi_instructions)
    };
    let _ = writeln!(
        out,
        "; instructions: {} ({} TGSI, {per:.2} per TGSI instruction)\n; temporaries: {}\n; constants: {} vec4{}\n; samplers: {}\n; discards: {}\n; compile time: {} us",
        s.instructions,
        s.tgsi_instructions,
        s.temps,
        s.const_regs,
        if s.const_regs == 0 { String::new() } else { format!(" (sa0..sa{})", s.const_regs - 1) },
        s.samplers
            .iter()
            .map(|u| format!("t{} {}", u.unit, u.target.name()))
            .collect::<Vec<_>>()
            .join(", "),
        s.discards,
        micros
    );
    Ok(())
}

/// Compiles one shader, or links a vertex and a fragment shader, and returns the
/// disassembly with statistics (instructions, temporaries, constants, compile time).
pub fn compile_report(vs_or_single: &str, fs: Option<&str>) -> Result<String> {
    let mut out = String::new();
    let t0 = Instant::now();
    match fs {
        None => {
            let s = compile(vs_or_single)?;
            section(&mut out, &s, t0.elapsed().as_micros())?;
        }
        Some(fs) => {
            let p = link(vs_or_single, fs)?;
            let us = t0.elapsed().as_micros();
            let _ = writeln!(out, "; linked: compile time {us} us for both");
            for v in &p.varyings {
                let _ = writeln!(
                    out,
                    "; varying {} : o{} -> pa{} ({})",
                    v.semantic,
                    v.vs_output,
                    v.fs_input,
                    v.interp.name()
                );
            }
            for u in &p.unmatched_inputs {
                let _ = writeln!(out, "; fragment input {u} has no vertex output: reads zero");
            }
            section(&mut out, &p.vs, us)?;
            section(&mut out, &p.fs, us)?;
        }
    }
    Ok(out)
}

/// Disassembles raw code words (two per instruction).
pub fn disasm_words(words: &[u32]) -> Result<String> {
    disasm::disasm_words(words)
}
