//! Vertex fetch: the PRIM's indices read a chunk at a time, each distinct vertex's
//! attributes converted and shaded once.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use sgx_hwdocs::limits::MAX_PRIM_VERTICES;
use sgx_hwdocs::render::AttrType;
use sgx_hwdocs::ta_stream::{CtrlPrim, IndexType};

use super::{cvert, CVert, Draw, Ta};
use crate::job::JobErr;
use crate::tsp::Sampler;
use crate::Unit;

fn attr_size(t: AttrType) -> u32 {
    match t {
        AttrType::FLOAT32 | AttrType::USCALED32 => 4,
        AttrType::UNORM8 | AttrType::USCALED8 => 1,
        _ => 2,
    }
}

fn convert(t: AttrType, b: &[u8]) -> f32 {
    let u16v = || u16::from_le_bytes([b[0], b[1]]);
    match t {
        AttrType::FLOAT32 => f32::from_le_bytes([b[0], b[1], b[2], b[3]]),
        AttrType::USCALED32 => u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f32,
        AttrType::UNORM8 => f32::from(b[0]) / 255.0,
        AttrType::USCALED8 => f32::from(b[0]),
        AttrType::SNORM16 => (f32::from(u16v() as i16) / 32767.0).max(-1.0),
        AttrType::SSCALED16 => f32::from(u16v() as i16),
        AttrType::UNORM16 => f32::from(u16v()) / 65535.0,
        AttrType::USCALED16 => f32::from(u16v()),
    }
}

/// `CHUNK` indices are read at a time.
const CHUNK: usize = 4096;

/// Largest PRIM whose indices are looked up by a scan instead of the hash table: a scan of
/// this many u32 is cheaper than hashing. A model choice, not a hardware fact.
const SMALL_PRIM: usize = 16;

/// Hashes a vertex index with one multiply (Fibonacci hashing): the index cache is looked up
/// for every index of a PRIM, and the default SipHash took about a tenth of the CPU time of
/// drawoverhead's indexed draws. Indices are the application's, not an adversary's.
#[derive(Default)]
struct IndexHasher(u64);

// 0x9e37_79b9_7f4a_7c15 is the golden-ratio multiplier of Fibonacci hashing, not a hardware
// fact: the model's index cache only needs a cheap, well-spread hash.
impl Hasher for IndexHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        }
    }
    fn write_u32(&mut self, i: u32) {
        self.0 = u64::from(i).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

/// The vertex buffers of one PRIM, kept across the PRIMs of a job.
#[derive(Default)]
pub(super) struct PrimBufs {
    /// Index -> position in `verts`.
    cache: HashMap<u32, usize, BuildHasherDefault<IndexHasher>>,
    /// For a PRIM of at most `SMALL_PRIM` indices (fast path): the index of each vertex in
    /// `verts`, searched in place of `cache`.
    seen: Vec<u32>,
    pub verts: Vec<CVert>,
    pub slot: Vec<usize>,
    raw: Vec<u8>,
    ids: Vec<u32>,
}

impl Ta<'_> {
    /// Reads vertex `vtx`'s attributes into `pa`, one slot per attribute of the draw.
    pub(super) fn attrs(&self, d: &Draw, vtx: u32, pa: &mut [[u32; 4]; 16]) -> Result<(), JobErr> {
        for (slot, a) in pa.iter_mut().zip(&d.attrs) {
            let n = a.comps_m1 + 1;
            let sz = attr_size(a.ty);
            let addr = a.addr.wrapping_add(vtx.wrapping_mul(a.stride_B));
            let mut buf = [0u8; 16];
            self.mmu
                .read(Unit::Ta, addr, &mut buf[..(n * sz) as usize])?;
            let mut v = [0.0, 0.0, 0.0, 1.0f32];
            for (i, c) in v.iter_mut().enumerate().take(n as usize) {
                *c = convert(a.ty, &buf[i * sz as usize..]);
            }
            *slot = v.map(f32::to_bits);
        }
        Ok(())
    }

    pub(super) fn vertex(&mut self, d: &Draw, vtx: u32) -> Result<CVert, JobErr> {
        let mut pa = [[0u32; 4]; 16];
        self.attrs(d, vtx, &mut pa)?;
        let mut sampler =
            Sampler::new(self.mmu, &d.tex, self.fast).with_base(d.ds.prog.vs_tex_base);
        let out = self
            .machine
            .run_vertex(&d.vs, &pa[..d.attrs.len()], &d.consts, &mut sampler)
            .map_err(JobErr::usse)?;
        self.c.texels_fetched += sampler.texels;
        self.c.usse_instructions += out.instructions;
        Ok(cvert(d, &out.out))
    }

    pub(super) fn prim(&mut self, d: &Draw, p: &CtrlPrim) -> Result<(), JobErr> {
        let n = p.count as usize;
        let isz = match p.index_type {
            IndexType::NONE => 0,
            IndexType::U8 => 1,
            IndexType::U16 => 2,
            IndexType::U32 => 4,
        };
        if isz > 1 && p.index_addr & (isz - 1) != 0 {
            return Err(JobErr::bad(
                Unit::Ta,
                format!("index buffer {:#x} not {isz}-byte aligned", p.index_addr),
            ));
        }
        if p.count as u64 > MAX_PRIM_VERTICES {
            return Err(JobErr::bad(
                Unit::Ta,
                format!(
                    "PRIM of {} vertices: limits::MAX_PRIM_VERTICES is {MAX_PRIM_VERTICES}",
                    p.count
                ),
            ));
        }
        // `count` is a 32-bit field: nothing is reserved for it up front. Indices are read a
        // chunk at a time and vertices fetched as they are met, so a count past the index or
        // vertex buffer faults at the buffer's end instead of asking the host for memory for
        // 2^32 of them. The buffers live in `Ta` and are reused by every PRIM of the job: a
        // draw of a few vertices allocates nothing.
        let mut b = std::mem::take(&mut self.bufs);
        if b.cache.capacity() > 4 * CHUNK {
            // Clearing costs the table's capacity: a large PRIM's table is not kept.
            b.cache = HashMap::default();
        }
        b.cache.clear();
        b.seen.clear();
        b.verts.clear();
        b.slot.clear();
        let r = self.fetch(d, p, n, isz, &mut b);
        let r = r.and_then(|()| self.assemble(d, p, n, &b));
        self.bufs = b;
        r
    }

    /// Fetches and shades the PRIM's vertices: each distinct index once, in order of first
    /// use; `b.slot[k]` is the shaded vertex of the PRIM's k-th vertex.
    fn fetch(
        &mut self,
        d: &Draw,
        p: &CtrlPrim,
        n: usize,
        isz: u32,
        b: &mut PrimBufs,
    ) -> Result<(), JobErr> {
        let PrimBufs {
            cache,
            seen,
            verts,
            slot,
            raw,
            ids,
        } = b;
        let batch = self.fast && d.batch;
        if isz == 0 {
            // Not indexed: every vertex is distinct (count is far below 2^32), no lookup.
            let base = p.base_vertex as u32;
            if batch {
                for i in (0..n).step_by(4) {
                    let m = (n - i).min(4);
                    let ids: [u32; 4] = std::array::from_fn(|k| base.wrapping_add((i + k) as u32));
                    self.shade4(d, &ids[..m], verts)?;
                    slot.extend(i..i + m);
                }
                return Ok(());
            }
            for i in 0..n {
                let v = self.vertex(d, base.wrapping_add(i as u32))?;
                verts.push(v);
                slot.push(i);
            }
            return Ok(());
        }
        // A few indices (a display list's draw, drawoverhead's glCallList: the hash table's
        // inserts were about 5% of the model's time) are looked up by a scan; the same slots
        // as the table's (the reference, without fast paths).
        let small = self.fast && n <= SMALL_PRIM;
        raw.resize(n.min(CHUNK) * isz as usize, 0);
        let mut k = 0usize;
        while k < n {
            let m = (n - k).min(CHUNK);
            ids.clear();
            // GPU addresses are 32-bit: the index pointer wraps as the hardware's would.
            let addr = p.index_addr.wrapping_add((k * isz as usize) as u32);
            let bytes = &mut raw[..m * isz as usize];
            self.mmu.read(Unit::Ta, addr, bytes)?;
            for c in bytes.chunks(isz as usize) {
                let v = match isz {
                    1 => u32::from(c[0]),
                    2 => u32::from(u16::from_le_bytes([c[0], c[1]])),
                    _ => u32::from_le_bytes([c[0], c[1], c[2], c[3]]),
                };
                ids.push(v.wrapping_add(p.base_vertex as u32));
            }
            // Batched: new vertices wait in `pending` (their positions in `verts` known) and
            // are shaded four at a time, all of them before the next chunk's indices are read,
            // so faults come in the order of one-by-one shading.
            let mut pending = [0u32; 4];
            let mut np = 0;
            for &i in ids.iter() {
                let known = if small {
                    seen.iter().position(|&x| x == i)
                } else {
                    cache.get(&i).copied()
                };
                let s = match known {
                    Some(s) => s,
                    None if batch => {
                        let s = verts.len() + np;
                        if small {
                            seen.push(i);
                        } else {
                            cache.insert(i, s);
                        }
                        pending[np] = i;
                        np += 1;
                        if np == 4 {
                            self.shade4(d, &pending, verts)?;
                            np = 0;
                        }
                        s
                    }
                    None => {
                        let v = self.vertex(d, i)?;
                        verts.push(v);
                        if small {
                            seen.push(i);
                        } else {
                            cache.insert(i, verts.len() - 1);
                        }
                        verts.len() - 1
                    }
                };
                slot.push(s);
            }
            if np > 0 {
                self.shade4(d, &pending[..np], verts)?;
            }
            k += m;
        }
        Ok(())
    }
}
