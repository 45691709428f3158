//! Screens: one per device. Caps, formats, the timestamp and the device's counters.

use std::ffi::{c_char, CString};
use std::sync::Arc;

use sgx_pipe::{bind, ResourceTarget, Screen, ShaderCap};

use crate::ffi::{check_out, guard, write};
use crate::gallium;
use crate::handles::{self, Kind, Owner};
use crate::status::{sgx535_status, unsupported, Result};

/// A screen: a device and what it can do. Usable from any thread.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(non_camel_case_types)]
pub struct sgx535_screen {
    /// Opaque; 0 is no screen.
    pub id: u64,
}

/// Which device a screen runs on.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
#[allow(non_camel_case_types)]
pub struct sgx535_device_desc {
    /// `SGX535_DEVICE_*`.
    pub kind: u32,
    /// DRM: an open render-node fd, duplicated by the library (the caller keeps its own);
    /// -1 otherwise.
    pub fd: i32,
    /// DRM: a render node path (when `fd` is -1); REPLAY: the fixture file; else NULL.
    pub path: *const c_char,
}

pub(crate) struct ScreenObj {
    pub screen: Screen,
    pub name: CString,
}

// SAFETY: ScreenObj holds a Screen (Send + Sync) and a CString (Send + Sync); spelled out
// because the compiler cannot see through the device trait object on every toolchain.
unsafe impl Send for ScreenObj {}
// SAFETY: as above.
unsafe impl Sync for ScreenObj {}

/// The screen object behind a handle.
pub(crate) fn get(s: sgx535_screen) -> Result<Arc<ScreenObj>> {
    Ok(handles::get::<ScreenObj>(s.id, Kind::Screen, "screen")?.0)
}

/// Creates a screen on the device `desc` names (NULL: `SGX535_DEVICE_DEFAULT`).
#[no_mangle]
pub unsafe extern "C" fn sgx535_screen_create(
    desc: *const sgx535_device_desc,
    out: *mut sgx535_screen,
) -> sgx535_status {
    guard(|| {
        check_out(out, "out")?;
        // SAFETY: the caller's pointer, checked by read_opt.
        let d = unsafe { crate::ffi::read_opt(desc, "desc")? }.unwrap_or(sgx535_device_desc {
            kind: crate::device::SGX535_DEVICE_DEFAULT,
            fd: -1,
            path: std::ptr::null(),
        });
        let path = if d.path.is_null() {
            None
        } else {
            // SAFETY: non-null; the caller promises a NUL-terminated string.
            Some(unsafe { crate::ffi::string(d.path, "desc.path")? })
        };
        let dev = crate::device::open(d.kind, d.fd, path)?;
        let info = dev.info();
        let name = format!(
            "SGX535 ({})",
            match (info.backend, info.is_model) {
                (sgx_winsys::Backend::Drm, false) => "DRM",
                (sgx_winsys::Backend::Drm, true) => "DRM, device model",
                (sgx_winsys::Backend::Replay, _) => "device model, replay",
                (sgx_winsys::Backend::Sim, _) => "device model",
            }
        );
        let obj = ScreenObj {
            screen: Screen::new(dev),
            name: CString::new(name).expect("no NUL"),
        };
        let id = handles::insert(Kind::Screen, Owner::default(), obj);
        // The screen owns itself, so its objects can name it as their owner.
        // SAFETY: checked by check_out above.
        unsafe { write(out, "out", sgx535_screen { id })? };
        Ok(())
    })
}

/// Destroys a screen and everything made on it that is still alive (contexts, resources,
/// fences and their objects). Waits for the device to go idle.
#[no_mangle]
pub extern "C" fn sgx535_screen_destroy(screen: sgx535_screen) -> sgx535_status {
    guard(|| {
        let (obj, _) = handles::remove::<ScreenObj>(screen.id, Kind::Screen, "screen")?;
        let gone = handles::remove_owned(screen.id, 0);
        drop(gone);
        let dev = obj.screen.device().clone();
        drop(obj);
        // Jobs still queued hold buffers; let them finish before the device goes.
        let _ = dev.wait_idle(std::time::Duration::from_secs(5));
        Ok(())
    })
}

/// The screen's name (NUL-terminated, valid while the screen lives).
#[no_mangle]
pub unsafe extern "C" fn sgx535_screen_get_name(
    screen: sgx535_screen,
    name: *mut *const c_char,
) -> sgx535_status {
    guard(|| {
        let s = get(screen)?;
        // The CString lives as long as the screen's table entry.
        // SAFETY: the caller's output pointer, checked by write.
        unsafe { write(name, "name", s.name.as_ptr())? };
        Ok(())
    })
}

/// `get_param`: the value of a `PIPE_CAP_*`. SGX535_ERROR_UNSUPPORTED for a cap the library
/// has no answer for: the caller then uses Mesa's default (`u_pipe_screen_get_param_defaults`).
#[no_mangle]
pub unsafe extern "C" fn sgx535_screen_get_param(
    screen: sgx535_screen,
    pipe_cap: u32,
    value: *mut i32,
) -> sgx535_status {
    guard(|| {
        let s = get(screen)?;
        check_out(value, "value")?;
        let Some(cap) = gallium::cap(pipe_cap)? else {
            return unsupported(format!(
                "{}: no answer from the library (use the default)",
                gallium::cap_name(pipe_cap)
            ));
        };
        let v = i32::try_from(s.screen.get_param(cap)).unwrap_or(i32::MAX);
        // SAFETY: checked by check_out.
        unsafe { write(value, "value", v) }
    })
}

/// `get_paramf`: the value of a `PIPE_CAPF_*`.
#[no_mangle]
pub unsafe extern "C" fn sgx535_screen_get_paramf(
    screen: sgx535_screen,
    pipe_capf: u32,
    value: *mut f32,
) -> sgx535_status {
    guard(|| {
        let s = get(screen)?;
        check_out(value, "value")?;
        let cap = gallium::capf(pipe_capf)?;
        // SAFETY: checked by check_out.
        unsafe { write(value, "value", s.screen.get_paramf(cap)) }
    })
}

/// `get_shader_param`: every `PIPE_SHADER_CAP_*` of every `PIPE_SHADER_*` stage is answered;
/// stages the GPU lacks (geometry, tessellation, compute) answer 0 to everything.
#[no_mangle]
pub unsafe extern "C" fn sgx535_screen_get_shader_param(
    screen: sgx535_screen,
    pipe_shader_type: u32,
    pipe_shader_cap: u32,
    value: *mut i32,
) -> sgx535_status {
    guard(|| {
        let s = get(screen)?;
        check_out(value, "value")?;
        let stage = gallium::shader_stage(pipe_shader_type)?;
        let cap: Option<ShaderCap> = gallium::shader_cap(pipe_shader_cap)?;
        let v = match (stage, cap) {
            (Some(st), Some(c)) => s.screen.get_shader_param(st, c),
            _ => 0,
        };
        // SAFETY: checked by check_out.
        unsafe { write(value, "value", i32::try_from(v).unwrap_or(i32::MAX)) }
    })
}

/// The answer for a buffer bound as vertex or index data: vertex formats are their own set
/// (`VertexFormat`, some converted on the CPU), index formats are 8, 16 and 32-bit unsigned.
/// None when the question is not about those, or asks for other bindings too.
fn buffer_format_supported(
    pipe_format: u32,
    target: &Result<ResourceTarget>,
    pipe_bind: u32,
) -> Option<bool> {
    let vertex_index = bind::VERTEX_BUFFER | bind::INDEX_BUFFER;
    if !matches!(target, Ok(ResourceTarget::Buffer))
        || pipe_bind & vertex_index == 0
        || pipe_bind & !vertex_index != 0
    {
        return None;
    }
    let vertex_ok =
        pipe_bind & bind::VERTEX_BUFFER == 0 || gallium::vertex_format(pipe_format).is_ok();
    let index_ok = pipe_bind & bind::INDEX_BUFFER == 0 || gallium::index_format(pipe_format);
    Some(vertex_ok && index_ok)
}

/// `is_format_supported`. Formats the GPU does not know answer 0 (not an error).
#[no_mangle]
pub unsafe extern "C" fn sgx535_screen_is_format_supported(
    screen: sgx535_screen,
    pipe_format: u32,
    pipe_texture_target: u32,
    sample_count: u32,
    storage_sample_count: u32,
    pipe_bind: u32,
    supported: *mut u8,
) -> sgx535_status {
    guard(|| {
        let s = get(screen)?;
        check_out(supported, "supported")?;
        let samples = sample_count.max(storage_sample_count).max(1);
        let target = gallium::target(pipe_texture_target);
        let ok = if let Some(ok) = buffer_format_supported(pipe_format, &target, pipe_bind) {
            ok
        } else {
            match (gallium::format(pipe_format), target) {
                (Ok(f), Ok(t)) => s.screen.is_format_supported(f, t, pipe_bind, samples),
                (Err(e), _) | (_, Err(e))
                    if e.status == crate::status::SGX535_ERROR_UNSUPPORTED =>
                {
                    false
                }
                (Err(e), _) | (_, Err(e)) => return Err(e),
            }
        };
        // SAFETY: checked by check_out.
        unsafe { write(supported, "supported", u8::from(ok)) }
    })
}

/// `get_timestamp`: the GPU clock in nanoseconds (the model's clock on the model).
#[no_mangle]
pub unsafe extern "C" fn sgx535_screen_get_timestamp(
    screen: sgx535_screen,
    ns: *mut u64,
) -> sgx535_status {
    guard(|| {
        let s = get(screen)?;
        check_out(ns, "ns")?;
        let t = s.screen.get_timestamp();
        // SAFETY: checked by check_out.
        unsafe { write(ns, "ns", t) }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gallium_enums::PIPE_FORMATS;

    fn value(name: &str) -> u32 {
        PIPE_FORMATS
            .iter()
            .find(|(n, _)| *n == format!("PIPE_FORMAT_{name}"))
            .unwrap_or_else(|| panic!("{name}"))
            .1
    }

    /// The formats Mesa 22.3's u_vbuf checks (u_vbuf.c `vbuf_format_fallbacks`, 64-bit ones
    /// included: a compatibility context asks for them): any one refused keeps u_vbuf in
    /// front of every draw.
    #[rustfmt::skip]
    const U_VBUF_CHECKS: &[&str] = &[
        "R32_FIXED", "R32G32_FIXED", "R32G32B32_FIXED", "R32G32B32A32_FIXED",
        "R16_FLOAT", "R16G16_FLOAT", "R16G16B16_FLOAT", "R16G16B16A16_FLOAT",
        "R64_FLOAT", "R64G64_FLOAT", "R64G64B64_FLOAT", "R64G64B64A64_FLOAT",
        "R32_UNORM", "R32G32_UNORM", "R32G32B32_UNORM", "R32G32B32A32_UNORM",
        "R32_SNORM", "R32G32_SNORM", "R32G32B32_SNORM", "R32G32B32A32_SNORM",
        "R32_USCALED", "R32G32_USCALED", "R32G32B32_USCALED", "R32G32B32A32_USCALED",
        "R32_SSCALED", "R32G32_SSCALED", "R32G32B32_SSCALED", "R32G32B32A32_SSCALED",
        "R16_UNORM", "R16G16_UNORM", "R16G16B16_UNORM", "R16G16B16A16_UNORM",
        "R16_SNORM", "R16G16_SNORM", "R16G16B16_SNORM", "R16G16B16_SINT",
        "R16G16B16_UINT", "R16G16B16A16_SNORM", "R16_USCALED", "R16G16_USCALED",
        "R16G16B16_USCALED", "R16G16B16A16_USCALED", "R16_SSCALED", "R16G16_SSCALED",
        "R16G16B16_SSCALED", "R16G16B16A16_SSCALED", "R8_UNORM", "R8G8_UNORM",
        "R8G8B8_UNORM", "R8G8B8A8_UNORM", "R8_SNORM", "R8G8_SNORM",
        "R8G8B8_SNORM", "R8G8B8A8_SNORM", "R8_USCALED", "R8G8_USCALED",
        "R8G8B8_USCALED", "R8G8B8A8_USCALED", "R8_SSCALED", "R8G8_SSCALED",
        "R8G8B8_SSCALED", "R8G8B8A8_SSCALED",
    ];

    fn supported(name: &str, target: ResourceTarget, bind: u32) -> Option<bool> {
        buffer_format_supported(value(name), &Ok(target), bind)
    }

    #[test]
    fn buffers_take_every_vertex_format_u_vbuf_checks_and_the_index_formats() {
        let (vb, ib) = (bind::VERTEX_BUFFER, bind::INDEX_BUFFER);
        for name in U_VBUF_CHECKS
            .iter()
            .chain(&["R32G32B32_FLOAT", "B8G8R8A8_UNORM"])
        {
            assert_eq!(
                supported(name, ResourceTarget::Buffer, vb),
                Some(true),
                "{name}"
            );
            assert_eq!(
                supported(name, ResourceTarget::Buffer, ib),
                Some(false),
                "{name}"
            );
        }
        for name in ["R8_UINT", "R16_UINT", "R32_UINT"] {
            assert_eq!(
                supported(name, ResourceTarget::Buffer, ib),
                Some(true),
                "{name}"
            );
            assert_eq!(
                supported(name, ResourceTarget::Buffer, vb | ib),
                Some(false)
            );
        }
        // Not vertex formats of this driver (their GL extensions stay off).
        for name in ["R10G10B10A2_UNORM", "R32G32B32A32_SINT", "R11G11B10_FLOAT"] {
            assert_eq!(
                supported(name, ResourceTarget::Buffer, vb),
                Some(false),
                "{name}"
            );
        }
        // Other questions go to the general rule.
        assert_eq!(supported("R8_UINT", ResourceTarget::Texture2D, vb), None);
        let sampled = vb | bind::SAMPLER_VIEW;
        assert_eq!(supported("R8_UNORM", ResourceTarget::Buffer, sampled), None);
    }
}
