//! The field guide's worked example (hwdocs/guide/worked-example.md) runs on the model and
//! draws what the guide says: every word the guide lists is the job executed here.

use std::cell::UnsafeCell;
use std::sync::Arc;

use sgx_hwdocs::example::{expected_target, textured_quad_job};
use sgx_sim::{Backing, Gpu, JobDesc, JobStatus, Perm};

/// Plain memory for a buffer.
struct Buf(UnsafeCell<Vec<u8>>);

// SAFETY: the test touches a buffer only while no job runs (Gpu::run is synchronous).
unsafe impl Sync for Buf {}

// SAFETY: the Vec inside the UnsafeCell is never resized after creation, so its pointer and
// length are fixed for the Buf's life; the test reads it only while no job runs.
unsafe impl Backing for Buf {
    fn as_ptr(&self) -> *mut u8 {
        // SAFETY: the Vec is never resized after creation; its pointer stays valid.
        unsafe { (*self.0.get()).as_mut_ptr() }
    }
    fn len_b(&self) -> usize {
        // SAFETY: as above; reading the length does not race with the model's accesses.
        unsafe { (*self.0.get()).len() }
    }
}

#[test]
fn the_guides_textured_quad_renders_as_described() {
    let job = textured_quad_job().unwrap();
    let mut gpu = Gpu::new();
    let mut target = None;
    for b in &job.buffers {
        let mut v = vec![0u8; b.size_b as usize];
        v[..b.bytes.len()].copy_from_slice(&b.bytes);
        let buf = Arc::new(Buf(UnsafeCell::new(v)));
        let perm = Perm {
            read: true,
            write: b.gpu_writes,
        };
        gpu.map(b.gpu_va, buf.clone(), perm).unwrap();
        if b.gpu_va == job.target_va {
            target = Some(buf);
        }
    }
    let r = gpu.run(&JobDesc::Render {
        ta_regs: job.ta_regs.clone(),
        td_regs: job.td_regs.clone(),
    });
    assert_eq!(r.status, JobStatus::Done, "{r:?}");
    let t = target.unwrap();
    let want = expected_target();
    // SAFETY: the job has finished; nothing else touches the buffer.
    let got = unsafe { &(&*t.0.get())[..want.len()] };
    assert_eq!(
        got,
        &want[..],
        "the 2x2 texture's texels fill the four 8x8 quadrants"
    );
    assert_eq!(r.counters.pbe_bytes_written, 16 * 16 * 4);
}
