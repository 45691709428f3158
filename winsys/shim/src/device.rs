//! The fake kernel driver: the sgx535 uapi served by the device model. One model GPU per
//! process; each open of the node is a DRM file with its own GEM handles, syncobjs and contexts.
//!
//! Jobs run in submission order, as on one in-order ring, at the first moment their in-syncobjs
//! are signalled (usually inside the submit ioctl). A lost device fails every later ioctl with
//! ENODEV.
//!
//! A hung job stalls everything behind it until the watchdog sees it past the hang budget
//! (`SGX535_SHIM_HANG_BUDGET_MS`, default `sgx_winsys::DEFAULT_HANG_BUDGET`); an MMU fault
//! resets at once. A reset ends the job (HANG, or FAULT as it was), makes its context guilty,
//! cancels that context's queued jobs (CANCELED) and lets the rest run: the same rules as the
//! sim backend's worker. The shim has no thread of its own, so its watchdog runs inside the
//! ioctls: every call first checks the hung job's deadline, and every wait sleeps no later
//! than it (the drm backend's reaper always waits while a job is in flight).

use std::collections::{HashMap, HashSet, VecDeque};
use std::ffi::c_int;
use std::os::fd::{AsRawFd, BorrowedFd};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::Duration;

use sgx_sim::{Gpu, JobDesc, JobStatus, Perm};
use sgx_winsys::drm::uapi::*;
use sgx_winsys::replay::Fixture;
use sgx_winsys::va::{VaAllocator, PAGE_B, VA_END, VA_START};
use sgx_winsys::{Faults, JobFault};

mod jobs;
mod sync;

use crate::memfd::{file_ident, import_backing, new_backing, MemfdBacking};
use crate::real::real;

/// A kernel error number.
pub type Errno = c_int;
/// An ioctl's result.
pub type IoResult = Result<(), Errno>;

/// mmap offsets: buffer id << 32, so each buffer has its own page-aligned window.
const OFFSET_SHIFT: u32 = 32;

/// What a syncobj holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SyncPoint {
    /// No fence.
    Empty,
    /// A signalled stub fence.
    Signalled,
    /// The fence of a job.
    Job(u64),
}

#[derive(Default)]
struct FileState {
    handles: HashMap<u32, u64>,
    next_handle: u32,
    syncobjs: HashMap<u32, SyncPoint>,
    next_syncobj: u32,
    ctxs: HashSet<u32>,
}

struct BoObj {
    va: u32,
    size_B: u64,
    gpu_read_only: bool,
    backing: Arc<MemfdBacking>,
    /// GEM handles and queued jobs referring to it.
    refs: u32,
    last_write: u64,
    last_use: u64,
}

struct JobRec {
    /// JOB_INFO read it after it ended: the record may go.
    reaped: bool,
    desc: Option<JobDesc>,
    /// The context that submitted it.
    ctx: u32,
    bos: Vec<u64>,
    deps: Vec<SyncPoint>,
    index: u64,
    info: drm_sgx535_job_info,
}

pub struct State {
    gpu: Gpu,
    va: VaAllocator,
    files: HashMap<c_int, FileState>,
    /// Duplicates of node files (dup, fcntl F_DUPFD): fd -> the fd whose FileState they share.
    dups: HashMap<c_int, c_int>,
    bos: HashMap<u64, BoObj>,
    next_bo: u64,
    /// Records of jobs from id `first_job` on; older ones ended and were retired.
    jobs: VecDeque<JobRec>,
    first_job: u64,
    queue: VecDeque<u64>,
    fixture: Option<Fixture>,
    submissions: u64,
    allocations: u64,
    accepted: u64,
    next_ctx: u32,
    lost: bool,
    /// The job that hung and when it started (CLOCK_MONOTONIC ns): the GPU runs nothing
    /// more until the watchdog resets it.
    hung: Option<(u64, i64)>,
    hang_budget_ns: i64,
    /// GPU resets so far.
    resets: u32,
    /// Resets each context caused.
    guilty: HashMap<u32, u32>,
    /// Sync files handed out (SYNCOBJ_HANDLE_TO_FD with EXPORT_SYNC_FILE): an eventfd each,
    /// written once when its fence ends.
    sync_files: HashMap<c_int, SyncFile>,
}

/// An exported sync file: the fence it holds, and whether its eventfd was written.
struct SyncFile {
    point: SyncPoint,
    woken: bool,
    /// The fence's end status, kept once it ended: the job's record may be retired while the
    /// file lives (a kernel's sync file holds its fence, error included).
    status: Option<i32>,
}

/// The shim's device: state under one lock, a condvar for waits.
pub struct Shim {
    st: Mutex<State>,
    cv: Condvar,
}

fn now_ns() -> i64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: ts is a valid timespec to write to.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec * 1_000_000_000 + ts.tv_nsec
}

/// Copies a user array.
///
/// # Safety
/// `ptr` must point at `n` readable `T`s when `n > 0`.
unsafe fn user_slice<'a, T>(ptr: u64, n: u32) -> Result<&'a [T], Errno> {
    if n == 0 {
        return Ok(&[]);
    }
    if ptr == 0 {
        return Err(libc::EFAULT);
    }
    // SAFETY: the caller guarantees ptr points at n Ts.
    Ok(unsafe { std::slice::from_raw_parts(ptr as *const T, n as usize) })
}

fn set_reason(info: &mut drm_sgx535_job_info, text: &str) {
    let n = text.len().min(info.reason.len() - 1);
    info.reason[..n].copy_from_slice(&text.as_bytes()[..n]);
    info.reason[n] = 0;
}

impl Shim {
    pub fn new(fixture: Option<Fixture>, hang_budget: Duration) -> Shim {
        Shim {
            st: Mutex::new(State {
                gpu: Gpu::new(),
                va: VaAllocator::new(VA_START, VA_END),
                files: HashMap::new(),
                dups: HashMap::new(),
                bos: HashMap::new(),
                next_bo: 1,
                jobs: VecDeque::new(),
                first_job: 1,
                queue: VecDeque::new(),
                fixture,
                submissions: 0,
                allocations: 0,
                accepted: 0,
                next_ctx: 1,
                lost: false,
                hung: None,
                hang_budget_ns: hang_budget.as_nanos().min(i64::MAX as u128) as i64,
                resets: 0,
                guilty: HashMap::new(),
                sync_files: HashMap::new(),
            }),
            cv: Condvar::new(),
        }
    }

    /// What the fake kernel holds now.
    pub fn live(&self) -> crate::Sgx535ShimLive {
        let st = self.lock();
        crate::Sgx535ShimLive {
            bos: st.bos.len() as u64,
            va_B: st.va.allocated_B(),
            syncobjs: st.files.values().map(|f| f.syncobjs.len() as u64).sum(),
            job_records: st.jobs.len() as u64,
            files: st.files.len() as u64,
        }
    }

    pub fn lock(&self) -> MutexGuard<'_, State> {
        // Every handler leaves the state consistent before anything can panic.
        self.st.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn open_file(&self, fd: c_int) {
        self.lock().files.insert(
            fd,
            FileState {
                next_handle: 1,
                next_syncobj: 1,
                ..FileState::default()
            },
        );
    }

    pub fn is_ours(&self, fd: c_int) -> bool {
        let st = self.lock();
        st.files.contains_key(&st.canon(fd))
    }

    /// Records `new` as a duplicate of node file `fd`: one open file, as after dup(2).
    pub fn dup_file(&self, fd: c_int, new: c_int) {
        let mut st = self.lock();
        let canon = st.canon(fd);
        if st.files.contains_key(&canon) && new != canon {
            st.dups.insert(new, canon);
        }
    }

    /// Forgets a file: its handles let go of their buffers.
    pub fn close_file(&self, fd: c_int) -> bool {
        let mut st = self.lock();
        if st.sync_files.remove(&fd).is_some() {
            return true;
        }
        if st.dups.remove(&fd).is_some() {
            return true;
        }
        // The file stays open while a duplicate does: the state moves to one of them.
        if let Some(&heir) = st.dups.iter().find(|(_, &c)| c == fd).map(|(d, _)| d) {
            let Some(f) = st.files.remove(&fd) else {
                return false;
            };
            st.files.insert(heir, f);
            st.dups.remove(&heir);
            for c in st.dups.values_mut() {
                if *c == fd {
                    *c = heir;
                }
            }
            return true;
        }
        let Some(f) = st.files.remove(&fd) else {
            return false;
        };
        for bo in f.handles.into_values() {
            st.unref(bo);
        }
        true
    }

    /// The memfd and length to map for an mmap of `len` bytes at `offset` on file `fd`.
    pub fn mmap_target(&self, fd: c_int, offset: i64, len: usize) -> Result<c_int, Errno> {
        let st = self.lock();
        let f = st.files.get(&st.canon(fd)).ok_or(libc::EBADF)?;
        let id = (offset as u64) >> OFFSET_SHIFT;
        if offset < 0 || (offset as u64) & ((1 << OFFSET_SHIFT) - 1) != 0 {
            return Err(libc::EINVAL);
        }
        if !f.handles.values().any(|&b| b == id) {
            return Err(libc::EINVAL);
        }
        let bo = st.bos.get(&id).ok_or(libc::EINVAL)?;
        if len as u64 > VaAllocator::rounded_B(bo.size_B) {
            return Err(libc::EINVAL);
        }
        Ok(bo.backing.fd().as_raw_fd())
    }

    /// Serves one ioctl on file `fd`.
    ///
    /// # Safety
    /// `arg` must point at the struct the request encodes (its size is in the request).
    pub unsafe fn ioctl(&self, fd: c_int, request: std::ffi::c_ulong, arg: *mut u8) -> IoResult {
        // c_ulong is 32 bits on 32-bit targets.
        #[allow(clippy::unnecessary_cast)]
        let request = request as u64;
        let ty = (request >> 8) & 0xff;
        let nr = request & 0xff;
        let size = ((request >> 16) & 0x3fff) as usize;
        if ty != u64::from(DRM_IOCTL_BASE) || arg.is_null() {
            return Err(libc::ENOTTY);
        }
        macro_rules! arg {
            ($t:ty) => {{
                if size != std::mem::size_of::<$t>() {
                    return Err(libc::EINVAL);
                }
                // SAFETY: the caller passes a pointer to the request's struct, whose size the
                // request encodes and which was just checked.
                unsafe { &mut *(arg as *mut $t) }
            }};
        }
        let req = request as Request;
        if self.lock().watchdog() {
            self.cv.notify_all();
        }
        match nr {
            0x00 => self.version(arg!(drm_sys::drm_version)),
            0x09 => self.gem_close(fd, arg!(drm_sys::drm_gem_close)),
            0x2d => self.prime_handle_to_fd(fd, arg!(drm_sys::drm_prime_handle)),
            0x2e => self.prime_fd_to_handle(fd, arg!(drm_sys::drm_prime_handle)),
            0x0c => {
                let cap = arg!(drm_sys::drm_get_cap);
                if cap.capability == u64::from(drm_sys::DRM_CAP_SYNCOBJ) {
                    cap.value = 1;
                    Ok(())
                } else {
                    Err(libc::EINVAL)
                }
            }
            0xbf => self.syncobj_create(fd, arg!(drm_sys::drm_syncobj_create)),
            0xc0 => self.syncobj_destroy(fd, arg!(drm_sys::drm_syncobj_destroy)),
            0xc1 => self.syncobj_to_sync_file(fd, arg!(drm_sys::drm_syncobj_handle)),
            0xc2 => self.sync_file_to_syncobj(fd, arg!(drm_sys::drm_syncobj_handle)),
            0xc3 => self.syncobj_wait(fd, arg!(drm_sys::drm_syncobj_wait)),
            0xc4 => self.syncobj_set(fd, arg!(drm_sys::drm_syncobj_array), SyncPoint::Empty),
            0xc5 => self.syncobj_set(fd, arg!(drm_sys::drm_syncobj_array), SyncPoint::Signalled),
            _ if req == IOCTL_GET_PARAM => self.get_param(arg!(drm_sgx535_get_param)),
            _ if req == IOCTL_GEM_CREATE => self.gem_create(fd, arg!(drm_sgx535_gem_create)),
            _ if req == IOCTL_GEM_INFO => self.gem_info(fd, arg!(drm_sgx535_gem_info)),
            _ if req == IOCTL_GEM_SUBMIT => self.gem_submit(fd, arg!(drm_sgx535_gem_submit)),
            _ if req == IOCTL_GEM_WAIT => self.gem_wait(fd, arg!(drm_sgx535_gem_wait)),
            _ if req == IOCTL_CTX_CREATE => {
                let c = arg!(drm_sgx535_ctx_create);
                let mut st = self.lock();
                st.alive()?;
                let id = st.next_ctx;
                st.next_ctx += 1;
                st.file(fd)?.ctxs.insert(id);
                c.id = id;
                Ok(())
            }
            _ if req == IOCTL_CTX_FREE => {
                let c = arg!(drm_sgx535_ctx_free);
                let mut st = self.lock();
                if st.file(fd)?.ctxs.remove(&c.id) {
                    Ok(())
                } else {
                    Err(libc::EINVAL)
                }
            }
            _ if req == IOCTL_CTX_RESET_STATUS => {
                let r = arg!(drm_sgx535_ctx_reset_status);
                let mut st = self.lock();
                st.alive()?;
                if !st.file(fd)?.ctxs.contains(&r.ctx) {
                    return Err(libc::EINVAL);
                }
                let guilty = st.guilty.get(&r.ctx).copied().unwrap_or(0);
                r.flags = if guilty > 0 { SGX535_CTX_GUILTY } else { 0 };
                r.resets = st.resets;
                r.guilty = guilty;
                Ok(())
            }
            _ if req == IOCTL_JOB_INFO => {
                let i = arg!(drm_sgx535_job_info);
                let mut st = self.lock();
                st.alive()?;
                let rec = st.job_mut(i.job_id).ok_or(libc::EINVAL)?;
                *i = rec.info;
                rec.reaped |= rec.info.state != DRM_SGX535_JOB_PENDING;
                st.retire();
                Ok(())
            }
            _ => Err(libc::EINVAL),
        }
    }

    fn version(&self, v: &mut drm_sys::drm_version) -> IoResult {
        v.version_major = 0;
        v.version_minor = 1;
        v.version_patchlevel = 0;
        let fill = |len: &mut drm_sys::__kernel_size_t, ptr: *mut std::ffi::c_char, text: &str| {
            if !ptr.is_null() && *len > 0 {
                let n = (*len as usize).min(text.len());
                // SAFETY: the caller gave a buffer of `len` bytes at `ptr`.
                unsafe { std::ptr::copy_nonoverlapping(text.as_ptr(), ptr.cast(), n) };
            }
            *len = text.len() as drm_sys::__kernel_size_t;
        };
        fill(&mut v.name_len, v.name, driver_name());
        fill(&mut v.date_len, v.date, "20260101");
        fill(
            &mut v.desc_len,
            v.desc,
            "sgx535 drm-shim over the device model",
        );
        Ok(())
    }

    fn get_param(&self, p: &mut drm_sgx535_get_param) -> IoResult {
        let st = self.lock();
        st.alive()?;
        if p.pad != 0 {
            return Err(libc::EINVAL);
        }
        p.value = match p.param {
            DRM_SGX535_PARAM_CORE_REVISION => u64::from(sgx_winsys::MODEL_CORE_REVISION),
            DRM_SGX535_PARAM_VA_START => VA_START,
            DRM_SGX535_PARAM_VA_END => VA_END,
            DRM_SGX535_PARAM_PAGE_SIZE => PAGE_B,
            DRM_SGX535_PARAM_IS_MODEL => 1,
            DRM_SGX535_PARAM_HANG_BUDGET_MS => (st.hang_budget_ns / 1_000_000) as u64,
            _ => return Err(libc::EINVAL),
        };
        Ok(())
    }

    fn gem_create(&self, fd: c_int, c: &mut drm_sgx535_gem_create) -> IoResult {
        let mut st = self.lock();
        st.alive()?;
        st.file(fd)?;
        if c.size == 0
            || c.flags & !(SGX535_BO_CACHED | SGX535_BO_GPU_READ_ONLY) != 0
            || (c.va_align != 0 && !c.va_align.is_power_of_two())
        {
            return Err(libc::EINVAL);
        }
        let n = st.allocations;
        st.allocations += 1;
        if st.fixture.as_ref().is_some_and(|f| f.fails_allocation(n)) {
            return Err(libc::ENOMEM);
        }
        let size_B = u64::from(c.size);
        let va = st
            .va
            .alloc(size_B, u64::from(c.va_align))
            .ok_or(libc::ENOMEM)?;
        let Ok(backing) = new_backing(size_B) else {
            st.va.free(va, size_B);
            return Err(libc::ENOMEM);
        };
        let gpu_read_only = c.flags & SGX535_BO_GPU_READ_ONLY != 0;
        let id = st.add_bo(va, size_B, backing, gpu_read_only)?;
        c.handle = st.file(fd)?.new_handle(id);
        Ok(())
    }

    fn gem_info(&self, fd: c_int, i: &mut drm_sgx535_gem_info) -> IoResult {
        let mut st = self.lock();
        st.alive()?;
        let id = *st.file(fd)?.handles.get(&i.handle).ok_or(libc::ENOENT)?;
        i.va = st.bos[&id].va;
        i.offset = id << OFFSET_SHIFT;
        Ok(())
    }

    fn gem_close(&self, fd: c_int, c: &mut drm_sys::drm_gem_close) -> IoResult {
        let mut st = self.lock();
        let id = st.file(fd)?.handles.remove(&c.handle).ok_or(libc::EINVAL)?;
        st.unref(id);
        Ok(())
    }

    /// PRIME export: a duplicate of the buffer's memfd stands in for the dma-buf.
    fn prime_handle_to_fd(&self, fd: c_int, p: &mut drm_sys::drm_prime_handle) -> IoResult {
        let mut st = self.lock();
        st.alive()?;
        let id = *st.file(fd)?.handles.get(&p.handle).ok_or(libc::ENOENT)?;
        let flags = p.flags as c_int;
        if flags & !(libc::O_CLOEXEC | libc::O_RDWR) != 0 {
            return Err(libc::EINVAL);
        }
        let cmd = if flags & libc::O_CLOEXEC != 0 {
            libc::F_DUPFD_CLOEXEC
        } else {
            libc::F_DUPFD
        };
        // SAFETY: duplicates the buffer's own memfd; the copy goes to the caller.
        let out = unsafe { (real().fcntl)(st.bos[&id].backing.fd().as_raw_fd(), cmd, 0) };
        if out < 0 {
            return Err(std::io::Error::last_os_error()
                .raw_os_error()
                .unwrap_or(libc::EMFILE));
        }
        p.fd = out;
        Ok(())
    }

    /// PRIME import: a file of one of the shim's buffers yields that buffer (the handle the
    /// file already has for it, as the kernel does); any other memfd or dma-buf is mapped into
    /// the model as a new buffer.
    fn prime_fd_to_handle(&self, fd: c_int, p: &mut drm_sys::drm_prime_handle) -> IoResult {
        let mut st = self.lock();
        st.alive()?;
        st.file(fd)?;
        if p.fd < 0 {
            return Err(libc::EBADF);
        }
        // SAFETY: a descriptor the caller passed for the duration of this ioctl; a closed one
        // fails fstat with EBADF below.
        let caller_fd = unsafe { BorrowedFd::borrow_raw(p.fd) };
        let ident = file_ident(caller_fd).map_err(|_| libc::EBADF)?;
        let known = st
            .bos
            .iter()
            .find(|(_, b)| b.backing.ident() == ident)
            .map(|(&id, _)| id);
        let id = match known {
            Some(id) => {
                if let Some((&h, _)) = st.file(fd)?.handles.iter().find(|(_, &b)| b == id) {
                    p.handle = h;
                    return Ok(());
                }
                st.bos.get_mut(&id).expect("found above").refs += 1;
                id
            }
            None => {
                let backing = import_backing(caller_fd).map_err(|_| libc::EINVAL)?;
                let size_B = sgx_sim::Backing::len_B(&backing) as u64;
                let va = st.va.alloc(size_B, 0).ok_or(libc::ENOMEM)?;
                st.add_bo(va, size_B, backing, false)?
            }
        };
        p.handle = st.file(fd)?.new_handle(id);
        Ok(())
    }

    fn gem_submit(&self, fd: c_int, s: &mut drm_sgx535_gem_submit) -> IoResult {
        let mut st = self.lock();
        st.alive()?;
        if s.flags != 0 || s.pad != 0 || !st.file(fd)?.ctxs.contains(&s.ctx) {
            return Err(libc::EINVAL);
        }
        // SAFETY: the submit struct's pointers point at arrays of the counts it gives (uapi).
        let (bos, in_syncs, ta, td, twod) = unsafe {
            (
                user_slice::<drm_sgx535_gem_submit_bo>(s.bos, s.nr_bos)?,
                user_slice::<u32>(s.in_syncs, s.nr_in_syncs)?,
                user_slice::<drm_sgx535_reg>(s.regs_ta, s.nr_regs_ta)?,
                user_slice::<drm_sgx535_reg>(s.regs_3d, s.nr_regs_3d)?,
                user_slice::<drm_sgx535_reg>(s.regs_2d, s.nr_regs_2d)?,
            )
        };
        let pairs = |l: &[drm_sgx535_reg]| l.iter().map(|r| (r.offset, r.value)).collect();
        let desc = match s.pipe {
            SGX535_PIPE_TA_3D if twod.is_empty() && !ta.is_empty() && !td.is_empty() => {
                JobDesc::Render {
                    ta_regs: pairs(ta),
                    td_regs: pairs(td),
                }
            }
            SGX535_PIPE_2D if ta.is_empty() && td.is_empty() && !twod.is_empty() => {
                JobDesc::TwoD { regs: pairs(twod) }
            }
            _ => return Err(libc::EINVAL),
        };
        let file = st.file(fd)?;
        let mut ids = Vec::with_capacity(bos.len());
        for b in bos {
            let id = *file.handles.get(&b.handle).ok_or(libc::ENOENT)?;
            if b.flags & !(SGX535_SUBMIT_BO_READ | SGX535_SUBMIT_BO_WRITE) != 0 {
                return Err(libc::EINVAL);
            }
            ids.push((id, b.flags & SGX535_SUBMIT_BO_WRITE != 0));
        }
        let mut deps = Vec::with_capacity(in_syncs.len());
        for h in in_syncs {
            match file.syncobjs.get(h).ok_or(libc::ENOENT)? {
                SyncPoint::Empty => return Err(libc::EINVAL),
                p => deps.push(*p),
            }
        }
        if s.out_sync != 0 && !file.syncobjs.contains_key(&s.out_sync) {
            return Err(libc::ENOENT);
        }
        if ids.iter().any(|&(id, w)| w && st.bos[&id].gpu_read_only) {
            return Err(libc::EINVAL);
        }
        let n = st.submissions;
        st.submissions += 1;
        if let Some(e) = st.fixture.as_ref().and_then(|f| f.refusal(n)) {
            return Err(e as c_int);
        }
        let job_id = st.first_job + st.jobs.len() as u64;
        for &(id, write) in &ids {
            let bo = st.bos.get_mut(&id).expect("looked up above");
            bo.refs += 1;
            bo.last_use = job_id;
            if write {
                bo.last_write = job_id;
            }
        }
        let index = st.accepted;
        st.accepted += 1;
        st.jobs.push_back(JobRec {
            reaped: false,
            desc: Some(desc),
            ctx: s.ctx,
            bos: ids.iter().map(|&(id, _)| id).collect(),
            deps,
            index,
            info: drm_sgx535_job_info {
                job_id,
                state: DRM_SGX535_JOB_PENDING,
                ..Default::default()
            },
        });
        if s.out_sync != 0 {
            st.file(fd)?
                .syncobjs
                .insert(s.out_sync, SyncPoint::Job(job_id));
        }
        st.queue.push_back(job_id);
        s.job_id = job_id;
        st.run_ready();
        st.retire();
        drop(st);
        self.cv.notify_all();
        Ok(())
    }

    fn gem_wait(&self, fd: c_int, w: &mut drm_sgx535_gem_wait) -> IoResult {
        let mut st = self.lock();
        let id = *st.file(fd)?.handles.get(&w.handle).ok_or(libc::ENOENT)?;
        let job = match w.op {
            SGX535_GEM_WAIT_READ => st.bos[&id].last_write,
            SGX535_GEM_WAIT_WRITE => st.bos[&id].last_use,
            _ => return Err(libc::EINVAL),
        };
        loop {
            st.alive()?;
            if job == 0 || st.job_done(job) {
                return Ok(());
            }
            st = self.sleep_until(st, w.timeout_ns)?;
        }
    }

    /// Sleeps until woken or the absolute CLOCK_MONOTONIC deadline; ETIME past it. Wakes at
    /// a hung job's deadline too, and resets the GPU then (the watchdog), returning so that
    /// the caller looks again.
    fn sleep_until<'a>(
        &self,
        mut st: MutexGuard<'a, State>,
        deadline_ns: i64,
    ) -> Result<MutexGuard<'a, State>, Errno> {
        if st.watchdog() {
            self.cv.notify_all();
            return Ok(st);
        }
        let now = now_ns();
        let left = deadline_ns.saturating_sub(now);
        if left <= 0 {
            return Err(libc::ETIME);
        }
        let sleep = match st.hang_deadline_ns() {
            Some(d) => left.min(d.saturating_sub(now).max(1)),
            None => left,
        };
        st = self
            .cv
            .wait_timeout(st, Duration::from_nanos(sleep as u64))
            .unwrap_or_else(|e| e.into_inner())
            .0;
        if st.watchdog() {
            self.cv.notify_all();
        }
        Ok(st)
    }
}

impl FileState {
    /// A new handle of this file for buffer `id`.
    fn new_handle(&mut self, id: u64) -> u32 {
        let h = self.next_handle;
        self.next_handle += 1;
        self.handles.insert(h, id);
        h
    }
}

impl State {
    /// Maps `backing` at `va` (allocated for `size_B`) into the model and registers it as a
    /// buffer with one reference; on failure `va` is freed.
    fn add_bo(
        &mut self,
        va: u32,
        size_B: u64,
        backing: MemfdBacking,
        gpu_read_only: bool,
    ) -> Result<u64, Errno> {
        let backing = Arc::new(backing);
        let perm = Perm {
            read: true,
            write: !gpu_read_only,
        };
        if self.gpu.map(va, backing.clone(), perm).is_err() {
            self.va.free(va, size_B);
            return Err(libc::EINVAL);
        }
        let id = self.next_bo;
        self.next_bo += 1;
        self.bos.insert(
            id,
            BoObj {
                va,
                size_B,
                gpu_read_only,
                backing,
                refs: 1,
                last_write: 0,
                last_use: 0,
            },
        );
        Ok(id)
    }

    fn alive(&self) -> IoResult {
        if self.lost {
            Err(libc::ENODEV)
        } else {
            Ok(())
        }
    }

    fn file(&mut self, fd: c_int) -> Result<&mut FileState, Errno> {
        let fd = self.canon(fd);
        self.files.get_mut(&fd).ok_or(libc::EBADF)
    }

    /// The fd whose FileState `fd` uses (itself unless it is a duplicate).
    fn canon(&self, fd: c_int) -> c_int {
        self.dups.get(&fd).copied().unwrap_or(fd)
    }

    fn unref(&mut self, id: u64) {
        let Some(bo) = self.bos.get_mut(&id) else {
            return;
        };
        bo.refs -= 1;
        if bo.refs == 0 {
            let bo = self.bos.remove(&id).expect("present");
            let _ = self.gpu.unmap(bo.va);
            self.va.free(bo.va, bo.size_B);
        }
    }
}
