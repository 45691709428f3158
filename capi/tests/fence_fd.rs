//! `sgx535_fence_get_fd`: a descriptor that becomes readable when the fence ends, on every
//! device. A thread holding only the fd sees the end; polls of 0 and 1 ms on a pending fence
//! time out, an infinite one returns at the end; each fd is the caller's, and none leaks.

mod common;

use std::sync::Mutex;
use std::time::{Duration, Instant};

use common::*;
use sgx535::*;

/// Polls `fd` for POLLIN for up to `timeout_ms` (-1: forever); true when readable.
fn readable(fd: i32, timeout_ms: i32) -> bool {
    let mut p = libc::pollfd {
        fd,
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: one valid pollfd.
    let n = unsafe { libc::poll(&mut p, 1, timeout_ms) };
    assert!(n >= 0, "poll: {}", std::io::Error::last_os_error());
    n == 1 && p.revents & libc::POLLIN != 0
}

/// The tests count the process's descriptors: one at a time.
static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

fn open_fds() -> usize {
    std::fs::read_dir("/proc/self/fd").unwrap().count()
}

fn flush_clear(c: sgx535_context) -> sgx535_fence {
    let mut f = sgx535_fence { id: 0 };
    // SAFETY: valid pointers to locals.
    unsafe {
        ok(sgx535_clear(
            c,
            PIPE_CLEAR_COLOR0,
            std::ptr::null(),
            [0.5f32; 4].as_ptr(),
            1.0,
            0,
        ));
        ok(sgx535_flush(c, 0, &mut f));
    }
    f
}

fn get_fd(s: sgx535_screen, f: sgx535_fence) -> i32 {
    let mut fd = -1;
    // SAFETY: a valid pointer to a local.
    ok(unsafe { sgx535_fence_get_fd(s, f, &mut fd) });
    assert!(fd >= 0);
    fd
}

fn close(fd: i32) {
    // SAFETY: closes a descriptor this test owns.
    assert_eq!(unsafe { libc::close(fd) }, 0);
}

#[test]
fn a_thread_holding_only_the_fd_sees_a_hung_job_end() {
    let _serial = serial();
    let before = open_fds();
    // Job 1 hangs; the replay device's watchdog ends it after its budget (2 s).
    let (s, c) = replay("hang_job.json");
    target(s, c, 16, 16);
    assert_eq!(clear_and_finish(s, c, [1.0; 4]), (SGX535_OK, 1));
    let f = flush_clear(c);
    let fd = get_fd(s, f);
    assert!(!readable(fd, 0), "timeout 0 on a pending fence");
    let t = Instant::now();
    assert!(!readable(fd, 1), "timeout 1 ms on a pending fence");
    assert!(t.elapsed() >= Duration::from_millis(1));
    let waiter = std::thread::spawn(move || {
        let t = Instant::now();
        let r = readable(fd, -1);
        (r, t.elapsed())
    });
    let (seen, waited) = waiter.join().unwrap();
    assert!(seen, "the infinite poll returns readable");
    assert!(
        waited >= Duration::from_millis(500),
        "it waited for the watchdog: {waited:?}"
    );
    // The fd says that the job ended; the fence says how.
    let mut done = 0u8;
    // SAFETY: a valid pointer to a local.
    let st = unsafe { sgx535_fence_finish(s, f, 0, &mut done) };
    assert_ne!(st, SGX535_OK, "the hung job's fence reports an error");
    assert_eq!(done, 1);
    assert!(readable(fd, 0), "it stays readable");
    close(fd);
    ok(sgx535_fence_destroy(f));
    ok(sgx535_screen_destroy(s));
    assert_eq!(open_fds(), before, "no descriptor left behind");
}

#[test]
fn fds_of_finished_fences_are_readable_and_every_one_is_closed() {
    let _serial = serial();
    let before = open_fds();
    let (s, c) = model();
    target(s, c, 16, 16);
    for _ in 0..50 {
        let f = flush_clear(c);
        let a = get_fd(s, f);
        let b = get_fd(s, f);
        assert_ne!(a, b, "each call gives a new descriptor");
        assert!(readable(a, -1));
        assert!(readable(b, 0));
        close(a);
        close(b);
        ok(sgx535_fence_destroy(f));
    }
    // A flush with no work gives a fence with nothing behind it: readable at once.
    let mut f = sgx535_fence { id: 0 };
    // SAFETY: a valid pointer to a local.
    ok(unsafe { sgx535_flush(c, 0, &mut f) });
    let fd = get_fd(s, f);
    assert!(readable(fd, 0));
    close(fd);
    ok(sgx535_fence_destroy(f));
    ok(sgx535_screen_destroy(s));
    assert_eq!(open_fds(), before, "no descriptor left behind");
}

#[test]
fn bad_arguments_are_refused() {
    let _serial = serial();
    let (s, c) = model();
    target(s, c, 16, 16);
    let f = flush_clear(c);
    // SAFETY: a null out-pointer, refused.
    let st = unsafe { sgx535_fence_get_fd(s, f, std::ptr::null_mut()) };
    assert_eq!(st, SGX535_ERROR_INVALID_ARGUMENT);
    let (other, _) = model();
    let mut fd = -1;
    // SAFETY: a valid pointer to a local.
    let st = unsafe { sgx535_fence_get_fd(other, f, &mut fd) };
    assert_eq!(st, SGX535_ERROR_INVALID_HANDLE);
    assert_eq!(fd, -1);
    ok(sgx535_fence_destroy(f));
    // SAFETY: a valid pointer to a local.
    let st = unsafe { sgx535_fence_get_fd(s, f, &mut fd) };
    assert_eq!(st, SGX535_ERROR_INVALID_HANDLE);
    ok(sgx535_screen_destroy(other));
    ok(sgx535_screen_destroy(s));
}
