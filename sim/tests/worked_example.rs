//! The field guide's worked example (hwdocs/guide/worked-example.md) runs on the model and
//! draws what the guide says: every word the guide lists is the job executed here.

use std::sync::Arc;

use sgx_hwdocs::example::{expected_target, textured_quad_job, ExampleJob};
use sgx_sim::{Gpu, HostMem, JobDesc, JobStatus, Perm};

/// Maps every buffer of `job` into `gpu` at its address (its bytes, then zeros to its size;
/// GPU-writable as the guide says); returns the target's memory.
fn map_buffers(gpu: &mut Gpu, job: &ExampleJob) -> Option<Arc<HostMem>> {
    let mut target = None;
    for b in &job.buffers {
        let buf = Arc::new(HostMem::with_bytes(b.size_B as usize, &b.bytes));
        let perm = Perm {
            read: true,
            write: b.gpu_writes,
        };
        gpu.map(b.gpu_va, buf.clone(), perm).unwrap();
        if b.gpu_va == job.target_va {
            target = Some(buf);
        }
    }
    target
}

#[test]
fn the_guides_textured_quad_renders_as_described() {
    let job = textured_quad_job().unwrap();
    let mut gpu = Gpu::new();
    let target = map_buffers(&mut gpu, &job);
    let r = gpu.run(&JobDesc::Render {
        ta_regs: job.ta_regs.clone(),
        td_regs: job.td_regs.clone(),
    });
    assert_eq!(r.status, JobStatus::Done, "{r:?}");
    let t = target.expect("the job's target buffer");
    let want = expected_target();
    // SAFETY: the job has finished; nothing else touches the buffer.
    let got = unsafe { t.to_vec() };
    let got = &got[..want.len()];
    assert_eq!(
        got,
        &want[..],
        "the 2x2 texture's texels fill the four 8x8 quadrants"
    );
    assert_eq!(r.counters.pbe_bytes_written, 16 * 16 * 4);
}

/// Runs the guide's job with the PRIM's vertex count replaced by `count`.
fn run_with_prim_count(count: u32) -> JobStatus {
    use sgx_hwdocs::ta_stream::CtrlPrim;
    let mut job = textured_quad_job().unwrap();
    let stream = job
        .buffers
        .iter_mut()
        .find(|b| b.name == "control stream")
        .expect("the control stream");
    // STATE is two dwords; the PRIM's four follow.
    let dw = |b: &[u8], i: usize| {
        u32::from_le_bytes([b[4 * i], b[4 * i + 1], b[4 * i + 2], b[4 * i + 3]])
    };
    let words = [
        dw(&stream.bytes, 2),
        dw(&stream.bytes, 3),
        dw(&stream.bytes, 4),
        dw(&stream.bytes, 5),
    ];
    let mut prim = CtrlPrim::unpack(&words).expect("a PRIM at dword 2");
    assert_eq!(prim.count, 4, "the guide's strip");
    prim.count = count;
    for (i, w) in prim.pack().unwrap().iter().enumerate() {
        stream.bytes[4 * (2 + i)..4 * (3 + i)].copy_from_slice(&w.to_le_bytes());
    }
    let mut gpu = Gpu::new();
    map_buffers(&mut gpu, &job);
    gpu.run(&JobDesc::Render {
        ta_regs: job.ta_regs.clone(),
        td_regs: job.td_regs.clone(),
    })
    .status
}

/// Found by fuzz/sim_stream: a PRIM count of 2^32-1 made the TA reserve 15 GB before reading
/// a vertex.
#[test]
fn a_prim_count_past_the_limit_is_bad_state_not_a_host_allocation() {
    let s = run_with_prim_count(u32::MAX);
    assert!(
        matches!(&s, JobStatus::BadState { reason, .. } if reason.contains("MAX_PRIM_VERTICES")),
        "{s:?}"
    );
}

#[test]
fn a_prim_count_past_the_vertex_buffer_faults_at_its_end() {
    // Within the limit, but far past the guide's four vertices: the TA faults on the first
    // vertex past the mapped buffer instead of reserving room for them all.
    let s = run_with_prim_count(sgx_hwdocs::limits::MAX_PRIM_VERTICES as u32);
    assert!(matches!(s, JobStatus::Fault(_)), "{s:?}");
}
