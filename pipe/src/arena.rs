//! Per-batch upload memory: state blocks, tables, constants, user vertices, control stream.
//!
//! Data is written into CPU-side chunks whose GPU addresses are fixed when the chunk is
//! allocated, so words may point at each other before anything reaches the GPU; at submit each
//! chunk's bytes are written into its buffer object once.

use sgx_hwdocs::limits;
use sgx_winsys::{Access, Bo, BoDesc, Device};

use crate::error::Result;

/// Size of a fresh chunk: a driver choice (fewer, larger buffers), not a hardware fact.
const CHUNK_B: u64 = 64 * 1024;

struct Chunk {
    bo: Bo,
    data: Vec<u8>,
}

/// A bump allocator over buffer objects.
#[derive(Default)]
pub(crate) struct Arena {
    chunks: Vec<Chunk>,
    /// Bytes allocated so far (all chunks).
    pub used_B: u64,
}

impl Arena {
    /// Reserves `len` bytes at `align` (a power of two) and returns (chunk, offset, GPU address).
    fn reserve(
        &mut self,
        dev: &dyn Device,
        len: usize,
        align: usize,
    ) -> Result<(usize, usize, u32)> {
        let need = len as u64;
        let fits = self.chunks.last().is_some_and(|c| {
            let off = c.data.len().div_ceil(align) * align;
            (off + len) as u64 <= c.bo.size_B()
        });
        if !fits {
            let size = CHUNK_B.max(need.div_ceil(limits::PAGE_B) * limits::PAGE_B);
            let bo = dev.create_bo(&BoDesc::new(size))?;
            self.chunks.push(Chunk {
                bo,
                data: Vec::with_capacity(size as usize),
            });
        }
        let idx = self.chunks.len() - 1;
        let c = &mut self.chunks[idx];
        let off = c.data.len().div_ceil(align) * align;
        c.data.resize(off + len, 0);
        self.used_B += need;
        Ok((idx, off, c.bo.gpu_addr() + off as u32))
    }

    /// Copies bytes in; returns their GPU address.
    pub fn push_bytes(&mut self, dev: &dyn Device, bytes: &[u8], align: usize) -> Result<u32> {
        let (i, off, va) = self.reserve(dev, bytes.len(), align)?;
        self.chunks[i].data[off..off + bytes.len()].copy_from_slice(bytes);
        Ok(va)
    }

    /// Reserves `len` zeroed bytes for the caller to write; returns their GPU address and
    /// the bytes.
    pub fn push_zeroed(
        &mut self,
        dev: &dyn Device,
        len: usize,
        align: usize,
    ) -> Result<(u32, &mut [u8])> {
        let (i, off, va) = self.reserve(dev, len, align)?;
        Ok((va, &mut self.chunks[i].data[off..off + len]))
    }

    /// Copies dwords in; returns their GPU address.
    pub fn push_dwords(&mut self, dev: &dyn Device, dw: &[u32], align: usize) -> Result<u32> {
        let (i, off, va) = self.reserve(dev, dw.len() * 4, align)?;
        let dst = &mut self.chunks[i].data[off..off + dw.len() * 4];
        for (b, d) in dst.chunks_exact_mut(4).zip(dw) {
            b.copy_from_slice(&d.to_le_bytes());
        }
        Ok(va)
    }

    /// Writes every chunk into its buffer object and lists them for the job (GPU reads).
    pub fn finish(self, timeout: std::time::Duration) -> Result<Vec<(Bo, Access)>> {
        let mut out = Vec::with_capacity(self.chunks.len());
        for c in self.chunks {
            // A fresh buffer: no job has used it, so the write map does not wait.
            c.bo.write(0, &c.data, timeout)?;
            out.push((c.bo, Access::Read));
        }
        Ok(out)
    }
}
