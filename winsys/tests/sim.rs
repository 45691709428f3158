//! The sim backend: dma-resv ordering, asynchronous fences, maps that wait and time out,
//! buffer lifetime, and many threads leaving nothing behind.

mod common;

use std::sync::Arc;
use std::time::Duration;

use common::{copy_job, fill, fill_job, pixels, row, LONG};
use sgx_hwdocs::Format;
use sgx_winsys::twod::{self, Rect, Surface};
use sgx_winsys::{
    Access, BoDesc, BoFlags, Device, FenceStatus, LiveCounts, SimDevice, SimOptions, WinsysError,
};

/// Runs an unrelated job to completion: the worker is free, so anything still pending is held
/// back by its dependencies, not by a busy worker.
fn worker_passes(dev: &SimDevice) {
    let other = row(dev, 1);
    fill(dev, &other, 0, 1).unwrap().wait(LONG).unwrap();
}

#[test]
fn reader_waits_for_writer() {
    let dev = SimDevice::new().unwrap();
    let (src, dst) = (row(&dev, 4), row(&dev, 4));
    let gate = dev.user_fence().unwrap();
    let w = dev
        .submit(fill_job(&dev, &src, 0, 0xAABB_CCDD).after(gate.fence()))
        .unwrap();
    let r = dev.submit(copy_job(&dev, &src, 0, &dst, 0, 1)).unwrap();
    assert!(dev.trace().by_fence(r.id()).unwrap().deps.contains(&w.id()));
    worker_passes(&dev);
    assert!(
        w.is_pending() && r.is_pending(),
        "the reader ran before its writer"
    );
    gate.signal();
    r.wait(LONG).unwrap();
    assert_eq!(w.status(), FenceStatus::Signalled);
    assert_eq!(pixels(&dst), vec![0xAABB_CCDD, 0, 0, 0]);
}

#[test]
fn writer_waits_for_readers() {
    let dev = SimDevice::new().unwrap();
    let (src, dst) = (row(&dev, 4), row(&dev, 4));
    let old: Vec<u8> = [1u32, 2, 3, 4]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    src.write(0, &old, LONG).unwrap();
    let gate = dev.user_fence().unwrap();
    let r = dev
        .submit(copy_job(&dev, &src, 0, &dst, 0, 4).after(gate.fence()))
        .unwrap();
    let w = dev.submit(fill_job(&dev, &src, 0, 0xDEAD)).unwrap();
    assert!(dev.trace().by_fence(w.id()).unwrap().deps.contains(&r.id()));
    worker_passes(&dev);
    assert!(
        r.is_pending() && w.is_pending(),
        "the writer ran before its reader"
    );
    gate.signal();
    w.wait(LONG).unwrap();
    assert_eq!(
        pixels(&dst),
        vec![1, 2, 3, 4],
        "the reader saw the writer's data"
    );
    assert_eq!(pixels(&src), vec![0xDEAD, 2, 3, 4]);
}

#[test]
fn readers_do_not_wait_for_each_other() {
    let dev = SimDevice::new().unwrap();
    let (src, a, b) = (row(&dev, 1), row(&dev, 1), row(&dev, 1));
    let gate = dev.user_fence().unwrap();
    let r1 = dev
        .submit(copy_job(&dev, &src, 0, &a, 0, 1).after(gate.fence()))
        .unwrap();
    let r2 = dev.submit(copy_job(&dev, &src, 0, &b, 0, 1)).unwrap();
    assert!(!dev
        .trace()
        .by_fence(r2.id())
        .unwrap()
        .deps
        .contains(&r1.id()));
    r2.wait(LONG).unwrap();
    assert!(r1.is_pending());
    gate.signal();
    r1.wait(LONG).unwrap();
}

#[test]
fn fences_complete_on_the_worker_thread() {
    let dev = SimDevice::new().unwrap();
    let dst = row(&dev, 1);
    let f = fill(&dev, &dst, 0, 9).unwrap();
    f.wait(LONG).unwrap();
    assert_eq!(f.signalled_by(), Some(dev.worker_thread()));
    assert_ne!(f.signalled_by(), Some(std::thread::current().id()));
    let t = dev.trace();
    let e = t.by_fence(f.id()).unwrap();
    assert_eq!(e.counters.unwrap().pbe_bytes_written, 4);
    assert!(e.end_cycles.unwrap() >= e.start_cycles.unwrap());
}

#[test]
fn maps_wait_by_dma_resv_rules() {
    let dev = SimDevice::new().unwrap();
    let (src, dst) = (row(&dev, 1), row(&dev, 1));
    let gate = dev.user_fence().unwrap();
    let f = dev
        .submit(copy_job(&dev, &src, 0, &dst, 0, 1).after(gate.fence()))
        .unwrap();
    // dst has a pending writer: both maps wait.
    for access in [Access::Read, Access::Write] {
        match dst.map(access, Duration::ZERO) {
            Err(WinsysError::Timeout { fence, .. }) => assert_eq!(fence, f.id()),
            other => panic!(
                "{access:?} map of a written buffer: {:?}",
                other.map(|_| ())
            ),
        }
    }
    // src has a pending reader: a read map goes ahead, a write map waits.
    assert!(src.map(Access::Read, Duration::ZERO).is_ok());
    assert!(matches!(
        src.map(Access::Write, Duration::ZERO),
        Err(WinsysError::Timeout { .. })
    ));
    // An unsynchronized map does not wait.
    assert!(dst.map_unsynchronized(Access::Read).is_ok());
    src.map_unsynchronized(Access::Write)
        .unwrap()
        .write_at(0, &0x1234_5678u32.to_le_bytes())
        .unwrap();
    gate.signal();
    let m = dst.map(Access::Read, LONG).unwrap();
    let mut px = [0u8; 4];
    m.read_at(0, &mut px).unwrap();
    assert_eq!(u32::from_le_bytes(px), 0x1234_5678);
    assert!(matches!(
        m.write_at(0, &px),
        Err(WinsysError::InvalidArgument(_))
    ));
    assert!(matches!(
        m.read_at(2, &mut px),
        Err(WinsysError::InvalidArgument(_))
    ));
}

#[test]
fn a_buffer_outlives_its_last_fence() {
    let dev = SimDevice::new().unwrap();
    let dst = row(&dev, 1);
    let gate = dev.user_fence().unwrap();
    let f = dev
        .submit(fill_job(&dev, &dst, 0, 5).after(gate.fence()))
        .unwrap();
    drop(dst);
    let live = dev.live();
    assert_eq!(
        (live.bos, live.jobs),
        (2, 1),
        "the pending job holds its target and commands"
    );
    gate.signal();
    f.wait(LONG).unwrap();
    drop(f);
    dev.wait_idle(LONG).unwrap();
    assert_eq!(dev.live(), LiveCounts::default());
}

#[test]
fn bad_jobs_and_buffers_are_errors() {
    let dev = SimDevice::new().unwrap();
    let other = SimDevice::new().unwrap();
    let ro = dev
        .create_bo(&BoDesc::new(64).flags(BoFlags {
            gpu_read_only: true,
            ..BoFlags::default()
        }))
        .unwrap();
    assert!(matches!(
        dev.submit(fill_job(&dev, &ro, 0, 1)),
        Err(WinsysError::InvalidJob(_))
    ));
    let foreign = row(&other, 1);
    assert!(matches!(
        dev.submit(fill_job(&dev, &row(&dev, 1), 0, 1).with_bo(&foreign, Access::Read)),
        Err(WinsysError::ForeignObject("buffer"))
    ));
    let gate = other.user_fence().unwrap();
    assert!(matches!(
        dev.submit(fill_job(&dev, &row(&dev, 1), 0, 1).after(gate.fence())),
        Err(WinsysError::ForeignObject("fence"))
    ));
    assert!(matches!(
        dev.create_bo(&BoDesc::new(0)),
        Err(WinsysError::InvalidArgument(_))
    ));
    assert!(matches!(
        dev.create_bo(&BoDesc::new(64).align(3)),
        Err(WinsysError::InvalidArgument(_))
    ));
    assert!(matches!(
        dev.create_bo(&BoDesc::new(1 << 33)),
        Err(WinsysError::OutOfMemory { .. })
    ));
    let big = dev.create_bo(&BoDesc::new(64).align(1 << 20)).unwrap();
    assert_eq!(big.gpu_addr() % (1 << 20), 0);
    assert_ne!(ro.gpu_addr(), 0);
}

#[test]
fn a_faulting_job_reports_unit_and_address() {
    let dev = SimDevice::new().unwrap();
    let dst = row(&dev, 1);
    let cmd = common::cmd_bo(&dev);
    // A fill whose target lies 1 GiB past the buffer: nothing is mapped there.
    let bad = Surface {
        bo: &dst,
        offset_B: 0x4000_0000,
        stride_B: 4,
        format: Format::B8G8R8A8_UNORM,
    };
    let c = twod::fill(&bad, Rect::new(0, 0, 1, 1), 7).unwrap();
    let f = dev
        .submit(
            twod::job(&cmd, &[c], LONG)
                .unwrap()
                .with_bo(&dst, Access::Write),
        )
        .unwrap();
    match f.wait(LONG) {
        Err(WinsysError::Job {
            error: sgx_winsys::JobError::Fault { unit, addr, write },
            ..
        }) => {
            assert_eq!(unit, sgx_winsys::Unit::TwoD);
            assert_eq!(addr, dst.gpu_addr() + 0x4000_0000);
            assert!(write);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn trace_is_written_as_json() {
    let dev = SimDevice::new().unwrap();
    let (src, dst) = (row(&dev, 2), row(&dev, 2));
    let w = fill(&dev, &src, 1, 3).unwrap();
    let r = dev.submit(copy_job(&dev, &src, 0, &dst, 0, 2)).unwrap();
    r.wait(LONG).unwrap();
    let mut out = Vec::new();
    dev.trace().write_json(&mut out).unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    let entries = v["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 2);
    let e = &entries[1];
    assert_eq!(e["kind"], "2d");
    assert_eq!(e["fence"], r.id());
    assert_eq!(e["result"]["status"], "done");
    assert_eq!(
        e["bos"].as_array().unwrap().len(),
        3,
        "commands, source, target"
    );
    assert_eq!(e["bos"][1]["access"], "read");
    assert_eq!(e["bos"][2]["access"], "write");
    assert_eq!(e["bos"][2]["gpu_addr"], dst.gpu_addr());
    assert_eq!(e["counters"]["pbe_bytes_written"], 8);
    assert!(e["duration_us"].is_u64());
    let deps = e["deps"].as_array().unwrap();
    assert!(deps.is_empty() || deps == &vec![serde_json::json!(w.id())]);
}

/// Eight threads submit 10,000 jobs each: every job reads a shared buffer and writes the
/// thread's own, with a fresh command buffer per job. Afterwards no buffer, fence, job or GPU
/// address range is left.
#[test]
fn eight_threads_ten_thousand_jobs_leave_nothing_behind() {
    const THREADS: u32 = 8;
    const JOBS: u32 = 10_000;
    let dev = Arc::new(
        SimDevice::with_options(SimOptions {
            trace_limit: Some(1000),
            ..SimOptions::default()
        })
        .unwrap(),
    );
    let shared = row(&*dev, THREADS);
    let init: Vec<u8> = (0..THREADS)
        .flat_map(|t| (0xC0DE_0000 + t).to_le_bytes())
        .collect();
    shared.write(0, &init, LONG).unwrap();
    let threads: Vec<_> = (0..THREADS)
        .map(|t| {
            let dev = Arc::clone(&dev);
            let shared = shared.clone();
            std::thread::spawn(move || {
                let dev: &SimDevice = &dev;
                let mine = row(dev, 2);
                let s = |bo| Surface {
                    bo,
                    offset_B: 0,
                    stride_B: 8,
                    format: Format::B8G8R8A8_UNORM,
                };
                let mut last = None;
                for i in 0..JOBS {
                    let cmd = dev.create_bo(&BoDesc::new(twod::list_size_B(2))).unwrap();
                    let copy =
                        twod::copy(&s(&shared), Rect::new(t, 0, 1, 1), &s(&mine), 0, 0).unwrap();
                    let fill = twod::fill(&s(&mine), Rect::new(1, 0, 1, 1), i).unwrap();
                    let job = twod::job(&cmd, &[copy, fill], LONG)
                        .unwrap()
                        .with_bo(&shared, Access::Read)
                        .with_bo(&mine, Access::Write);
                    last = Some(dev.submit(job).unwrap());
                }
                last.unwrap().wait(LONG).unwrap();
                assert_eq!(pixels(&mine), vec![0xC0DE_0000 + t, JOBS - 1]);
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    dev.wait_idle(LONG).unwrap();
    let trace = dev.trace();
    assert_eq!(
        trace.entries.len() as u64 + trace.dropped,
        u64::from(THREADS * JOBS)
    );
    assert!(trace
        .entries
        .iter()
        .all(|e| e.result == sgx_winsys::TraceResult::Done));
    drop(shared);
    assert_eq!(dev.live(), LiveCounts::default());
}

#[test]
fn a_buffer_that_outlives_its_device_is_lost() {
    let dev = SimDevice::new().unwrap();
    let bo = row(&dev, 4);
    bo.map(Access::Write, LONG).unwrap();
    drop(dev);
    assert!(matches!(
        bo.map_unsynchronized(Access::Read),
        Err(WinsysError::DeviceLost)
    ));
    assert!(matches!(
        bo.wait(Access::Read, LONG),
        Err(WinsysError::DeviceLost)
    ));
    assert!(matches!(
        bo.write_unsynchronized(0, &[1]),
        Err(WinsysError::DeviceLost)
    ));
    assert!(matches!(
        bo.read_unsynchronized(0, &mut [0]),
        Err(WinsysError::DeviceLost)
    ));
}

#[test]
fn unsynchronized_copies_land_where_a_mapping_puts_them() {
    let dev = SimDevice::new().unwrap();
    let bo = dev.create_bo(&BoDesc::new(64)).unwrap();
    bo.write(0, &[0xEE; 64], LONG).unwrap();
    bo.write_unsynchronized(61, &[1, 2, 3]).unwrap();
    let mut back = [0u8; 5];
    bo.read_unsynchronized(59, &mut back).unwrap();
    assert_eq!(back, [0xEE, 0xEE, 1, 2, 3]);
    let all = bo.read_all(LONG).unwrap();
    assert_eq!(&all[..61], &[0xEE; 61][..], "bytes before the write kept");
    // One byte past the end, or an offset that overflows: refused, nothing written.
    for (off, len) in [(62u64, 3usize), (u64::MAX, 1)] {
        assert!(matches!(
            bo.write_unsynchronized(off, &vec![9; len]),
            Err(WinsysError::InvalidArgument(_))
        ));
        assert!(matches!(
            bo.read_unsynchronized(off, &mut vec![0; len]),
            Err(WinsysError::InvalidArgument(_))
        ));
    }
    assert_eq!(bo.read_all(LONG).unwrap(), all);
}
