//! Contexts: Gallium's `pipe_context`, one thread at a time. Every object made on a context
//! (state objects, shaders, views, surfaces, transfers, queries) goes when the context goes.

use std::sync::Arc;

use sgx_blitter::Blitter;
use sgx_pipe::{Context, Resource};

use crate::call_lock::{CallGuard, CallLock};
use crate::ffi::{check_out, guard, write};
use crate::handles::{self, Kind, Owner};
use crate::screen::{self, sgx535_screen};
use crate::status::{sgx535_status, Error, Result, SGX535_ERROR_INVALID_HANDLE};

/// A rendering context. Use it from one thread at a time.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(non_camel_case_types)]
pub struct sgx535_context {
    /// Opaque; 0 is no context.
    pub id: u64,
}

/// State the library keeps for Gallium calls the pipe has no home for.
#[derive(Default)]
pub(crate) struct Extra {
    pub clip_planes: [[f32; 4]; 8],
    /// The last indexed draw's index buffer, kept so that the next draw from it changes no
    /// reference count (drawoverhead's display lists draw from one index buffer; a count
    /// change per draw was measurable). Held as a bound index buffer would be: until a draw
    /// from another buffer, or the context's end.
    pub index: Option<Arc<Resource>>,
}

pub(crate) struct CtxInner {
    pub ctx: Context,
    blitter: Option<Blitter>,
    pub extra: Extra,
}

impl CtxInner {
    /// The blitter, made on first use (its shaders compile then).
    pub fn blitter(&mut self) -> Result<(&mut Context, &Blitter)> {
        if self.blitter.is_none() {
            self.blitter = Some(Blitter::new(&self.ctx)?);
        }
        Ok((&mut self.ctx, self.blitter.as_ref().expect("made above")))
    }
}

pub(crate) struct CtxObj {
    inner: CallLock<CtxInner>,
}

// SAFETY: the Context is only reached through the lock, which serialises threads; the
// ABI's contract (one thread at a time) makes the lock uncontended in correct programs.
unsafe impl Send for CtxObj {}
// SAFETY: as above.
unsafe impl Sync for CtxObj {}

/// A context (lent by this thread's handle cache: no reference count changes) and the ids
/// its objects are owned by.
pub(crate) struct Locked {
    obj: handles::Lent<CtxObj>,
    pub owner: Owner,
}

impl Locked {
    pub fn lock(&self) -> CallGuard<'_, CtxInner> {
        // A panic inside a call (caught at the ABI) may have left the pipe mid-update; the
        // pipe's own state checks run on the next draw, so the context stays usable.
        self.obj.inner.lock()
    }
}

/// The context behind a handle.
pub(crate) fn get(c: sgx535_context) -> Result<Locked> {
    let (obj, owner) = handles::lend::<CtxObj>(c.id, Kind::Context, "context")?;
    Ok(Locked {
        obj,
        owner: Owner {
            screen: owner.screen,
            ctx: c.id,
        },
    })
}

/// Checks that an object's owner is this context.
pub(crate) fn check_owner(obj: Owner, ctx: &Owner, what: &str) -> Result<()> {
    if obj.ctx != ctx.ctx {
        return Err(Error::new(
            SGX535_ERROR_INVALID_HANDLE,
            format!("{what} was made on another context"),
        ));
    }
    Ok(())
}

/// Creates a context on a screen.
#[no_mangle]
pub unsafe extern "C" fn sgx535_context_create(
    screen: sgx535_screen,
    out: *mut sgx535_context,
) -> sgx535_status {
    guard(|| {
        let s = screen::get(screen)?;
        check_out(out, "out")?;
        let obj = CtxObj {
            inner: CallLock::new(CtxInner {
                ctx: s.screen.context_create(),
                blitter: None,
                extra: Extra::default(),
            }),
        };
        let id = handles::insert(
            Kind::Context,
            Owner {
                screen: screen.id,
                ctx: 0,
            },
            obj,
        );
        // SAFETY: checked by check_out.
        unsafe { write(out, "out", sgx535_context { id }) }
    })
}

/// Destroys a context and every object made on it; pending work is submitted first.
#[no_mangle]
pub extern "C" fn sgx535_context_destroy(ctx: sgx535_context) -> sgx535_status {
    guard(|| {
        let (obj, _) = handles::remove::<CtxObj>(ctx.id, Kind::Context, "context")?;
        let gone = handles::remove_owned(0, ctx.id);
        drop(gone);
        let flushed = obj.inner.lock().ctx.flush();
        drop(obj);
        flushed.map(|_| ()).map_err(Into::into)
    })
}
