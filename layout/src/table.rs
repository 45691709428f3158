//! The human-readable level table that `sgx535 layout` prints.

use std::fmt::Write as _;

use crate::{Layout, Target, Tiling, CUBE_FACE_NAMES};

/// A table of every level of a layout: extent, tiling, offset, span, footprint, stride,
/// PBE target extent and clip limits, then the chain end, face stride and allocation size.
pub fn level_table(layout: &Layout) -> String {
    let mut s = String::new();
    let target = layout.target.name();
    // 3D layouts add a depth to the extents and a slice stride column; 2D and cube tables
    // keep their columns.
    let volume = layout.target == Target::Tex3D;
    let size = if volume {
        format!(
            "{}x{}x{}",
            layout.width_px, layout.height_px, layout.depth_px
        )
    } else {
        format!("{}x{}", layout.width_px, layout.height_px)
    };
    // Writing to a String cannot fail.
    let _ = writeln!(
        s,
        "{} {} {}, {} levels, {}, {} B/el",
        layout.format.name(),
        size,
        target,
        layout.level_count(),
        layout.tiling.name(),
        layout.bytes_per_el
    );
    let slice_col = |v: String| {
        if volume {
            format!("  {v:>14}")
        } else {
            String::new()
        }
    };
    let _ = writeln!(
        s,
        "{:>5}  {:>9}  {:<8}  {:>8}  {:>8}{}  {:>11}  {:>8}  {:>9}  {:>7}  clip",
        "level",
        "extent_px",
        "tiling",
        "offset_B",
        "size_B",
        slice_col("slice_stride_B".into()),
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
        let extent = if volume {
            format!("{}x{}x{}", l.extent_px.w, l.extent_px.h, l.depth_px)
        } else {
            format!("{}x{}", l.extent_px.w, l.extent_px.h)
        };
        let _ = writeln!(
            s,
            "{:>5}  {:>9}  {:<8}  {:>8}  {:>8}{}  {:>11}  {:>8}  {:>9}  {:>7}  {},{}..{},{}",
            l.level,
            extent,
            l.tiling.name(),
            l.offset_B,
            l.size_B,
            slice_col(l.slice_stride_B.to_string()),
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
