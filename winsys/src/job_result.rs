//! What a finished job reports: the unit names of faults and the model's per-job counters.
//! The winsys has its own copies of these (rather than the model's) because the drm backend
//! gets them from the kernel, not from the model.

use serde::Serialize;

/// A GPU requester: the device model's, one type for the model, the backends and fixtures.
pub use sgx_sim::Unit;

/// Per-job counters of the GPU (the model's, or the kernel's report of them).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Counters {
    /// Tiles the 3D phase rendered.
    pub tiles_rendered: u64,
    /// Tiles loaded from memory before rendering.
    pub tiles_loaded: u64,
    /// Tiles stored by the PBE.
    pub tiles_stored: u64,
    /// Pixels a pixel program ran for.
    pub pixels_shaded: u64,
    /// Texels fetched.
    pub texels_fetched: u64,
    /// USSE instructions executed.
    pub usse_instructions: u64,
    /// Bytes the PBE wrote.
    pub pbe_bytes_written: u64,
    /// Primitives the TA binned.
    pub prims_binned: u64,
    /// Parameter buffer bytes used.
    pub pb_bytes_used: u64,
}

impl Counters {
    /// The counters as an array in the uapi's `drm_sgx535_counter` order.
    pub fn to_array(&self) -> [u64; 9] {
        [
            self.tiles_rendered,
            self.tiles_loaded,
            self.tiles_stored,
            self.pixels_shaded,
            self.texels_fetched,
            self.usse_instructions,
            self.pbe_bytes_written,
            self.prims_binned,
            self.pb_bytes_used,
        ]
    }

    /// Counters from an array in the uapi's `drm_sgx535_counter` order.
    pub fn from_array(a: [u64; 9]) -> Counters {
        Counters {
            tiles_rendered: a[0],
            tiles_loaded: a[1],
            tiles_stored: a[2],
            pixels_shaded: a[3],
            texels_fetched: a[4],
            usse_instructions: a[5],
            pbe_bytes_written: a[6],
            prims_binned: a[7],
            pb_bytes_used: a[8],
        }
    }
}

/// Everything a backend learns when a job finishes (for the fence and the trace).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct JobReport {
    /// EVENT_STATUS bits raised.
    pub events: u32,
    /// EVENT_STATUS2 bits raised.
    pub events2: u32,
    /// BIF_INT_STAT as a fault left it (0 if none).
    pub bif_int_stat: u32,
    /// Counters.
    pub counters: Counters,
    /// Core clock when the job started.
    pub start_cycles: u64,
    /// Core clock when it ended.
    pub end_cycles: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unit_index_and_name_round_trip() {
        for (i, u) in Unit::ALL.iter().enumerate() {
            assert_eq!(u.index(), i as u32);
            assert_eq!(Unit::from_index(i as u32), Some(*u));
            assert_eq!(Unit::from_name(u.name()), Some(*u));
        }
        assert_eq!(Unit::from_index(9), None);
        assert_eq!(Unit::from_name("PBE"), None);
    }

    #[test]
    fn units_are_in_bif_order() {
        for u in Unit::ALL {
            // BIF_INT_STAT bits 1-9 name the faulting unit, in index order.
            assert_eq!(u.bif_bit(), 2 << u.index());
        }
    }

    #[test]
    fn counters_array_order_is_the_uapi_order() {
        let c = Counters::from_array([1, 2, 3, 4, 5, 6, 7, 8, 9]);
        assert_eq!(c.tiles_rendered, 1);
        assert_eq!(c.pb_bytes_used, 9);
        assert_eq!(c.pbe_bytes_written, 7);
        assert_eq!(c.to_array(), [1, 2, 3, 4, 5, 6, 7, 8, 9]);
    }
}
