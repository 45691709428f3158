//! Shaders and linked programs: TGSI text in, USSE code in a buffer object out.

use std::sync::Arc;

use sgx_compiler::{CompiledShader, LinkedProgram};
use sgx_hwdocs::limits;
use sgx_winsys::{Bo, BoDesc, BoFlags, Device};

use crate::caps::ShaderStage;
use crate::error::Result;

/// A shader CSO: its TGSI text (linking recompiles with the pair's varying layout) and its
/// stand-alone compilation (which validated it when it was created).
#[derive(Debug)]
pub struct ShaderState {
    /// Context-unique id.
    pub id: u64,
    /// Stage.
    pub stage: ShaderStage,
    /// The TGSI text.
    pub tgsi: Arc<str>,
    /// Compiled alone.
    pub compiled: Arc<CompiledShader>,
}

pub(crate) fn stage_of(c: &CompiledShader) -> ShaderStage {
    match c.stage {
        sgx_compiler::ShaderStage::Vertex => ShaderStage::Vertex,
        sgx_compiler::ShaderStage::Fragment => ShaderStage::Fragment,
    }
}

/// A linked pair with its code uploaded.
#[derive(Debug)]
pub struct Program {
    /// The linked shaders.
    pub linked: Arc<LinkedProgram>,
    /// Code buffer: the vertex program at its start, the pixel program after it.
    pub code: Bo,
    /// GPU address of the vertex program.
    pub vs_addr: u32,
    /// GPU address of the pixel program.
    pub fs_addr: u32,
}

impl Program {
    /// Uploads a linked pair's code into a GPU read-only buffer.
    pub(crate) fn upload(
        dev: &dyn Device,
        linked: Arc<LinkedProgram>,
        timeout: std::time::Duration,
    ) -> Result<Program> {
        let vs_B = linked.vs.code.len() * 4;
        let align = limits::USE_CODE_BASE_ALIGN_B as usize;
        let fs_off = vs_B.div_ceil(align) * align;
        let total = fs_off + linked.fs.code.len() * 4;
        let code = dev.create_bo(&BoDesc::new(total.max(8) as u64).flags(BoFlags {
            gpu_read_only: true,
            ..Default::default()
        }))?;
        let mut bytes = vec![0u8; total];
        for (i, w) in linked.vs.code.iter().enumerate() {
            bytes[4 * i..4 * i + 4].copy_from_slice(&w.to_le_bytes());
        }
        for (i, w) in linked.fs.code.iter().enumerate() {
            bytes[fs_off + 4 * i..fs_off + 4 * i + 4].copy_from_slice(&w.to_le_bytes());
        }
        code.write(0, &bytes, timeout)?;
        let base = code.gpu_addr();
        Ok(Program {
            linked,
            code,
            vs_addr: base,
            fs_addr: base + fs_off as u32,
        })
    }
}
