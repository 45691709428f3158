//! Shaders: create from TGSI text, bind, delete, in Gallium's shape. A shader belongs to the
//! screen (PIPE_CAP_SHAREABLE_SHADERS): any context of that screen may bind or delete it.

use std::ffi::c_char;
use std::sync::Arc;

use sgx_pipe::{ShaderStage, ShaderState};

use crate::context::{self, sgx535_context, Locked};
use crate::ffi::{check_out, guard, string, write};
use crate::handles::{self, Kind, Owner};
use crate::status::{invalid, sgx535_status, Error, Result, SGX535_ERROR_INVALID_HANDLE};

/// A compiled vertex or fragment shader.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(non_camel_case_types)]
pub struct sgx535_shader {
    /// Opaque; 0 is none.
    pub id: u64,
}

fn create_shader(
    ctx: sgx535_context,
    tgsi: *const c_char,
    out: *mut sgx535_shader,
    stage: ShaderStage,
) -> Result<()> {
    let c = context::get(ctx)?;
    check_out(out, "out")?;
    // SAFETY: the caller's NUL-terminated text, checked by string.
    let text = unsafe { string(tgsi, "tgsi")? };
    let (s, kind) = {
        let inner = c.lock();
        match stage {
            ShaderStage::Vertex => (inner.ctx.create_vs_state(&text)?, Kind::VertexShader),
            ShaderStage::Fragment => (inner.ctx.create_fs_state(&text)?, Kind::FragmentShader),
        }
    };
    // Shaders belong to the screen (PIPE_CAP_SHAREABLE_SHADERS): any of its contexts may bind
    // or delete them.
    let owner = Owner {
        screen: c.owner.screen,
        ctx: 0,
    };
    let id = handles::insert(kind, owner, s);
    // SAFETY: checked by check_out.
    unsafe { write(out, "out", sgx535_shader { id }) }
}

/// A shader of this context's screen (id 0: None).
fn shader(c: &Locked, h: u64, kind: Kind, what: &str) -> Result<Option<Arc<ShaderState>>> {
    if h == 0 {
        return Ok(None);
    }
    let (v, owner) = handles::get::<Arc<ShaderState>>(h, kind, what)?;
    if owner.screen != c.owner.screen {
        return Err(Error::new(
            SGX535_ERROR_INVALID_HANDLE,
            format!("{what} was made on another screen"),
        ));
    }
    Ok(Some((*v).clone()))
}

fn delete_shader(ctx: sgx535_context, h: u64, kind: Kind, what: &str) -> Result<()> {
    let c = context::get(ctx)?;
    if h == 0 {
        return invalid(format!("{what} is a null handle"));
    }
    shader(&c, h, kind, what)?;
    handles::remove::<Arc<ShaderState>>(h, kind, what)?;
    Ok(())
}

fn bind_shader(ctx: sgx535_context, s: sgx535_shader, stage: ShaderStage) -> Result<()> {
    let c = context::get(ctx)?;
    let (kind, what) = match stage {
        ShaderStage::Vertex => (Kind::VertexShader, "vertex shader"),
        ShaderStage::Fragment => (Kind::FragmentShader, "fragment shader"),
    };
    let v = shader(&c, s.id, kind, what)?;
    let mut inner = c.lock();
    match stage {
        ShaderStage::Vertex => inner.ctx.bind_vs_state(v.as_ref())?,
        ShaderStage::Fragment => inner.ctx.bind_fs_state(v.as_ref())?,
    }
    Ok(())
}

/// `create_vs_state` from TGSI text (tgsi_dump's dialect; floats may be hex).
#[no_mangle]
pub unsafe extern "C" fn sgx535_create_vs_state(
    ctx: sgx535_context,
    tgsi: *const c_char,
    out: *mut sgx535_shader,
) -> sgx535_status {
    guard(|| create_shader(ctx, tgsi, out, ShaderStage::Vertex))
}

/// Binds a vertex shader (id 0 unbinds).
#[no_mangle]
pub extern "C" fn sgx535_bind_vs_state(ctx: sgx535_context, s: sgx535_shader) -> sgx535_status {
    guard(|| bind_shader(ctx, s, ShaderStage::Vertex))
}

/// Deletes a vertex shader.
#[no_mangle]
pub extern "C" fn sgx535_delete_vs_state(ctx: sgx535_context, s: sgx535_shader) -> sgx535_status {
    guard(|| delete_shader(ctx, s.id, Kind::VertexShader, "vertex shader"))
}

/// `create_fs_state` from TGSI text.
#[no_mangle]
pub unsafe extern "C" fn sgx535_create_fs_state(
    ctx: sgx535_context,
    tgsi: *const c_char,
    out: *mut sgx535_shader,
) -> sgx535_status {
    guard(|| create_shader(ctx, tgsi, out, ShaderStage::Fragment))
}

/// Binds a fragment shader (id 0 unbinds).
#[no_mangle]
pub extern "C" fn sgx535_bind_fs_state(ctx: sgx535_context, s: sgx535_shader) -> sgx535_status {
    guard(|| bind_shader(ctx, s, ShaderStage::Fragment))
}

/// Deletes a fragment shader.
#[no_mangle]
pub extern "C" fn sgx535_delete_fs_state(ctx: sgx535_context, s: sgx535_shader) -> sgx535_status {
    guard(|| delete_shader(ctx, s.id, Kind::FragmentShader, "fragment shader"))
}
