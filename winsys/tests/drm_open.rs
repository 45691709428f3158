//! Opening a render node that is missing or is not a DRM device names the node.

use sgx_winsys::{DrmDevice, WinsysError};

#[test]
fn a_missing_node_is_named_in_the_error() {
    let path = std::path::Path::new("/nonexistent/dri/renderD200");
    let e = DrmDevice::open(path).err().expect("no such node");
    assert!(
        matches!(&e, WinsysError::Node { path, op: "opening the render node", .. } if path == "/nonexistent/dri/renderD200"),
        "{e:?}"
    );
    assert!(
        e.to_string()
            .starts_with("/nonexistent/dri/renderD200: opening"),
        "{e}"
    );
}

#[test]
fn a_file_that_is_not_a_drm_device_is_named_in_the_error() {
    let e = DrmDevice::open(std::path::Path::new("/dev/null"))
        .err()
        .expect("/dev/null is no render node");
    assert!(
        e.to_string().starts_with("/dev/null: DRM_IOCTL_VERSION"),
        "{e}"
    );
}
