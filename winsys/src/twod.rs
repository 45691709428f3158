//! The simplest jobs: 2D fills and copies of linear rectangles, packed with hwdocs' TwodCmd.
//! For tests, examples and bring-up; the pipe builds its own jobs.

use std::time::Duration;

use sgx_hwdocs::regs;
use sgx_hwdocs::twod::{TwodCmd, TwodOp};
use sgx_hwdocs::Format;

use crate::access::Access;
use crate::bo::Bo;
use crate::error::{Result, WinsysError};
use crate::job::Job;

/// A linear surface in a buffer.
#[derive(Clone, Copy, Debug)]
pub struct Surface<'a> {
    /// The buffer.
    pub bo: &'a Bo,
    /// Offset of pixel (0, 0) in the buffer.
    pub offset_B: u32,
    /// Row stride.
    pub stride_B: u32,
    /// Element format.
    pub format: Format,
}

impl Surface<'_> {
    fn addr(&self) -> Result<u32> {
        self.bo
            .gpu_addr()
            .checked_add(self.offset_B)
            .ok_or_else(|| WinsysError::InvalidArgument("surface offset overflows".into()))
    }
}

/// A rectangle in pixels: layout's (`x`, `y` of the top-left pixel, `w` x `h` pixels, each at
/// least 1 for a 2D job).
pub use sgx_layout::Rect;

fn sizes(r: Rect) -> Result<(u32, u32)> {
    if r.w == 0 || r.h == 0 {
        return Err(WinsysError::InvalidArgument(format!(
            "empty 2D rectangle {r:?}"
        )));
    }
    Ok((r.w - 1, r.h - 1))
}

/// A FILL of `rect` in `dst` with the raw element value `value`.
pub fn fill(dst: &Surface, rect: Rect, value: u32) -> Result<TwodCmd> {
    let (width_m1, height_m1) = sizes(rect)?;
    Ok(TwodCmd {
        op: TwodOp::FILL,
        format: dst.format,
        dst_addr: dst.addr()?,
        dst_stride_B: dst.stride_B,
        dst_x: rect.x,
        dst_y: rect.y,
        width_m1,
        height_m1,
        fill: value,
        ..TwodCmd::default()
    })
}

/// A COPY of `rect` of `src` to (`dst_x`, `dst_y`) of `dst` (same format).
pub fn copy(src: &Surface, rect: Rect, dst: &Surface, dst_x: u32, dst_y: u32) -> Result<TwodCmd> {
    let (width_m1, height_m1) = sizes(rect)?;
    if src.format != dst.format {
        return Err(WinsysError::InvalidArgument(
            "2D copy between different formats".into(),
        ));
    }
    Ok(TwodCmd {
        op: TwodOp::COPY,
        format: dst.format,
        dst_addr: dst.addr()?,
        dst_stride_B: dst.stride_B,
        src_addr: src.addr()?,
        src_stride_B: src.stride_B,
        dst_x,
        dst_y,
        src_x: rect.x,
        src_y: rect.y,
        width_m1,
        height_m1,
        fill: 0,
    })
}

/// Bytes a command list of `n` commands takes.
pub fn list_size_B(n: usize) -> u64 {
    (n * TwodCmd::DWORDS * 4) as u64
}

/// A 2D job running `cmds`: packs them into `cmd_bo` at offset 0 (a synchronized write map that
/// waits up to `timeout` for jobs still reading it) and lists `cmd_bo` as read. The caller adds
/// the surfaces' buffers with their access.
pub fn job(cmd_bo: &Bo, cmds: &[TwodCmd], timeout: Duration) -> Result<Job> {
    if list_size_B(cmds.len()) > cmd_bo.size_B() {
        return Err(WinsysError::InvalidArgument(format!(
            "{} 2D commands do not fit in {} bytes",
            cmds.len(),
            cmd_bo.size_B()
        )));
    }
    let mut bytes = Vec::with_capacity(list_size_B(cmds.len()) as usize);
    for c in cmds {
        let words = c
            .pack()
            .map_err(|e| WinsysError::InvalidArgument(format!("2D command: {e}")))?;
        bytes.extend(words.iter().flat_map(|w| w.to_le_bytes()));
    }
    cmd_bo.write(0, &bytes, timeout)?;
    let base = regs::TwodCmdBase {
        addr: cmd_bo.gpu_addr(),
    }
    .pack()
    .map_err(|e| WinsysError::InvalidArgument(format!("2D command base: {e}")))?;
    let regs = vec![
        (regs::TWOD_CMD_BASE, base[0]),
        (regs::TWOD_CMD_COUNT, cmds.len() as u32),
        (regs::TWOD_START, 1),
    ];
    Ok(Job::two_d(regs).with_bo(cmd_bo, Access::Read))
}
