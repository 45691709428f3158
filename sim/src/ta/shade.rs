//! Vertex shading four at a time: a PRIM's vertices, in order of first use, shaded by one
//! run of the vertex program per four (`usse::Machine::run_vertex4`). Equal to shading them one
//! by one (`Ta::vertex`): the same vertices, counters and, on a fault, the same fault after the
//! same work.

use super::{cvert, memo, CVert, Draw, Ta};
use crate::job::JobErr;
use crate::usse::OutBank;

impl Ta<'_> {
    /// Shades vertices `ids` (1 to 4 of them) of a draw whose program batches, appending
    /// them to `verts` in order.
    pub(super) fn shade4(
        &mut self,
        d: &Draw,
        ids: &[u32],
        verts: &mut Vec<CVert>,
    ) -> Result<(), JobErr> {
        let memo = self.fast && memo::memoizable(d);
        if memo {
            if let Some((cv, fin)) = self.memo.get(d.state_addr, ids) {
                // Shaded before in this job (memo.rs): the same vertices, counters and
                // machine as shading them again.
                verts.extend_from_slice(cv);
                self.machine.resume_vertex(&d.vs, fin);
                self.c.usse_instructions += d.vs.ins.len() as u64 * ids.len() as u64;
                #[cfg(test)]
                memo::count_hit();
                return Ok(());
            }
        }
        let mut pa = [[[0u32; 4]; 16]; 4];
        let mut fetched = 0;
        let mut fault = None;
        for (k, &v) in ids.iter().enumerate() {
            if let Err(e) = self.attrs(d, v, &mut pa[k]) {
                fault = Some(e);
                break;
            }
            fetched += 1;
        }
        // One by one, the vertices before a faulting fetch would have been shaded (and
        // counted) first.
        if fetched > 0 {
            let mut out: [OutBank; 4] = [[[0; 4]; 16]; 4];
            let per_vertex = self
                .machine
                .run_vertex4(&d.vs, &mut pa, fetched, &d.consts, &mut out)
                .map_err(JobErr::usse)?;
            self.c.usse_instructions += per_vertex * fetched as u64;
            let first = verts.len();
            for o in &out[..fetched] {
                verts.push(cvert(d, o));
            }
            if memo && fault.is_none() {
                let fin = self.machine.out_bank0();
                self.memo.put(d.state_addr, ids, &verts[first..], &fin);
            }
        }
        match fault {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}
