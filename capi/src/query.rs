//! Flush and queries.

use std::sync::Arc;

use sgx_pipe::{Query, RenderCondition};

use crate::context::{self, check_owner, sgx535_context, Locked};
use crate::fence::{self, sgx535_fence};
use crate::ffi::{check_out, flag, guard, write};
use crate::gallium;
use crate::handles::{self, Kind};
use crate::status::{invalid, sgx535_status, Result};

/// A query object.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(non_camel_case_types)]
pub struct sgx535_query {
    /// Opaque; 0 is none.
    pub id: u64,
}

/// `flush`: submits recorded work. With `fence` not NULL, returns a fence that signals when
/// all work submitted so far on this context has ended (an already signalled one when there
/// was none). `pipe_flush_flags` are hints.
#[no_mangle]
pub unsafe extern "C" fn sgx535_flush(
    ctx: sgx535_context,
    pipe_flush_flags: u32,
    fence: *mut sgx535_fence,
) -> sgx535_status {
    guard(|| {
        let c = context::get(ctx)?;
        let _ = pipe_flush_flags;
        let f = {
            let mut inner = c.lock();
            let f = inner.ctx.flush()?;
            f.or_else(|| inner.ctx.last_fence())
        };
        if !fence.is_null() {
            let id = fence::insert(c.owner.screen, f);
            // SAFETY: non-null; checked by write.
            unsafe { write(fence, "fence", sgx535_fence { id })? };
        }
        Ok(())
    })
}

fn get(c: &Locked, q: sgx535_query) -> Result<Arc<Query>> {
    let (v, owner) = handles::get::<Arc<Query>>(q.id, Kind::Query, "query")?;
    check_owner(owner, &c.owner, "query")?;
    Ok((*v).clone())
}

/// `create_query` (`PIPE_QUERY_*`; `index` 0).
#[no_mangle]
pub unsafe extern "C" fn sgx535_create_query(
    ctx: sgx535_context,
    pipe_query_type: u32,
    index: u32,
    out: *mut sgx535_query,
) -> sgx535_status {
    guard(|| {
        let c = context::get(ctx)?;
        check_out(out, "out")?;
        if index != 0 {
            return invalid(format!("query index {index}"));
        }
        let kind = gallium::query_type(pipe_query_type)?;
        let q = c.lock().ctx.create_query(kind);
        let id = handles::insert(Kind::Query, c.owner, q);
        // SAFETY: checked by check_out.
        unsafe { write(out, "out", sgx535_query { id }) }
    })
}

/// `destroy_query`.
#[no_mangle]
pub extern "C" fn sgx535_destroy_query(ctx: sgx535_context, q: sgx535_query) -> sgx535_status {
    guard(|| {
        let c = context::get(ctx)?;
        get(&c, q)?;
        handles::remove::<Arc<Query>>(q.id, Kind::Query, "query")?;
        Ok(())
    })
}

/// `begin_query`.
#[no_mangle]
pub extern "C" fn sgx535_begin_query(ctx: sgx535_context, q: sgx535_query) -> sgx535_status {
    guard(|| {
        let c = context::get(ctx)?;
        let q = get(&c, q)?;
        c.lock().ctx.begin_query(&q)?;
        Ok(())
    })
}

/// `end_query`.
#[no_mangle]
pub extern "C" fn sgx535_end_query(ctx: sgx535_context, q: sgx535_query) -> sgx535_status {
    guard(|| {
        let c = context::get(ctx)?;
        let q = get(&c, q)?;
        c.lock().ctx.end_query(&q)?;
        Ok(())
    })
}

/// `get_query_result`: `*ready` is 0 when `wait` is 0 and the result is not there yet.
#[no_mangle]
pub unsafe extern "C" fn sgx535_get_query_result(
    ctx: sgx535_context,
    q: sgx535_query,
    wait: u8,
    ready: *mut u8,
    result: *mut u64,
) -> sgx535_status {
    guard(|| {
        let c = context::get(ctx)?;
        let q = get(&c, q)?;
        check_out(ready, "ready")?;
        check_out(result, "result")?;
        let r = c.lock().ctx.get_query_result(&q, flag(wait))?;
        // SAFETY: checked by check_out.
        unsafe {
            write(ready, "ready", u8::from(r.is_some()))?;
            write(result, "result", r.unwrap_or(0))
        }
    })
}

/// `render_condition`: draws are skipped while the query's result equals `condition`
/// (id 0 turns the condition off). `pipe_render_cond_mode`: WAIT (0) / NO_WAIT (1) and their
/// BY_REGION forms (2, 3).
#[no_mangle]
pub extern "C" fn sgx535_render_condition(
    ctx: sgx535_context,
    q: sgx535_query,
    condition: u8,
    pipe_render_cond_mode: u32,
) -> sgx535_status {
    guard(|| {
        let c = context::get(ctx)?;
        if pipe_render_cond_mode > 3 {
            return invalid(format!("render condition mode {pipe_render_cond_mode}"));
        }
        let rc = if q.id == 0 {
            None
        } else {
            Some(RenderCondition {
                query: get(&c, q)?,
                condition: flag(condition),
                wait: pipe_render_cond_mode.is_multiple_of(2),
            })
        };
        c.lock().ctx.render_condition(rc)?;
        Ok(())
    })
}

/// `set_active_query_state`: pauses (0) or resumes counting of active queries.
#[no_mangle]
pub extern "C" fn sgx535_set_active_query_state(ctx: sgx535_context, enable: u8) -> sgx535_status {
    guard(|| {
        let c = context::get(ctx)?;
        c.lock().ctx.set_active_query_state(flag(enable));
        Ok(())
    })
}

/// `get_device_reset_status`: whether the device was reset since this context last asked, as
/// Gallium's `pipe_reset_status` (0 no reset, 1 this context's job was guilty, 2 innocent,
/// 3 unknown). A job that hung is ended by the watchdog, the device is reset, and its
/// context is guilty; a new context works after the reset.
#[no_mangle]
pub unsafe extern "C" fn sgx535_get_device_reset_status(
    ctx: sgx535_context,
    status: *mut u32,
) -> sgx535_status {
    guard(|| {
        let c = context::get(ctx)?;
        check_out(status, "status")?;
        let v = match c.lock().ctx.get_device_reset_status() {
            sgx_pipe::ResetStatus::NoReset => 0,
            sgx_pipe::ResetStatus::Guilty => 1,
            sgx_pipe::ResetStatus::Innocent => 2,
            sgx_pipe::ResetStatus::Unknown => 3,
        };
        // SAFETY: checked by check_out.
        unsafe { write(status, "status", v) }
    })
}
