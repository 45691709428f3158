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
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::Duration;

use sgx_sim::{Gpu, JobDesc, JobStatus, Perm};
use sgx_winsys::drm::uapi::*;
use sgx_winsys::replay::Fixture;
use sgx_winsys::va::{VaAllocator, PAGE_B, VA_END, VA_START};
use sgx_winsys::{Faults, JobFault};

use crate::memfd::{file_ident, MemfdBacking};
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
        Ok(bo.backing.fd())
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
        let Some(backing) = MemfdBacking::new(VaAllocator::rounded_B(size_B) as usize) else {
            st.va.free(va, size_B);
            return Err(libc::ENOMEM);
        };
        let backing = Arc::new(backing);
        let gpu_read_only = c.flags & SGX535_BO_GPU_READ_ONLY != 0;
        let perm = Perm {
            read: true,
            write: !gpu_read_only,
        };
        if st.gpu.map(va, backing.clone(), perm).is_err() {
            st.va.free(va, size_B);
            return Err(libc::EINVAL);
        }
        let id = st.next_bo;
        st.next_bo += 1;
        st.bos.insert(
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
        let f = st.file(fd)?;
        let h = f.next_handle;
        f.next_handle += 1;
        f.handles.insert(h, id);
        c.handle = h;
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
        let out = unsafe { (real().fcntl)(st.bos[&id].backing.fd(), cmd, 0) };
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
        let ident = file_ident(p.fd).ok_or(libc::EBADF)?;
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
                let backing = Arc::new(MemfdBacking::import(p.fd).ok_or(libc::EINVAL)?);
                let size_B = sgx_sim::Backing::len_B(&*backing) as u64;
                let va = st.va.alloc(size_B, 0).ok_or(libc::ENOMEM)?;
                let perm = Perm {
                    read: true,
                    write: true,
                };
                if st.gpu.map(va, backing.clone(), perm).is_err() {
                    st.va.free(va, size_B);
                    return Err(libc::EINVAL);
                }
                let id = st.next_bo;
                st.next_bo += 1;
                st.bos.insert(
                    id,
                    BoObj {
                        va,
                        size_B,
                        gpu_read_only: false,
                        backing,
                        refs: 1,
                        last_write: 0,
                        last_use: 0,
                    },
                );
                id
            }
        };
        let f = st.file(fd)?;
        let h = f.next_handle;
        f.next_handle += 1;
        f.handles.insert(h, id);
        p.handle = h;
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

    fn syncobj_create(&self, fd: c_int, c: &mut drm_sys::drm_syncobj_create) -> IoResult {
        let mut st = self.lock();
        let f = st.file(fd)?;
        let h = f.next_syncobj;
        f.next_syncobj += 1;
        let signalled = c.flags & drm_sys::DRM_SYNCOBJ_CREATE_SIGNALED != 0;
        let p = if signalled {
            SyncPoint::Signalled
        } else {
            SyncPoint::Empty
        };
        f.syncobjs.insert(h, p);
        c.handle = h;
        Ok(())
    }

    fn syncobj_destroy(&self, fd: c_int, d: &mut drm_sys::drm_syncobj_destroy) -> IoResult {
        let mut st = self.lock();
        match st.file(fd)?.syncobjs.remove(&d.handle) {
            Some(_) => Ok(()),
            None => Err(libc::EINVAL),
        }
    }

    fn syncobj_set(&self, fd: c_int, a: &mut drm_sys::drm_syncobj_array, p: SyncPoint) -> IoResult {
        // SAFETY: the array struct points at count_handles handles (uapi).
        let hs = unsafe { user_slice::<u32>(a.handles, a.count_handles)? };
        let mut st = self.lock();
        let f = st.file(fd)?;
        if hs.iter().any(|h| !f.syncobjs.contains_key(h)) {
            return Err(libc::ENOENT);
        }
        for h in hs {
            f.syncobjs.insert(*h, p);
        }
        drop(st);
        self.cv.notify_all();
        Ok(())
    }

    /// SYNCOBJ_HANDLE_TO_FD with EXPORT_SYNC_FILE: a sync file of the syncobj's fence, here an
    /// eventfd that becomes readable when the fence ends (SYNC_IOC_FILE_INFO on it answers how).
    /// Exporting the syncobj itself (no flag) is not offered.
    fn syncobj_to_sync_file(&self, fd: c_int, h: &mut drm_sys::drm_syncobj_handle) -> IoResult {
        if h.flags != drm_sys::DRM_SYNCOBJ_HANDLE_TO_FD_FLAGS_EXPORT_SYNC_FILE || h.pad != 0 {
            return Err(libc::EINVAL);
        }
        let mut st = self.lock();
        st.alive()?;
        let point = *st.file(fd)?.syncobjs.get(&h.handle).ok_or(libc::ENOENT)?;
        if point == SyncPoint::Empty {
            return Err(libc::EINVAL);
        }
        // SAFETY: eventfd takes a count and flags and returns a new descriptor.
        let out = unsafe { libc::eventfd(0, libc::EFD_CLOEXEC | libc::EFD_NONBLOCK) };
        if out < 0 {
            return Err(std::io::Error::last_os_error()
                .raw_os_error()
                .unwrap_or(libc::EMFILE));
        }
        st.sync_files.insert(
            out,
            SyncFile {
                point,
                woken: false,
                status: None,
            },
        );
        st.wake_sync_files();
        h.fd = out;
        Ok(())
    }

    /// SYNCOBJ_FD_TO_HANDLE with IMPORT_SYNC_FILE: the sync file's fence into the syncobj.
    /// Only the shim's own sync files can be imported (no other fence reaches the model).
    fn sync_file_to_syncobj(&self, fd: c_int, h: &mut drm_sys::drm_syncobj_handle) -> IoResult {
        if h.flags != drm_sys::DRM_SYNCOBJ_FD_TO_HANDLE_FLAGS_IMPORT_SYNC_FILE || h.pad != 0 {
            return Err(libc::EINVAL);
        }
        let mut st = self.lock();
        st.alive()?;
        let point = st.sync_files.get(&h.fd).ok_or(libc::EINVAL)?.point;
        let f = st.file(fd)?;
        if !f.syncobjs.contains_key(&h.handle) {
            return Err(libc::ENOENT);
        }
        f.syncobjs.insert(h.handle, point);
        Ok(())
    }

    /// Records `new` as a duplicate of sync file `fd` (the same eventfd, the same fence).
    pub fn dup_sync_file(&self, fd: c_int, new: c_int) {
        let mut st = self.lock();
        if let Some(f) = st.sync_files.get(&fd) {
            let copy = SyncFile {
                point: f.point,
                woken: f.woken,
                status: f.status,
            };
            st.sync_files.insert(new, copy);
        }
    }

    /// True when `fd` is a sync file the shim handed out.
    pub fn is_sync_file(&self, fd: c_int) -> bool {
        self.lock().sync_files.contains_key(&fd)
    }

    /// SYNC_IOC_FILE_INFO on one of the shim's sync files: 1 when its fence ended without
    /// error, 0 while pending, a negative errno for a job that ended in error (as dma-fence
    /// errors are reported): -ETIME hung, -EFAULT MMU fault, -ECANCELED canceled by a reset,
    /// -ENODEV device lost, -ENOMEM out of parameter memory, -EIO any other failure.
    pub fn sync_file_status(&self, fd: c_int) -> Result<i32, Errno> {
        let mut st = self.lock();
        if st.watchdog() {
            self.cv.notify_all();
        }
        let f = st.sync_files.get(&fd).ok_or(libc::EBADF)?;
        Ok(f.status.unwrap_or_else(|| st.point_status(f.point)))
    }

    fn syncobj_wait(&self, fd: c_int, w: &mut drm_sys::drm_syncobj_wait) -> IoResult {
        // SAFETY: the wait struct points at count_handles handles (uapi).
        let hs = unsafe { user_slice::<u32>(w.handles, w.count_handles)? };
        if hs.is_empty() {
            return Err(libc::EINVAL);
        }
        let all = w.flags & drm_sys::DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL != 0;
        let for_submit = w.flags & drm_sys::DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT != 0;
        let mut st = self.lock();
        loop {
            st.alive()?;
            let f = st.files.get(&st.canon(fd)).ok_or(libc::EBADF)?;
            let mut points = Vec::with_capacity(hs.len());
            for h in hs {
                points.push(*f.syncobjs.get(h).ok_or(libc::ENOENT)?);
            }
            if !for_submit && points.contains(&SyncPoint::Empty) {
                return Err(libc::EINVAL);
            }
            let done: Vec<bool> = points.iter().map(|p| st.signalled(*p)).collect();
            let first = done.iter().position(|&d| d);
            if (all && done.iter().all(|&d| d)) || (!all && first.is_some()) {
                w.first_signaled = first.unwrap_or(0) as u32;
                return Ok(());
            }
            st = self.sleep_until(st, w.timeout_nsec)?;
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

impl State {
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

    fn job(&self, id: u64) -> Option<&JobRec> {
        self.jobs
            .get(usize::try_from(id.checked_sub(self.first_job)?).ok()?)
    }

    fn job_mut(&mut self, id: u64) -> Option<&mut JobRec> {
        let i = usize::try_from(id.checked_sub(self.first_job)?).ok()?;
        self.jobs.get_mut(i)
    }

    /// Ended, whether its record is kept or retired.
    fn job_done(&self, id: u64) -> bool {
        (id != 0 && id < self.first_job)
            || self
                .job(id)
                .is_some_and(|j| j.info.state != DRM_SGX535_JOB_PENDING)
    }

    /// Drops the records of ended jobs from the front, as a kernel frees a job once it retired:
    /// one whose JOB_INFO was read, or any past the newest `RETAIN_JOBS` (a caller that never
    /// asks). Without this, every submission of a long run kept its record (about 700 bytes of
    /// RSS per job in the soak test). An id below `first_job` is a job that ended.
    fn retire(&mut self) {
        const RETAIN_JOBS: usize = 1024;
        while let Some(j) = self.jobs.front() {
            let ended = j.info.state != DRM_SGX535_JOB_PENDING;
            if !ended || !(j.reaped || self.jobs.len() > RETAIN_JOBS) {
                break;
            }
            let id = self.first_job;
            let status = self.point_status(SyncPoint::Job(id));
            for f in self.sync_files.values_mut() {
                if f.point == SyncPoint::Job(id) && f.status.is_none() {
                    f.status = Some(status);
                }
            }
            self.jobs.pop_front();
            self.first_job += 1;
        }
    }

    fn signalled(&self, p: SyncPoint) -> bool {
        match p {
            SyncPoint::Empty => false,
            SyncPoint::Signalled => true,
            SyncPoint::Job(id) => self.job_done(id),
        }
    }

    /// The sync-file status of a fence (see `Shim::sync_file_status`).
    fn point_status(&self, p: SyncPoint) -> i32 {
        let SyncPoint::Job(id) = p else {
            return i32::from(p == SyncPoint::Signalled);
        };
        let Some(j) = self.job(id) else {
            // A retired record ended and its status was read: signalled, with no error left
            // to report (sync files made before it retired kept theirs).
            return if id != 0 && id < self.first_job {
                1
            } else {
                -libc::EINVAL
            };
        };
        match j.info.state {
            DRM_SGX535_JOB_PENDING => 0,
            DRM_SGX535_JOB_DONE => 1,
            DRM_SGX535_JOB_HANG => -libc::ETIME,
            DRM_SGX535_JOB_FAULT => -libc::EFAULT,
            DRM_SGX535_JOB_CANCELED => -libc::ECANCELED,
            DRM_SGX535_JOB_LOST => -libc::ENODEV,
            DRM_SGX535_JOB_OUT_OF_MEMORY => -libc::ENOMEM,
            _ => -libc::EIO,
        }
    }

    /// Writes the eventfd of every sync file whose fence has ended.
    fn wake_sync_files(&mut self) {
        let ended: Vec<c_int> = self
            .sync_files
            .iter()
            .filter(|(_, f)| !f.woken && self.point_status(f.point) != 0)
            .map(|(&fd, _)| fd)
            .collect();
        for fd in ended {
            let one: u64 = 1;
            // SAFETY: writes 8 bytes to an eventfd of the shim's.
            unsafe { libc::write(fd, (&one as *const u64).cast(), 8) };
            let status = self.sync_files.get(&fd).map(|f| self.point_status(f.point));
            if let Some(f) = self.sync_files.get_mut(&fd) {
                f.woken = true;
                f.status = status;
            }
        }
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

    /// When the watchdog resets the GPU, if a job hangs.
    fn hang_deadline_ns(&self) -> Option<i64> {
        self.hung
            .map(|(_, since)| since.saturating_add(self.hang_budget_ns))
    }

    /// The watchdog: past the hung job's deadline, ends it with HANG, resets the GPU and runs
    /// what may run. True when it did (waiters should look again).
    fn watchdog(&mut self) -> bool {
        let Some((id, _)) = self.hung else {
            return false;
        };
        if self.lost || self.hang_deadline_ns().is_some_and(|d| now_ns() < d) {
            return false;
        }
        self.hung = None;
        let i = (id - self.first_job) as usize;
        self.jobs[i].info.state = DRM_SGX535_JOB_HANG;
        self.end_job(i);
        self.reset(i);
        self.run_ready();
        true
    }

    /// A GPU reset caused by job `i` (hung, or MMU fault): its context is guilty, and its jobs
    /// queued behind end CANCELED without running (they may read what it left unfinished).
    fn reset(&mut self, i: usize) {
        self.resets += 1;
        let ctx = self.jobs[i].ctx;
        *self.guilty.entry(ctx).or_default() += 1;
        let (canceled, kept): (VecDeque<u64>, VecDeque<u64>) = std::mem::take(&mut self.queue)
            .into_iter()
            .partition(|&id| self.jobs[(id - self.first_job) as usize].ctx == ctx);
        self.queue = kept;
        for id in &canceled {
            let j = (id - self.first_job) as usize;
            self.jobs[j].desc = None;
            self.jobs[j].info.state = DRM_SGX535_JOB_CANCELED;
            self.end_job(j);
        }
        log::warn!(
            "drm-shim: GPU reset after job {} of context {ctx}; {} queued job(s) of it canceled",
            self.first_job + i as u64,
            canceled.len()
        );
    }

    /// Lets go of a finished job's buffers.
    fn end_job(&mut self, i: usize) {
        self.jobs[i].deps = Vec::new();
        let bos = std::mem::take(&mut self.jobs[i].bos);
        for b in bos {
            self.unref(b);
        }
    }

    /// Runs queued jobs in order while the one at the front has its dependencies signalled,
    /// then wakes the sync files of the jobs that ended.
    fn run_ready(&mut self) {
        self.run_queue();
        self.wake_sync_files();
    }

    fn run_queue(&mut self) {
        while self.hung.is_none() && !self.lost {
            let Some(&id) = self.queue.front() else {
                return;
            };
            let i = (id - self.first_job) as usize;
            if !self.jobs[i].deps.iter().all(|&p| self.signalled(p)) {
                return;
            }
            self.queue.pop_front();
            let inject = self
                .fixture
                .as_ref()
                .and_then(|f| Faults::job_fault(f, self.jobs[i].index));
            if let Some(JobFault::LoseDevice) = inject {
                self.lose();
                return;
            }
            let injection = inject.as_ref().and_then(JobFault::model_injection);
            if let Some(inj) = injection {
                self.gpu.inject(inj);
            }
            let desc = self.jobs[i]
                .desc
                .take()
                .expect("a queued job has its description");
            let r = self.gpu.run(&desc);
            if r.status == JobStatus::Hang {
                log::warn!("drm-shim: job {id} hung; the GPU runs nothing more until the watchdog resets it");
                self.hung = Some((id, now_ns()));
                return;
            }
            let rep = sgx_winsys::sim::model_report(&r);
            let info = &mut self.jobs[i].info;
            info.events = rep.events;
            info.events2 = rep.events2;
            info.bif_int_stat = rep.bif_int_stat;
            info.start_cycles = rep.start_cycles;
            info.end_cycles = rep.end_cycles;
            info.counters = rep.counters.to_array();
            info.state = match r.status {
                JobStatus::Done => DRM_SGX535_JOB_DONE,
                JobStatus::Fault(f) => {
                    info.unit = f.unit.index();
                    info.addr = f.addr;
                    info.write = f.write as u32;
                    DRM_SGX535_JOB_FAULT
                }
                JobStatus::OutOfMemory => DRM_SGX535_JOB_OUT_OF_MEMORY,
                JobStatus::IllegalInstruction { unit, pc, reason } => {
                    info.unit = unit.index();
                    info.addr = pc;
                    set_reason(info, &reason);
                    DRM_SGX535_JOB_ILLEGAL_INSTRUCTION
                }
                JobStatus::BadState { unit, reason } => {
                    info.unit = unit.index();
                    set_reason(info, &reason);
                    DRM_SGX535_JOB_BAD_STATE
                }
                JobStatus::Failed(reason) => {
                    set_reason(info, &reason);
                    DRM_SGX535_JOB_FAILED
                }
                JobStatus::Hang => unreachable!("handled above"),
            };
            let faulted = info.state == DRM_SGX535_JOB_FAULT;
            self.end_job(i);
            if faulted {
                self.reset(i);
            }
        }
    }

    /// The device is lost: unfinished jobs end LOST, every later ioctl fails with ENODEV.
    fn lose(&mut self) {
        self.lost = true;
        self.hung = None;
        for j in &mut self.jobs {
            if j.info.state == DRM_SGX535_JOB_PENDING {
                j.info.state = DRM_SGX535_JOB_LOST;
            }
        }
        self.queue.clear();
        self.wake_sync_files();
    }
}
