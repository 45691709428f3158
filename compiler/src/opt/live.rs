//! Control flow and per-lane liveness of virtual temporaries.
//!
//! Calls are modelled without context: a CALL may continue at its target or after it, and a
//! RET may continue after any CALL. That over-approximates liveness, which keeps every
//! client (dead code, coalescing, allocation) safe.

use std::collections::HashMap;

use sgx_hwdocs::usse::{Opcode, Pred};

use crate::ir::{Code, Item, MInst, RegFile};

/// Successor item indices of every item.
pub fn successors(code: &Code) -> Vec<Vec<usize>> {
    let n = code.items.len();
    let mut labels = HashMap::new();
    for (i, it) in code.items.iter().enumerate() {
        if let Item::Label(l) = it {
            labels.insert(*l, i);
        }
    }
    let returns: Vec<usize> = code
        .items
        .iter()
        .enumerate()
        .filter(|(_, it)| matches!(it, Item::I(m) if m.op == Opcode::CALL))
        .map(|(i, _)| i + 1)
        .filter(|&i| i < n)
        .collect();
    let next = |i: usize| if i + 1 < n { vec![i + 1] } else { Vec::new() };
    code.items
        .iter()
        .enumerate()
        .map(|(i, it)| match it {
            Item::Label(_) => next(i),
            Item::I(m) => {
                let always = m.pred == Pred::ALWAYS;
                let mut s = match m.op {
                    Opcode::BR | Opcode::CALL => {
                        let mut s = labels.get(&m.target).map(|t| vec![*t]).unwrap_or_default();
                        if !always || m.op == Opcode::CALL {
                            s.extend(next(i));
                        }
                        s
                    }
                    Opcode::RET => {
                        let mut s = returns.clone();
                        if !always {
                            s.extend(next(i));
                        }
                        s
                    }
                    Opcode::END | Opcode::KILL if always => Vec::new(),
                    _ => next(i),
                };
                s.sort_unstable();
                s.dedup();
                s
            }
        })
        .collect()
}

/// Lanes of each virtual temporary live before (`live_in`) and after (`live_out`) each item.
pub struct Liveness {
    /// Indexed [item][vreg], lane bits.
    pub live_in: Vec<Vec<u8>>,
    /// Indexed [item][vreg], lane bits.
    pub live_out: Vec<Vec<u8>>,
}

/// The (vreg, lanes) an instruction reads.
pub fn uses(m: &MInst) -> impl Iterator<Item = (u32, u8)> + '_ {
    let srcs = (0..m.nsrc()).filter_map(move |j| {
        let s = m.src[j];
        (s.reg.file == RegFile::Temp).then(|| (s.reg.num, s.reg_lanes(m.src_lanes(j))))
    });
    let d =
        (m.reads_dst() && m.dst.reg.file == RegFile::Temp).then_some((m.dst.reg.num, m.dst.mask));
    srcs.chain(d)
}

/// The (vreg, lanes) an instruction certainly overwrites (unpredicated writes only).
pub fn kills(m: &MInst) -> Option<(u32, u8)> {
    (m.has_dst() && m.pred == Pred::ALWAYS && m.dst.reg.file == RegFile::Temp)
        .then_some((m.dst.reg.num, m.dst.mask))
}

/// Computes liveness to a fixed point.
pub fn liveness(code: &Code) -> Liveness {
    let n = code.items.len();
    let nv = code.next_vreg as usize;
    let succ = successors(code);
    let mut live_in = vec![vec![0u8; nv]; n];
    let mut live_out = vec![vec![0u8; nv]; n];
    let mut changed = true;
    while changed {
        changed = false;
        for i in (0..n).rev() {
            let mut out = vec![0u8; nv];
            for &s in &succ[i] {
                for (o, l) in out.iter_mut().zip(&live_in[s]) {
                    *o |= *l;
                }
            }
            let mut inn = out.clone();
            if let Item::I(m) = &code.items[i] {
                if let Some((v, mask)) = kills(m) {
                    inn[v as usize] &= !mask;
                }
                for (v, lanes) in uses(m) {
                    inn[v as usize] |= lanes;
                }
            }
            if inn != live_in[i] {
                live_in[i] = inn;
                changed = true;
            }
            live_out[i] = out;
        }
    }
    Liveness { live_in, live_out }
}
