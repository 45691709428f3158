//! The shim's job queue: running jobs in order on the model, retiring their records, the
//! hang watchdog and the GPU reset, and losing the device.

use super::*;

impl State {
    pub(super) fn job(&self, id: u64) -> Option<&JobRec> {
        self.jobs
            .get(usize::try_from(id.checked_sub(self.first_job)?).ok()?)
    }

    pub(super) fn job_mut(&mut self, id: u64) -> Option<&mut JobRec> {
        let i = usize::try_from(id.checked_sub(self.first_job)?).ok()?;
        self.jobs.get_mut(i)
    }

    /// Ended, whether its record is kept or retired.
    pub(super) fn job_done(&self, id: u64) -> bool {
        (id != 0 && id < self.first_job)
            || self
                .job(id)
                .is_some_and(|j| j.info.state != DRM_SGX535_JOB_PENDING)
    }

    /// Drops the records of ended jobs from the front, as a kernel frees a job once it retired:
    /// one whose JOB_INFO was read, or any past the newest `RETAIN_JOBS` (a caller that never
    /// asks). Without this, every submission of a long run kept its record (about 700 bytes of
    /// RSS per job in the soak test). An id below `first_job` is a job that ended.
    pub(super) fn retire(&mut self) {
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

    /// When the watchdog resets the GPU, if a job hangs.
    pub(super) fn hang_deadline_ns(&self) -> Option<i64> {
        self.hung
            .map(|(_, since)| since.saturating_add(self.hang_budget_ns))
    }

    /// The watchdog: past the hung job's deadline, ends it with HANG, resets the GPU and runs
    /// what may run. True when it did (waiters should look again).
    pub(super) fn watchdog(&mut self) -> bool {
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
    pub(super) fn reset(&mut self, i: usize) {
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
    pub(super) fn end_job(&mut self, i: usize) {
        self.jobs[i].deps = Vec::new();
        let bos = std::mem::take(&mut self.jobs[i].bos);
        for b in bos {
            self.unref(b);
        }
    }

    /// Runs queued jobs in order while the one at the front has its dependencies signalled,
    /// then wakes the sync files of the jobs that ended.
    pub(super) fn run_ready(&mut self) {
        self.run_queue();
        self.wake_sync_files();
    }

    pub(super) fn run_queue(&mut self) {
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
    pub(super) fn lose(&mut self) {
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
