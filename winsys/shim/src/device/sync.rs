//! The shim's syncobjs and sync files: create, destroy, signal, export to and import from a
//! sync file (an eventfd the shim writes when the fence ends, answering the kernel's status
//! query), and waits.

use super::*;

impl Shim {
    pub(super) fn syncobj_create(
        &self,
        fd: c_int,
        c: &mut drm_sys::drm_syncobj_create,
    ) -> IoResult {
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

    pub(super) fn syncobj_destroy(
        &self,
        fd: c_int,
        d: &mut drm_sys::drm_syncobj_destroy,
    ) -> IoResult {
        let mut st = self.lock();
        match st.file(fd)?.syncobjs.remove(&d.handle) {
            Some(_) => Ok(()),
            None => Err(libc::EINVAL),
        }
    }

    pub(super) fn syncobj_set(
        &self,
        fd: c_int,
        a: &mut drm_sys::drm_syncobj_array,
        p: SyncPoint,
    ) -> IoResult {
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
    pub(super) fn syncobj_to_sync_file(
        &self,
        fd: c_int,
        h: &mut drm_sys::drm_syncobj_handle,
    ) -> IoResult {
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
    pub(super) fn sync_file_to_syncobj(
        &self,
        fd: c_int,
        h: &mut drm_sys::drm_syncobj_handle,
    ) -> IoResult {
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

    pub(super) fn syncobj_wait(&self, fd: c_int, w: &mut drm_sys::drm_syncobj_wait) -> IoResult {
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
}

impl State {
    pub(super) fn signalled(&self, p: SyncPoint) -> bool {
        match p {
            SyncPoint::Empty => false,
            SyncPoint::Signalled => true,
            SyncPoint::Job(id) => self.job_done(id),
        }
    }

    /// The sync-file status of a fence (see `Shim::sync_file_status`).
    pub(super) fn point_status(&self, p: SyncPoint) -> i32 {
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
    pub(super) fn wake_sync_files(&mut self) {
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
}
