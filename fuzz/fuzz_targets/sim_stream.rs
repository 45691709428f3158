//! The model's command stream decoder: the field guide's textured-quad job with fuzzed words
//! written over its buffers and registers must end in a status (done, a fault, a clean error),
//! never a panic or a host out-of-bounds access.
#![no_main]

use std::sync::Arc;

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use sgx_hwdocs::example::textured_quad_job;
use sgx_sim::{Gpu, HostMem, JobDesc, Perm};

#[derive(Arbitrary, Debug)]
enum Patch {
    /// Overwrite a word of buffer `buf` at `word` (both taken modulo what exists).
    Word { buf: u8, word: u16, value: u32 },
    /// Change a TA register's value.
    Ta { index: u8, value: u32 },
    /// Change a 3D register's value.
    Td { index: u8, value: u32 },
    /// Add a register write before the kick.
    ExtraTd { offset: u16, value: u32 },
}

fuzz_target!(|patches: Vec<Patch>| {
    let Ok(mut job) = textured_quad_job() else {
        return;
    };
    for p in patches.iter().take(64) {
        match *p {
            Patch::Word { buf, word, value } => {
                let n = job.buffers.len();
                let b = &mut job.buffers[usize::from(buf) % n];
                let words = b.bytes.len() / 4;
                if words > 0 {
                    let at = usize::from(word) % words * 4;
                    b.bytes[at..at + 4].copy_from_slice(&value.to_le_bytes());
                }
            }
            Patch::Ta { index, value } => {
                let n = job.ta_regs.len();
                if n > 0 {
                    job.ta_regs[usize::from(index) % n].1 = value;
                }
            }
            Patch::Td { index, value } => {
                let n = job.td_regs.len();
                if n > 0 {
                    job.td_regs[usize::from(index) % n].1 = value;
                }
            }
            Patch::ExtraTd { offset, value } => {
                let at = job.td_regs.len().saturating_sub(1);
                job.td_regs.insert(at, (u32::from(offset) & !3, value));
            }
        }
    }
    let mut gpu = Gpu::new();
    for b in &job.buffers {
        // Long enough for its bytes, whatever size_B says.
        let mem = HostMem::with_bytes((b.size_B as usize).max(b.bytes.len()), &b.bytes);
        let perm = Perm {
            read: true,
            write: b.gpu_writes,
        };
        if gpu.map(b.gpu_va, Arc::new(mem), perm).is_err() {
            return;
        }
    }
    let _status = gpu
        .run(&JobDesc::Render {
            ta_regs: job.ta_regs,
            td_regs: job.td_regs,
        })
        .status;
});
