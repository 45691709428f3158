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

/// The lanes of the virtual temporaries live at one point: (vreg, lanes) sorted by vreg, no
/// zero lanes. Sparse, because a long program has many vregs but few live at once: a dense
/// [item][vreg] table grows with the square of the program.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LiveSet(Vec<(u32, u8)>);

impl LiveSet {
    /// The live lanes of `v`.
    pub fn lanes(&self, v: u32) -> u8 {
        self.0
            .binary_search_by_key(&v, |e| e.0)
            .map_or(0, |i| self.0[i].1)
    }

    /// Every (vreg, lanes) live.
    pub fn iter(&self) -> impl Iterator<Item = (u32, u8)> + '_ {
        self.0.iter().copied()
    }

    fn add(&mut self, v: u32, lanes: u8) {
        if lanes == 0 {
            return;
        }
        match self.0.binary_search_by_key(&v, |e| e.0) {
            Ok(i) => self.0[i].1 |= lanes,
            Err(i) => self.0.insert(i, (v, lanes)),
        }
    }

    fn remove(&mut self, v: u32, lanes: u8) {
        if let Ok(i) = self.0.binary_search_by_key(&v, |e| e.0) {
            self.0[i].1 &= !lanes;
            if self.0[i].1 == 0 {
                self.0.remove(i);
            }
        }
    }

    fn union<'a>(sets: impl Iterator<Item = &'a LiveSet>) -> LiveSet {
        let mut out: Vec<(u32, u8)> = Vec::new();
        for s in sets {
            if out.is_empty() {
                out.clone_from(&s.0);
                continue;
            }
            let mut merged = Vec::with_capacity(out.len() + s.0.len());
            let (mut i, mut j) = (0, 0);
            loop {
                match (out.get(i), s.0.get(j)) {
                    (Some(x), Some(y)) if x.0 == y.0 => {
                        merged.push((x.0, x.1 | y.1));
                        i += 1;
                        j += 1;
                    }
                    (Some(x), Some(y)) if x.0 < y.0 => {
                        merged.push(*x);
                        i += 1;
                    }
                    (Some(x), None) => {
                        merged.push(*x);
                        i += 1;
                    }
                    (_, Some(y)) => {
                        merged.push(*y);
                        j += 1;
                    }
                    (None, None) => break,
                }
            }
            out = merged;
        }
        LiveSet(out)
    }
}

/// Lanes of each virtual temporary live before (`live_in`) and after (`live_out`) each item.
pub struct Liveness {
    /// Indexed by item.
    pub live_in: Vec<LiveSet>,
    /// Indexed by item.
    pub live_out: Vec<LiveSet>,
}

/// The (vreg, lanes) an instruction reads.
pub fn uses(m: &MInst) -> impl Iterator<Item = (u32, u8)> + '_ {
    let srcs = (0..m.nsrc()).filter_map(move |j| {
        let s = m.src[j];
        (s.reg.file == RegFile::Temp).then(|| (s.reg.num, s.reg_lanes(m.src_lanes(j))))
    });
    let d =
        (m.reads_dst() && m.dst.reg.file == RegFile::Temp).then_some((m.dst.reg.num, m.dst.mask));
    // TEXD's gradients: temporaries `grad` (d/dx) and `grad` + 1 (d/dy), lanes xyz.
    let grads = (m.op == Opcode::TEXD)
        .then(|| [(m.grad, GRAD_LANES), (m.grad + 1, GRAD_LANES)])
        .into_iter()
        .flatten();
    srcs.chain(d).chain(grads)
}

/// The lanes of TEXD's gradient temporaries the TSP reads (xy for 2D, xyz for a volume or a
/// cube).
pub const GRAD_LANES: u8 = 0b0111;

/// The (vreg, lanes) an instruction certainly overwrites (unpredicated writes only).
pub fn kills(m: &MInst) -> Option<(u32, u8)> {
    (m.has_dst() && m.pred == Pred::ALWAYS && m.dst.reg.file == RegFile::Temp)
        .then_some((m.dst.reg.num, m.dst.mask))
}

/// Which uses count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Uses {
    /// Every instruction's reads.
    All,
    /// Only the reads of instructions whose temporary result is live, and only in the lanes
    /// that are live ("strong" liveness): a whole dead chain is dead in one analysis, where
    /// plain liveness peels it one instruction per round.
    OfLiveResults,
}

fn transfer(out: &LiveSet, m: &MInst, mode: Uses) -> LiveSet {
    let mut inn = out.clone();
    let mut m = *m;
    if mode == Uses::OfLiveResults && m.has_dst() && m.dst.reg.file == RegFile::Temp {
        let live = out.lanes(m.dst.reg.num) & m.dst.mask;
        if live == 0 {
            return inn;
        }
        m.dst.mask = live;
    }
    if let Some((v, mask)) = kills(&m) {
        inn.remove(v, mask);
    }
    for (v, lanes) in uses(&m) {
        inn.add(v, lanes);
    }
    inn
}

/// Computes liveness to a fixed point.
pub fn liveness(code: &Code) -> Liveness {
    liveness_of(code, Uses::All)
}

/// Computes liveness to a fixed point, counting `mode`'s uses.
pub fn liveness_of(code: &Code, mode: Uses) -> Liveness {
    let n = code.items.len();
    let succ = successors(code);
    let mut live_in = vec![LiveSet::default(); n];
    let mut live_out = vec![LiveSet::default(); n];
    let mut changed = true;
    while changed {
        changed = false;
        for i in (0..n).rev() {
            let out = match succ[i].as_slice() {
                [] => LiveSet::default(),
                [s] => live_in[*s].clone(),
                many => LiveSet::union(many.iter().map(|s| &live_in[*s])),
            };
            let inn = match &code.items[i] {
                Item::I(m) => transfer(&out, m, mode),
                Item::Label(_) => out.clone(),
            };
            if inn != live_in[i] {
                live_in[i] = inn;
                changed = true;
            }
            live_out[i] = out;
        }
    }
    Liveness { live_in, live_out }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sets_add_remove_and_merge_in_vreg_order() {
        let mut a = LiveSet::default();
        a.add(5, 0b0011);
        a.add(1, 0b1000);
        a.add(5, 0b0100);
        a.add(9, 0);
        assert_eq!(a.iter().collect::<Vec<_>>(), [(1, 0b1000), (5, 0b0111)]);
        a.remove(5, 0b0111);
        assert_eq!(a.lanes(5), 0);
        let mut b = LiveSet::default();
        b.add(1, 0b0001);
        b.add(3, 0b0010);
        let u = LiveSet::union([&a, &b].into_iter());
        assert_eq!(u.iter().collect::<Vec<_>>(), [(1, 0b1001), (3, 0b0010)]);
    }
}
