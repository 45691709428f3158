//! What a finished job reports: the unit names of faults and the per-job counters. Both are
//! the device model's types; the drm backend fills them from the kernel's JOB_INFO.

/// A GPU requester: the device model's, one type for the model, the backends and fixtures.
pub use sgx_sim::Unit;

/// Per-job counters of the GPU: the model's type, which the kernel's JOB_INFO reports too.
pub use sgx_sim::Counters;

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
