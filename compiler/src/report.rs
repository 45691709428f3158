//! The CLI's views: a compile report and a disassembly.

use std::fmt::Write as _;
use std::time::Instant;

use crate::disasm;
use crate::error::Result;
use crate::io::{InputLoc, OutputLoc};
use crate::link::link;
use crate::shader::{compile, CompiledShader};
use crate::tgsi::ShaderStage;

/// Where the constants live: the secondary bank, and constant memory past it (LDC).
fn const_span(regs: u32) -> String {
    let bank = sgx_hwdocs::usse::SECONDARY_REGS as u32;
    match regs {
        0 => String::new(),
        n if n <= bank => format!(" (sa0..sa{})", n - 1),
        n => format!(" (sa0..sa{}, then LDC from memory to {})", bank - 1, n - 1),
    }
}

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
        const_span(s.const_regs),
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

/// `.xy`, `.zw`: the lanes `first..first + n` of a register.
fn lane_suffix((first, n): (u8, u8)) -> String {
    if (first, n) == (0, 4) {
        return String::new();
    }
    let l: String = "xyzw"
        .chars()
        .skip(usize::from(first))
        .take(usize::from(n))
        .collect();
    format!(".{l}")
}

/// The input and output registers of one program, packed lanes included.
fn io_layout(out: &mut String, s: &CompiledShader) {
    for i in &s.inputs {
        let sem = i.semantic.map_or(String::new(), |s| format!(" {s}"));
        let at = match i.location {
            InputLoc::Primary(n) => format!("pa{n}{}", lane_suffix(i.lanes)),
            InputLoc::Zero => "zero".into(),
        };
        let _ = writeln!(out, "; input {}[{}]{sem} : {at}", i.file.name(), i.index);
    }
    for o in &s.outputs {
        let sem = o.semantic.map_or(String::new(), |s| format!(" {s}"));
        let at = match o.location {
            OutputLoc::Output(n) => format!("o{n}{}", lane_suffix(o.lanes)),
            OutputLoc::Color => "colour".into(),
            OutputLoc::Depth => "depth".into(),
            OutputLoc::Discard => "dropped".into(),
        };
        let _ = writeln!(out, "; output OUT[{}]{sem} : {at}", o.index);
    }
    let _ = writeln!(out, "; varying slots: {}", s.varying_count);
}

/// Compiles one shader, or links a vertex and a fragment shader, and returns the
/// disassembly with statistics (instructions, temporaries, constants, compile time);
/// `verbose` adds where every input and output lives (packed varyings' lanes included).
pub fn compile_report(vs_or_single: &str, fs: Option<&str>, verbose: bool) -> Result<String> {
    let mut out = String::new();
    let t0 = Instant::now();
    match fs {
        None => {
            let s = compile(vs_or_single)?;
            if verbose {
                io_layout(&mut out, &s);
            }
            section(&mut out, &s, t0.elapsed().as_micros())?;
        }
        Some(fs) => {
            let p = link(vs_or_single, fs)?;
            let us = t0.elapsed().as_micros();
            let _ = writeln!(out, "; linked: compile time {us} us for both");
            for v in &p.varyings {
                let lanes = lane_suffix((v.lane, v.lanes));
                let _ = writeln!(
                    out,
                    "; varying {} : o{}{lanes} -> pa{}{lanes} ({})",
                    v.semantic,
                    v.vs_output,
                    v.fs_input,
                    v.interp.name()
                );
            }
            for u in &p.unmatched_inputs {
                let _ = writeln!(out, "; fragment input {u} has no vertex output: reads zero");
            }
            if verbose {
                let _ = writeln!(out, "; vertex program registers");
                io_layout(&mut out, &p.vs);
                let _ = writeln!(out, "; fragment program registers");
                io_layout(&mut out, &p.fs);
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
