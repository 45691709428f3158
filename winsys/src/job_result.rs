//! What a finished job reports: the unit names of faults and the model's per-job counters.
//! The winsys has its own copies of these (rather than the model's) because the drm backend
//! gets them from the kernel, not from the model.

use serde::{Deserialize, Serialize};

/// A GPU requester, in BIF_INT_STAT bit order (hw-facts: bits 1-9 name the faulting unit).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Unit {
    /// Cache.
    Cache,
    /// Tile accelerator.
    Ta,
    /// Vertex data master.
    Vdm,
    /// 2D core.
    #[serde(rename = "twod")]
    TwoD,
    /// Pixel back end.
    Pbe,
    /// Texture and shading processor.
    Tsp,
    /// Image synthesis processor.
    Isp,
    /// USSE / PDS.
    UssePds,
    /// Host.
    Host,
}

impl Unit {
    /// Every unit, in BIF_INT_STAT order.
    pub const ALL: [Unit; 9] = [
        Unit::Cache,
        Unit::Ta,
        Unit::Vdm,
        Unit::TwoD,
        Unit::Pbe,
        Unit::Tsp,
        Unit::Isp,
        Unit::UssePds,
        Unit::Host,
    ];

    /// Position in BIF_INT_STAT order (0 = cache); the uapi's `unit` field.
    pub fn index(self) -> u32 {
        Unit::ALL.iter().position(|&u| u == self).unwrap_or(0) as u32
    }

    /// The unit at `index` in BIF_INT_STAT order.
    pub fn from_index(index: u32) -> Option<Unit> {
        Unit::ALL.get(index as usize).copied()
    }

    /// The device model's name for the unit.
    pub fn to_model(self) -> sgx_sim::Unit {
        match self {
            Unit::Cache => sgx_sim::Unit::Cache,
            Unit::Ta => sgx_sim::Unit::Ta,
            Unit::Vdm => sgx_sim::Unit::Vdm,
            Unit::TwoD => sgx_sim::Unit::TwoD,
            Unit::Pbe => sgx_sim::Unit::Pbe,
            Unit::Tsp => sgx_sim::Unit::Tsp,
            Unit::Isp => sgx_sim::Unit::Isp,
            Unit::UssePds => sgx_sim::Unit::UssePds,
            Unit::Host => sgx_sim::Unit::Host,
        }
    }

    /// The unit the device model names `u`.
    pub fn from_model(u: sgx_sim::Unit) -> Unit {
        match u {
            sgx_sim::Unit::Cache => Unit::Cache,
            sgx_sim::Unit::Ta => Unit::Ta,
            sgx_sim::Unit::Vdm => Unit::Vdm,
            sgx_sim::Unit::TwoD => Unit::TwoD,
            sgx_sim::Unit::Pbe => Unit::Pbe,
            sgx_sim::Unit::Tsp => Unit::Tsp,
            sgx_sim::Unit::Isp => Unit::Isp,
            sgx_sim::Unit::UssePds => Unit::UssePds,
            sgx_sim::Unit::Host => Unit::Host,
        }
    }

    /// Lower-case name, as fixtures and traces spell it.
    pub fn name(self) -> &'static str {
        match self {
            Unit::Cache => "cache",
            Unit::Ta => "ta",
            Unit::Vdm => "vdm",
            Unit::TwoD => "twod",
            Unit::Pbe => "pbe",
            Unit::Tsp => "tsp",
            Unit::Isp => "isp",
            Unit::UssePds => "usse_pds",
            Unit::Host => "host",
        }
    }

    /// The unit named `name` (see [`Unit::name`]).
    pub fn from_name(name: &str) -> Option<Unit> {
        Unit::ALL.iter().copied().find(|u| u.name() == name)
    }
}

impl std::fmt::Display for Unit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

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
    fn model_units_round_trip_in_bif_order() {
        for u in Unit::ALL {
            assert_eq!(Unit::from_model(u.to_model()), u);
            // BIF_INT_STAT bits 1-9 name the faulting unit, in index order.
            assert_eq!(u.to_model().bif_bit(), 2 << u.index());
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
