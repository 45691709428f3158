//! Vertex formats the model's fetch does not convert (vertex_format.rs): the vertices a draw
//! reads are converted to 32-bit floats on the CPU, into the batch's arena, and the attribute
//! points there. Mesa's u_vbuf did this in front of the driver, and so in front of every
//! draw; here only a draw that uses such a format pays, once per draw and attribute.
//! `Context::set_translate_all_vertex_formats` converts every format this way: the reference
//! the model's own conversion is tested against.

use sgx_winsys::Device;

use crate::batch::Batch;
use crate::context::Context;
use crate::error::{invalid, Result};
use crate::state::{BufferSource, VertexFormat};

impl Context {
    /// Whether the bound vertex elements need a CPU conversion (worked out when they are
    /// bound: `velems_converted`).
    pub(crate) fn needs_translation(&self) -> bool {
        self.velems
            .as_deref()
            .is_some_and(|v| v.iter().any(|e| self.converted_on_cpu(e.src_format)))
    }

    /// Whether `f` is converted on the CPU.
    pub(crate) fn converted_on_cpu(&self, f: VertexFormat) -> bool {
        self.translate_all || f.native().is_none()
    }
}

/// A draw's vertices or indices: `count` from `start`, with `index_size` bytes
/// per index and the bias when `index` is Some.
pub(crate) struct Reads<'a> {
    pub index: Option<&'a BufferSource>,
    pub index_size: u32,
    pub start: u32,
    pub count: u32,
    pub index_bias: i32,
}

/// The vertex ids a draw reads, first and last (inclusive). An indexed draw's are found from
/// its indices (Gallium's bounds are a hint and often absent), with the index bias added.
pub(crate) fn vertex_range(info: Reads) -> Result<(u32, u32)> {
    if info.count == 0 {
        // Nothing is read (a draw of no vertices ends before its state is emitted).
        return Ok((info.start, info.start));
    }
    let Some(src) = info.index else {
        let last = u64::from(info.start) + u64::from(info.count) - 1;
        return match u32::try_from(last) {
            Ok(last) => Ok((info.start, last)),
            Err(_) => invalid(format!("vertices up to {last}")),
        };
    };
    let size = info.index_size as usize;
    let off = info.start as usize * size;
    let len = info.count as usize * size;
    let owned;
    let bytes: &[u8] = match src {
        BufferSource::Resource(r) => {
            let mut v = vec![0u8; len];
            r.bo().read_unsynchronized(off as u64, &mut v)?;
            owned = v;
            &owned
        }
        BufferSource::User(d) => d
            .get(off..off + len)
            .ok_or_else(|| crate::PipeError::InvalidArgument("indices past the data".into()))?,
    };
    let (mut lo, mut hi) = (u32::MAX, 0u32);
    for c in bytes.chunks_exact(size) {
        let i = match size {
            1 => u32::from(c[0]),
            2 => u32::from(u16::from_le_bytes([c[0], c[1]])),
            _ => u32::from_le_bytes([c[0], c[1], c[2], c[3]]),
        };
        lo = lo.min(i);
        hi = hi.max(i);
    }
    let bias = i64::from(info.index_bias);
    let (lo, hi) = (i64::from(lo) + bias, i64::from(hi) + bias);
    match (u32::try_from(lo), u32::try_from(hi)) {
        (Ok(lo), Ok(hi)) => Ok((lo, hi)),
        _ => invalid(format!("vertex ids {lo}..={hi} with the index bias")),
    }
}

/// Converts the elements of `fmt` at `offset_B` + vertex * `stride_B` of `src` for the
/// vertices of `range` (one element when the stride is 0) into floats in `b`'s arena.
/// Returns the attribute's address for vertex 0 (where vertex `range.0`'s floats are, less
/// its offset) and stride. Vertex data past the buffer's end is refused.
pub(crate) fn translate(
    b: &mut Batch,
    dev: &dyn Device,
    src: &BufferSource,
    offset_B: u32,
    stride_B: u32,
    fmt: VertexFormat,
    range: (u32, u32),
) -> Result<(u32, u32)> {
    let (first, n) = if stride_B == 0 {
        (0, 1)
    } else {
        (range.0, u64::from(range.1 - range.0) + 1)
    };
    let size_B = u64::from(fmt.size_B());
    let begin_B = u64::from(offset_B) + u64::from(first) * u64::from(stride_B);
    let end_B = begin_B + (n - 1) * u64::from(stride_B) + size_B;
    let owned;
    let data: &[u8] = match src {
        BufferSource::Resource(r) => {
            if end_B > u64::from(r.width()) {
                return invalid(format!(
                    "vertex data up to byte {end_B} of a {}-byte buffer",
                    r.width()
                ));
            }
            let mut v = vec![0u8; (end_B - begin_B) as usize];
            r.bo().read_unsynchronized(begin_B, &mut v)?;
            owned = v;
            &owned
        }
        BufferSource::User(d) => {
            if end_B > d.len() as u64 {
                return invalid(format!(
                    "vertex data up to byte {end_B} of {} user bytes",
                    d.len()
                ));
            }
            &d[begin_B as usize..end_B as usize]
        }
    };
    let comps = fmt.comps() as usize;
    let out_stride_B = comps * 4;
    let (va, out) = b.arena.push_zeroed(dev, n as usize * out_stride_B, 16)?;
    let mut f = [0f32; 4];
    for (v, dst) in out.chunks_exact_mut(out_stride_B).enumerate() {
        let at = v * stride_B as usize;
        fmt.to_f32(&data[at..at + size_B as usize], &mut f);
        for (d, x) in dst.chunks_exact_mut(4).zip(&f) {
            d.copy_from_slice(&x.to_le_bytes());
        }
    }
    if stride_B == 0 {
        return Ok((va, 0));
    }
    // The model adds vertex * stride to the address (hwdocs VertexAttr): vertex `first`
    // lands on the first converted element.
    let shift = first.wrapping_mul(out_stride_B as u32);
    Ok((va.wrapping_sub(shift), out_stride_B as u32))
}
