//! Polygon state for the TA (hwdocs render.json `PolyState`): fill modes per facing, the
//! vertex program's edge flag output, and the polygon offset in window z.

use sgx_hwdocs::render;
use sgx_hwdocs::ta_stream::Topology;
use sgx_hwdocs::Format;

use crate::context::Context;
use crate::error::Result;
use crate::state::{FramebufferState, RasterizerState};

/// The minimum resolvable difference of the bound depth buffer in window z: one step of its
/// unsigned-normalised depth (as Mesa's `util_get_depth_format_mrd`). GL's offset units are
/// multiples of it. Without a depth buffer the offset has nothing to act on; 24 bits then.
pub(crate) fn depth_mrd(fb: &FramebufferState) -> f32 {
    let bits = match fb.zsbuf.as_ref().map(|s| s.resource.format()) {
        Some(Format::Z16_UNORM) => 16,
        _ => 24,
    };
    (1.0 / ((1u64 << bits) - 1) as f64) as f32
}

/// Upper bound of the primitive records one primitive of `mode` (of a draw of `count`
/// vertices) makes: a quad is two triangles, a polygon of n vertices n - 2; drawn as lines
/// or points, each outer edge or vertex is two records.
pub(crate) fn records_per_prim(mode: Topology, count: u32, unfilled: bool) -> u64 {
    use Topology::*;
    let n = u64::from(count);
    match (mode, unfilled) {
        (TRIANGLES | TRIANGLE_STRIP | TRIANGLE_FAN, true) => 6,
        (QUADS | QUAD_STRIP, true) => 8,
        (QUADS | QUAD_STRIP, false) => 2,
        (POLYGON, true) => 2 * n,
        (POLYGON, false) => n.saturating_sub(2).max(1),
        _ => 1,
    }
}

impl Context {
    /// The PolyState words of rasterizer state `r` with a vertex program whose edge flag is
    /// output `edgeflag_output`.
    pub(crate) fn poly_words(
        &self,
        r: &RasterizerState,
        edgeflag_output: Option<u32>,
    ) -> Result<Vec<u32>> {
        let offset = r.offset_tri || r.offset_line || r.offset_point;
        // Two steps per unit, as Mesa's draw module (softpipe) takes them: the model's window
        // z is f32 from an f32 vertex transform, which resolves about two steps of a 24-bit
        // buffer (piglit's gl-1.4-polygon-offset measures it), and one unit must separate.
        let units = if offset {
            r.offset_units * 2.0 * depth_mrd(&self.fb)
        } else {
            0.0
        };
        Ok(render::PolyState {
            fill_front: r.fill_front,
            fill_back: r.fill_back,
            offset_fill: r.offset_tri,
            offset_line: r.offset_line,
            offset_point: r.offset_point,
            // Edge flags matter only to polygons drawn as lines or points.
            edge_flag_output: if r.unfilled() {
                edgeflag_output.unwrap_or(0)
            } else {
                0
            },
            offset_units: units,
            offset_scale: r.offset_scale,
            offset_clamp: r.offset_clamp,
        }
        .pack()?
        .to_vec())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_bound_what_the_ta_makes() {
        use Topology::*;
        assert_eq!(records_per_prim(TRIANGLES, 9, false), 1);
        assert_eq!(records_per_prim(TRIANGLE_FAN, 9, true), 6);
        assert_eq!(records_per_prim(QUADS, 8, false), 2);
        assert_eq!(records_per_prim(QUAD_STRIP, 8, true), 8);
        assert_eq!(records_per_prim(POLYGON, 7, false), 5);
        assert_eq!(records_per_prim(POLYGON, 7, true), 14);
        assert_eq!(records_per_prim(LINES, 7, true), 1);
    }

    #[test]
    fn offset_units_follow_the_depth_buffer() {
        let fb = FramebufferState {
            width: 1,
            height: 1,
            cbuf: None,
            zsbuf: None,
            extra_cbufs: Vec::new(),
        };
        assert_eq!(depth_mrd(&fb), 1.0 / 16_777_215.0);
    }
}
