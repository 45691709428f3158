//! The human-readable level table that `sgx535 layout` prints.

use std::fmt::Write as _;

use crate::{Layout, Target, Tiling, CUBE_FACE_NAMES};

/// A table of every level of a layout: extent, tiling, offset, span, footprint, stride,
/// PBE target extent and clip limits, then the chain end, face stride and allocation size.
pub fn level_table(layout: &Layout) -> String {
    let mut s = String::new();
    let target = match layout.target {
        Target::Tex2D => "2D",
        Target::Cube => "cube",
    };
    // Writing to a String cannot fail.
    let _ = writeln!(
        s,
        "{} {}x{} {}, {} levels, {}, {} B/el",
        layout.format.name(),
        layout.width_px,
        layout.height_px,
        target,
        layout.level_count(),
        layout.tiling.name(),
        layout.bytes_per_el
    );
    let _ = writeln!(
        s,
        "{:>5}  {:>9}  {:<8}  {:>8}  {:>8}  {:>11}  {:>8}  {:>9}  {:>7}  clip",
        "level",
        "extent_px",
        "tiling",
        "offset_B",
        "size_B",
        "footprint_B",
        "stride_B",
        "target_tl",
        "log2"
    );
    for l in &layout.levels {
        let stride = match l.tiling {
            Tiling::Linear => l.stride_B.to_string(),
            Tiling::Twiddled => "-".into(),
        };
        let log2 = match l.tiling {
            Tiling::Twiddled => format!("{}x{}", l.log2_w, l.log2_h),
            Tiling::Linear => "-".into(),
        };
        let c = l.pbe_clip();
        let _ = writeln!(
            s,
            "{:>5}  {:>9}  {:<8}  {:>8}  {:>8}  {:>11}  {:>8}  {:>9}  {:>7}  {},{}..{},{}",
            l.level,
            format!("{}x{}", l.extent_px.w, l.extent_px.h),
            l.tiling.name(),
            l.offset_B,
            l.size_B,
            l.footprint_B,
            stride,
            format!("{}x{}", l.target_extent_tl.w, l.target_extent_tl.h),
            log2,
            c.xmin,
            c.ymin,
            c.xmax,
            c.ymax
        );
    }
    let _ = writeln!(
        s,
        "end    {:>9}  (level_offsets_B[{}] = chain_B)",
        layout.chain_B,
        layout.level_count()
    );
    if layout.target == Target::Cube {
        let faces: Vec<String> = CUBE_FACE_NAMES
            .iter()
            .enumerate()
            .map(|(i, n)| format!("{n}@{}", i as u64 * layout.face_stride_B))
            .collect();
        let _ = writeln!(
            s,
            "face_stride_B {}  faces {}",
            layout.face_stride_B,
            faces.join(" ")
        );
    }
    let _ = writeln!(s, "size_B {} (allocation)", layout.size_B);
    s
}
