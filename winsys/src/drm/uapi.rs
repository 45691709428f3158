//! The sgx535 uapi (include/drm-uapi/sgx535_drm.h): bindgen's structs and constants, and the
//! ioctl request numbers the header's DRM_IOCTL_SGX535_* macros stand for (bindgen cannot
//! expand function-like macros, so they are computed here as drm-ffi does).

use nix::sys::ioctl::ioctl_num_type;

/// Generated from the header by bindgen; committed, regenerated with the `use_bindgen` feature.
#[allow(
    non_camel_case_types,
    non_upper_case_globals,
    non_snake_case,
    dead_code,
    missing_docs,
    clippy::all,
    clippy::undocumented_unsafe_blocks
)]
pub mod bindings {
    #[cfg(not(feature = "use_bindgen"))]
    include!("bindings.rs");
    #[cfg(feature = "use_bindgen")]
    include!(concat!(env!("OUT_DIR"), "/bindings.rs"));
}

pub use bindings::*;

/// An ioctl request number.
pub type Request = ioctl_num_type;

macro_rules! request {
    (rw, $nr:expr, $t:ty) => {
        nix::request_code_readwrite!(
            DRM_IOCTL_BASE,
            DRM_COMMAND_BASE + $nr,
            std::mem::size_of::<$t>()
        )
    };
    (w, $nr:expr, $t:ty) => {
        nix::request_code_write!(
            DRM_IOCTL_BASE,
            DRM_COMMAND_BASE + $nr,
            std::mem::size_of::<$t>()
        )
    };
    (r, $nr:expr, $t:ty) => {
        nix::request_code_read!(
            DRM_IOCTL_BASE,
            DRM_COMMAND_BASE + $nr,
            std::mem::size_of::<$t>()
        )
    };
}

/// DRM_IOCTL_SGX535_GET_PARAM.
pub const IOCTL_GET_PARAM: Request = request!(rw, DRM_SGX535_GET_PARAM, drm_sgx535_get_param);
/// DRM_IOCTL_SGX535_GEM_CREATE.
pub const IOCTL_GEM_CREATE: Request = request!(rw, DRM_SGX535_GEM_CREATE, drm_sgx535_gem_create);
/// DRM_IOCTL_SGX535_GEM_INFO.
pub const IOCTL_GEM_INFO: Request = request!(rw, DRM_SGX535_GEM_INFO, drm_sgx535_gem_info);
/// DRM_IOCTL_SGX535_GEM_SUBMIT.
pub const IOCTL_GEM_SUBMIT: Request = request!(rw, DRM_SGX535_GEM_SUBMIT, drm_sgx535_gem_submit);
/// DRM_IOCTL_SGX535_GEM_WAIT.
pub const IOCTL_GEM_WAIT: Request = request!(w, DRM_SGX535_GEM_WAIT, drm_sgx535_gem_wait);
/// DRM_IOCTL_SGX535_CTX_CREATE.
pub const IOCTL_CTX_CREATE: Request = request!(r, DRM_SGX535_CTX_CREATE, drm_sgx535_ctx_create);
/// DRM_IOCTL_SGX535_CTX_FREE.
pub const IOCTL_CTX_FREE: Request = request!(w, DRM_SGX535_CTX_FREE, drm_sgx535_ctx_free);
/// DRM_IOCTL_SGX535_JOB_INFO.
pub const IOCTL_JOB_INFO: Request = request!(rw, DRM_SGX535_JOB_INFO, drm_sgx535_job_info);
/// DRM_IOCTL_SGX535_CTX_RESET_STATUS.
pub const IOCTL_CTX_RESET_STATUS: Request =
    request!(rw, DRM_SGX535_CTX_RESET_STATUS, drm_sgx535_ctx_reset_status);

/// The driver name as text.
pub fn driver_name() -> &'static str {
    std::str::from_utf8(&SGX535_DRIVER_NAME[..SGX535_DRIVER_NAME.len() - 1]).unwrap_or("sgx535")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The request numbers, worked out by hand from Linux's _IOC layout
    /// (dir << 30 | size << 16 | type << 8 | nr) for the header's macros.
    #[test]
    fn request_numbers_match_the_header_macros() {
        assert_eq!(IOCTL_GET_PARAM, 0xC010_6440);
        assert_eq!(IOCTL_GEM_CREATE, 0xC010_6441);
        assert_eq!(IOCTL_GEM_INFO, 0xC010_6442);
        assert_eq!(IOCTL_GEM_SUBMIT, 0xC058_6443);
        assert_eq!(IOCTL_GEM_WAIT, 0x4010_6444);
        assert_eq!(IOCTL_CTX_CREATE, 0x8008_6445);
        assert_eq!(IOCTL_CTX_FREE, 0x4008_6446);
        assert_eq!(IOCTL_JOB_INFO, 0xC0E0_6447);
        assert_eq!(IOCTL_CTX_RESET_STATUS, 0xC010_6448);
        assert_eq!(driver_name(), "sgx535");
    }

    /// With `use_bindgen`, the bindings were just regenerated from the header: they must equal
    /// the committed file (regenerate and copy it over when the header changes).
    #[cfg(feature = "use_bindgen")]
    #[test]
    fn committed_bindings_equal_regenerated_ones() {
        let fresh = include_str!(concat!(env!("OUT_DIR"), "/bindings.rs"));
        let committed = include_str!("bindings.rs");
        assert!(
            fresh == committed,
            "src/drm/bindings.rs is stale: copy {}/bindings.rs over it",
            env!("OUT_DIR")
        );
    }
}
