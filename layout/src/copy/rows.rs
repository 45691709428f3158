//! A fixed number of linear rows of a fixed width, bounds-checked once when made, for the
//! vector bodies: a body that stores each 32-byte row piece through its own checked slice
//! spends two compares, an add and a multiply per store (the stride is only known at run
//! time), about as many instructions as its shuffles; through [`RowsMut`] it spends none.

use core::marker::PhantomData;

/// `ROWS` rows of `W` bytes, `stride` bytes apart, borrowed mutably from one byte slice.
pub(super) struct RowsMut<'a, const ROWS: usize, const W: usize> {
    /// The first row's first byte.
    base: *mut u8,
    stride: usize,
    _bytes: PhantomData<&'a mut [u8]>,
}

impl<'a, const ROWS: usize, const W: usize> RowsMut<'a, ROWS, W> {
    /// The rows of `b` from byte `start` on, `stride` apart (at least `W`, so the rows do not
    /// overlap). Panics, as slicing does, where they do not all lie inside `b`.
    #[inline(always)]
    pub(super) fn new(b: &'a mut [u8], start: usize, stride: usize) -> Self {
        let span_B = span(stride, ROWS, W);
        Self {
            base: b[start..][..span_B].as_mut_ptr(),
            stride,
            _bytes: PhantomData,
        }
    }

    /// Row `r` (below `ROWS`).
    #[inline(always)]
    pub(super) fn row(&mut self, r: usize) -> &mut [u8; W] {
        assert!(r < ROWS, "row {r} of {ROWS}");
        // SAFETY: `new` checked that `(ROWS - 1) * stride + W` bytes from `base` lie inside
        // the borrowed slice, and r < ROWS, so row r's W bytes do; rows are `stride >= W`
        // apart, so they are disjoint, and the result borrows `self` mutably, so no two
        // rows are handed out at once.
        unsafe { &mut *self.base.add(r * self.stride).cast::<[u8; W]>() }
    }
}

/// `ROWS` rows of `W` bytes, `stride` bytes apart, borrowed from one byte slice.
pub(super) struct Rows<'a, const ROWS: usize, const W: usize> {
    /// The first row's first byte.
    base: *const u8,
    stride: usize,
    _bytes: PhantomData<&'a [u8]>,
}

impl<'a, const ROWS: usize, const W: usize> Rows<'a, ROWS, W> {
    /// The rows of `b` from byte `start` on, `stride` apart (at least `W`). Panics, as
    /// slicing does, where they do not all lie inside `b`.
    #[inline(always)]
    pub(super) fn new(b: &'a [u8], start: usize, stride: usize) -> Self {
        let span_B = span(stride, ROWS, W);
        Self {
            base: b[start..][..span_B].as_ptr(),
            stride,
            _bytes: PhantomData,
        }
    }

    /// Row `r` (below `ROWS`).
    #[inline(always)]
    pub(super) fn row(&self, r: usize) -> &'a [u8; W] {
        assert!(r < ROWS, "row {r} of {ROWS}");
        // SAFETY: `new` checked that `(ROWS - 1) * stride + W` bytes from `base` lie inside
        // the slice borrowed for 'a, and r < ROWS, so row r's W bytes do.
        unsafe { &*self.base.add(r * self.stride).cast::<[u8; W]>() }
    }
}

/// Bytes from the first row's start to the last row's end; panics on a stride below `w` or
/// a span past the address space (which no slice holds).
#[inline(always)]
fn span(stride: usize, rows: usize, w: usize) -> usize {
    assert!(
        rows > 0 && stride >= w,
        "{rows} rows of {w} bytes at stride {stride}"
    );
    (rows - 1)
        .checked_mul(stride)
        .and_then(|s| s.checked_add(w))
        .expect("rows span past the address space")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_the_slices_at_the_stride() {
        let mut b: Vec<u8> = (0..100).collect();
        let rows = Rows::<3, 4>::new(&b, 5, 10);
        assert_eq!(rows.row(0), &[5, 6, 7, 8]);
        assert_eq!(rows.row(2), &[25, 26, 27, 28]);
        let mut rows = RowsMut::<3, 4>::new(&mut b, 5, 10);
        rows.row(1).fill(0);
        assert_eq!(&b[14..20], &[14, 0, 0, 0, 0, 19]);
    }

    #[test]
    #[should_panic]
    fn rows_past_the_end_panic_when_made() {
        let b = [0u8; 64];
        // The third row would end at byte 2 * 30 + 8 = 68.
        let _ = Rows::<3, 8>::new(&b, 0, 30);
    }

    #[test]
    #[should_panic]
    fn a_row_past_the_count_panics() {
        let b = [0u8; 64];
        let rows = Rows::<2, 8>::new(&b, 0, 8);
        let r = std::hint::black_box(2);
        let _ = rows.row(r);
    }
}
