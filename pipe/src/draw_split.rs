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

/// The parts of a fan or a loop (whose primitives are not runs of consecutive vertices) with
/// at most `max_prims` primitives each, as positions in the draw's vertex list: a fan's part
/// repeats the fan's first vertex before its run, so every triangle keeps its vertices, their
/// order and its provoking vertex; a loop becomes strips and then its closing line. None for
/// other topologies and when one part would do.
pub(crate) fn gathered(
    mode: PrimMode,
    count: u32,
    max_prims: u64,
) -> Option<Vec<(PrimMode, Vec<u32>)>> {
    use PrimMode::*;
    let prims = crate::batch::prim_count(mode, count);
    let per_part = max_prims.max(1);
    if per_part >= prims || !matches!(mode, LINE_LOOP | TRIANGLE_FAN) {
        return None;
    }
    let mut out = Vec::new();
    if mode == TRIANGLE_FAN {
        let mut first = 0u64;
        while first < prims {
            let n = per_part.min(prims - first);
            // Triangle t is (0, t + 1, t + 2).
            let run = (first + 1) as u32..=(first + n + 1) as u32;
            out.push((TRIANGLE_FAN, std::iter::once(0).chain(run).collect()));
            first += n;
        }
        return Some(out);
    }
    // The loop's strip: lines (k, k + 1) for k < count - 1.
    let strip = u64::from(count) - 1;
    let mut first = 0u64;
    while first < strip {
        let n = per_part.min(strip - first);
        out.push((LINE_STRIP, (first as u32..=(first + n) as u32).collect()));
        first += n;
    }
    out.push((LINES, vec![count - 1, 0]));
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
        // Fans and loops go through `gathered`.
        assert_eq!(parts(TRIANGLE_FAN, 0, 100, 4), None);
        assert_eq!(parts(LINE_LOOP, 0, 100, 4), None);
        assert_eq!(parts(TRIANGLES, 0, 12, 4), None);
        // A budget below one primitive still makes progress: one (two for strips) a part.
        assert_eq!(parts(TRIANGLES, 0, 6, 0), Some(vec![(0, 3), (3, 3)]));
        assert_eq!(parts(TRIANGLE_STRIP, 0, 4, 0), None);
    }

    #[test]
    fn fans_repeat_their_first_vertex_and_loops_close_with_a_line() {
        // 5 triangles, 2 a part: (0,1,2) (0,2,3) | (0,3,4) (0,4,5) | (0,5,6).
        assert_eq!(
            gathered(TRIANGLE_FAN, 7, 2),
            Some(vec![
                (TRIANGLE_FAN, vec![0, 1, 2, 3]),
                (TRIANGLE_FAN, vec![0, 3, 4, 5]),
                (TRIANGLE_FAN, vec![0, 5, 6]),
            ])
        );
        // 5 lines: (0,1) (1,2) (2,3) (3,4) as strips of 3 at most, then (4,0).
        assert_eq!(
            gathered(LINE_LOOP, 5, 3),
            Some(vec![
                (LINE_STRIP, vec![0, 1, 2, 3]),
                (LINE_STRIP, vec![3, 4]),
                (LINES, vec![4, 0]),
            ])
        );
        assert_eq!(gathered(LINE_LOOP, 5, 5), None);
        assert_eq!(gathered(TRIANGLES, 30, 2), None);
    }
}
