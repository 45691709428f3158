//! Splitting one draw whose primitives would outgrow parameter memory into draws of
//! consecutive primitives (glmark2's high-poly horse: 70,000 triangles in one draw). Each part
//! fits a render's budget, so the batch logic submits them as separate renders that load and
//! store the tiles between them: the same pixels, more renders.

use sgx_hwdocs::ta_stream::Topology as PrimMode;

/// The (start, count) of each part of a draw of `count` vertices or indices from `start`,
/// with at most `max_prims` primitives a part; None for topologies whose primitives are not
/// runs of consecutive vertices (fans keep their first vertex, loops close on it) and when
/// a part could not be smaller than the whole.
pub(crate) fn parts(
    mode: PrimMode,
    start: u32,
    count: u32,
    max_prims: u64,
) -> Option<Vec<(u32, u32)>> {
    use PrimMode::*;
    // Vertices a primitive advances by, and vertices shared with the next one.
    let (step, overlap) = match mode {
        POINTS => (1, 0),
        LINES => (2, 0),
        LINE_STRIP => (1, 1),
        TRIANGLES => (3, 0),
        TRIANGLE_STRIP => (1, 2),
        QUADS => (4, 0),
        QUAD_STRIP => (2, 2),
        LINE_LOOP | TRIANGLE_FAN | POLYGON => return None,
    };
    let prims = crate::batch::prim_count(mode, count);
    // A strip's odd triangles wind the other way: every part starts on an even one, so each
    // keeps its facing (and culling) as in the whole strip.
    let even = if mode == TRIANGLE_STRIP { 2 } else { 1 };
    let per_part = (max_prims / even * even).max(even);
    if per_part >= prims {
        return None;
    }
    let mut out = Vec::new();
    let mut first = 0u64;
    while first < prims {
        let n = per_part.min(prims - first);
        let s = u64::from(start) + first * step;
        // Both fit u32: they lie within start..start + count.
        out.push((s as u32, (n * step + overlap) as u32));
        first += n;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use PrimMode::*;

    #[test]
    fn triangles_split_on_whole_triangles_and_cover_every_vertex_once() {
        assert_eq!(
            parts(TRIANGLES, 6, 30, 4),
            Some(vec![(6, 12), (18, 12), (30, 6)])
        );
        // A trailing partial triangle is dropped, as the whole draw drops it.
        assert_eq!(parts(TRIANGLES, 0, 10, 2), Some(vec![(0, 6), (6, 3)]));
    }

    #[test]
    fn strips_overlap_and_start_on_even_triangles() {
        // 9 triangles in 11 vertices, 3 a part at most: parts of 2 (even starts).
        let p = parts(TRIANGLE_STRIP, 0, 11, 3).unwrap();
        assert_eq!(p, vec![(0, 4), (2, 4), (4, 4), (6, 4), (8, 3)]);
        assert!(p.iter().all(|&(s, _)| s % 2 == 0));
        assert_eq!(parts(LINE_STRIP, 1, 7, 4), Some(vec![(1, 5), (5, 3)]));
    }

    #[test]
    fn points_and_lines_split_evenly() {
        assert_eq!(parts(POINTS, 0, 5, 2), Some(vec![(0, 2), (2, 2), (4, 1)]));
        assert_eq!(parts(LINES, 0, 8, 3), Some(vec![(0, 6), (6, 2)]));
    }

    #[test]
    fn fans_loops_and_draws_that_already_fit_are_not_split() {
        assert_eq!(parts(TRIANGLE_FAN, 0, 100, 4), None);
        assert_eq!(parts(LINE_LOOP, 0, 100, 4), None);
        assert_eq!(parts(TRIANGLES, 0, 12, 4), None);
        // A budget below one primitive still makes progress: one (two for strips) a part.
        assert_eq!(parts(TRIANGLES, 0, 6, 0), Some(vec![(0, 3), (3, 3)]));
        assert_eq!(parts(TRIANGLE_STRIP, 0, 4, 0), None);
    }
}
