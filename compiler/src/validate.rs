//! Checks a compiled shader read back from outside the compiler (a disk cache entry) before
//! anyone trusts it: every count within the hwdocs limits the compiler itself enforces, every
//! instruction decoding, every branch landing inside the program.

use sgx_hwdocs::usse::{InstrFormat, Opcode};
use sgx_hwdocs::{limits, usse};

use crate::encode::decode;
use crate::io::{InputLoc, OutputLoc};
use crate::link::LinkedProgram;
use crate::shader::CompiledShader;
use crate::tgsi::ShaderStage;

fn within(what: &str, value: u64, max: u64) -> Result<(), String> {
    if value > max {
        Err(format!("{what} is {value}, the limit is {max}"))
    } else {
        Ok(())
    }
}

impl CompiledShader {
    /// `Err` names the first inconsistency: the shader cannot have come from this compiler.
    pub fn validate(&self) -> Result<(), String> {
        let n = u64::from(self.instructions);
        if n == 0 {
            return Err("no instructions".into());
        }
        within("instructions", n, usse::MAX_INSTRUCTIONS)?;
        if self.code.len() as u64 != 2 * n {
            return Err(format!(
                "{} code words for {n} instructions (two words each)",
                self.code.len()
            ));
        }
        for (i, w) in self.code.chunks_exact(2).enumerate() {
            let m = decode([w[0], w[1]]).map_err(|e| format!("instruction {i}: {e}"))?;
            if m.op.format() == InstrFormat::FLOW
                && matches!(m.op, Opcode::BR | Opcode::CALL)
                && u64::from(m.target) >= n
            {
                return Err(format!(
                    "instruction {i} branches to {}, past the end",
                    m.target
                ));
            }
        }
        within("temps", self.temps.into(), usse::TEMP_REGS)?;
        within("const_regs", self.const_regs.into(), usse::SECONDARY_REGS)?;
        for c in &self.constants {
            within(
                "a constant range's end",
                u64::from(c.sa_base) + u64::from(c.count),
                u64::from(self.const_regs),
            )?;
        }
        let varyings_max = match self.stage {
            ShaderStage::Vertex => usse::OUTPUT_REGS - 1,
            ShaderStage::Fragment => usse::PRIMARY_REGS,
        };
        within("varying_count", self.varying_count.into(), varyings_max)?;
        for s in &self.samplers {
            within(
                "a sampler unit",
                s.unit.into(),
                limits::MAX_TEXTURE_UNITS - 1,
            )?;
        }
        for i in &self.inputs {
            if let InputLoc::Primary(p) = i.location {
                within(
                    "an input's primary register",
                    p.into(),
                    usse::PRIMARY_REGS - 1,
                )?;
            }
        }
        for o in &self.outputs {
            if let OutputLoc::Output(p) = o.location {
                within("an output register", p.into(), usse::OUTPUT_REGS - 1)?;
            }
        }
        for (what, slot) in [
            ("pos_slot", self.pos_slot),
            ("face_slot", self.face_slot),
            ("pcoord_slot", self.pcoord_slot),
        ] {
            if let Some(s) = slot {
                within(what, s.into(), usse::PRIMARY_REGS - 1)?;
            }
        }
        if let Some(o) = self.psize_output {
            within("psize_output", o.into(), usse::OUTPUT_REGS - 1)?;
        }
        if let Some(o) = self.edgeflag_output {
            within("edgeflag_output", o.into(), usse::OUTPUT_REGS - 1)?;
        }
        Ok(())
    }
}

impl LinkedProgram {
    /// `Err` names the first inconsistency of either program or of the varying remap.
    pub fn validate(&self) -> Result<(), String> {
        if self.vs.stage != ShaderStage::Vertex || self.fs.stage != ShaderStage::Fragment {
            return Err("not a vertex program and a fragment program".into());
        }
        self.vs
            .validate()
            .map_err(|e| format!("vertex program: {e}"))?;
        self.fs
            .validate()
            .map_err(|e| format!("fragment program: {e}"))?;
        for v in &self.varyings {
            within(
                "a varying's vertex output",
                v.vs_output.into(),
                usse::OUTPUT_REGS - 1,
            )?;
            within(
                "a varying's fragment input",
                v.fs_input.into(),
                usse::PRIMARY_REGS - 1,
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    const FS: &str = "FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\n  0: MOV OUT[0], IN[0]\n  1: END\n";

    #[test]
    fn a_compiled_shader_validates() {
        let s = crate::compile(FS).expect("compiles");
        assert_eq!(s.validate(), Ok(()));
    }

    #[test]
    fn damage_is_named() {
        let good = crate::compile(FS).expect("compiles");
        let mut s = good.clone();
        s.instructions = u32::MAX;
        assert!(s
            .validate()
            .unwrap_err()
            .contains("instructions is 4294967295"));
        let mut s = good.clone();
        s.code.pop();
        assert!(s.validate().unwrap_err().contains("code words"));
        let mut s = good.clone();
        s.code[0] = 0x7f;
        assert!(s.validate().unwrap_err().contains("instruction 0"));
        let mut s = good.clone();
        s.temps = 1 << 30;
        assert!(s.validate().unwrap_err().contains("temps"));
        let mut s = good;
        s.varying_count = 1000;
        assert!(s.validate().unwrap_err().contains("varying_count"));
    }
}
