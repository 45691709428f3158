//! Register allocation (linear scan over live ranges) and layout (labels to indices).

use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap, HashMap};

use sgx_hwdocs::usse::{self, Opcode};

use crate::error::{CompileError, Result};
use crate::io::check_limit;
use crate::ir::{Code, Item, MInst, RegFile};
use crate::opt::live::liveness;

/// Maps virtual temporaries onto physical ones; returns how many physical ones are used.
///
/// A range is the hull of the points where a vreg is live or written: reads of item i sit at
/// point 2i and writes at 2i+1, so an instruction may write the register its last read frees.
pub fn allocate(code: &mut Code) -> Result<u32> {
    let live = liveness(code);
    let nv = code.next_vreg as usize;
    let mut range: Vec<Option<(usize, usize)>> = vec![None; nv];
    let mut touch = |v: usize, p: usize| {
        let r = range[v].get_or_insert((p, p));
        r.0 = r.0.min(p);
        r.1 = r.1.max(p);
    };
    for (i, it) in code.items.iter().enumerate() {
        for (v, _) in live.live_in[i].iter() {
            touch(v as usize, 2 * i);
        }
        for (v, _) in live.live_out[i].iter() {
            touch(v as usize, 2 * i + 1);
        }
        if let Item::I(m) = it {
            if m.has_dst() && m.dst.reg.file == RegFile::Temp {
                touch(m.dst.reg.num as usize, 2 * i + 1);
            }
        }
    }
    // TEXD reads d/dx and d/dy from two consecutive physical temporaries: its vreg pair
    // (grad, grad + 1) is allocated as one unit over the hull of both ranges.
    let mut pair_tail = vec![false; nv];
    for it in &code.items {
        if let Item::I(m) = it {
            if m.op == Opcode::TEXD {
                let (h, t) = (m.grad as usize, m.grad as usize + 1);
                // The lowering takes each pair fresh (texture.rs): a broken invariant.
                assert!(
                    t < nv && !pair_tail[h],
                    "TEXD gradient pair {h}, {t} is not a fresh pair of temporaries"
                );
                pair_tail[t] = true;
                let hull = match (range[h], range[t]) {
                    (Some(a), Some(b)) => Some((a.0.min(b.0), a.1.max(b.1))),
                    (a, b) => a.or(b),
                };
                range[h] = hull;
                range[t] = hull;
            }
        }
    }
    let mut order: Vec<usize> = (0..nv)
        .filter(|v| range[*v].is_some() && !pair_tail[*v])
        .collect();
    order.sort_by_key(|v| range[*v].map(|r| r.0));
    let mut phys: Vec<u32> = vec![u32::MAX; nv];
    // Each vreg takes the lowest-numbered physical register free at its start: `free` holds
    // the free ones, `busy` the others by the point they free up (ranges are visited by
    // start, so a register once free stays free until taken).
    let mut free: BTreeSet<u32> = BTreeSet::new();
    let mut busy: BinaryHeap<Reverse<(usize, u32)>> = BinaryHeap::new();
    let mut used = 0u32;
    for v in order {
        let (start, end) = range[v].unwrap_or((0, 0));
        while let Some(Reverse((at, p))) = busy.peek().copied() {
            if at > start {
                break;
            }
            busy.pop();
            free.insert(p);
        }
        if v + 1 < nv && pair_tail[v + 1] {
            // The lowest free p with p + 1 free too (or p the last register in use), else
            // two new ones.
            let p = free
                .iter()
                .copied()
                .find(|&p| free.contains(&(p + 1)) || p + 1 == used)
                .unwrap_or(used);
            free.remove(&p);
            free.remove(&(p + 1));
            used = used.max(p + 2);
            for (k, q) in [(v, p), (v + 1, p + 1)] {
                busy.push(Reverse((end + 1, q)));
                phys[k] = q;
            }
            continue;
        }
        let p = match free.pop_first() {
            Some(p) => p,
            None => {
                used += 1;
                used - 1
            }
        };
        busy.push(Reverse((end + 1, p)));
        phys[v] = p;
    }
    check_limit("usse::TEMP_REGS", u64::from(used), usse::TEMP_REGS)?;
    for it in &mut code.items {
        if let Item::I(m) = it {
            if m.dst.reg.file == RegFile::Temp && m.has_dst() {
                m.dst.reg.num = phys[m.dst.reg.num as usize];
            }
            for j in 0..m.nsrc() {
                if m.src[j].reg.file == RegFile::Temp {
                    m.src[j].reg.num = phys.get(m.src[j].reg.num as usize).copied().unwrap_or(0);
                }
            }
            if m.op == Opcode::TEXD {
                m.grad = phys.get(m.grad as usize).copied().unwrap_or(0);
            }
        }
    }
    // A vreg read but never live nor written cannot exist; unallocated reads (u32::MAX)
    // would be a bug caught by the encoder's range check.
    Ok(used)
}

/// Resolves labels into instruction indices and returns the instructions.
pub fn layout(code: &Code) -> Result<Vec<MInst>> {
    let mut at = HashMap::new();
    let mut n = 0u32;
    for it in &code.items {
        match it {
            Item::Label(l) => {
                at.insert(*l, n);
            }
            Item::I(_) => n += 1,
        }
    }
    let mut out: Vec<MInst> = code
        .items
        .iter()
        .filter_map(|it| match it {
            Item::I(m) => Some(*m),
            Item::Label(_) => None,
        })
        .collect();
    let mut past_end = false;
    for m in &mut out {
        if matches!(m.op, Opcode::BR | Opcode::CALL) {
            let t = *at.get(&m.target).ok_or_else(|| CompileError::Semantic {
                line: 0,
                msg: format!("internal: label {} not placed", m.target),
            })?;
            past_end |= t == n;
            m.target = t;
        }
    }
    if past_end {
        out.push(MInst::new(Opcode::END));
    }
    check_limit(
        "usse::MAX_INSTRUCTIONS",
        out.len() as u64,
        usse::MAX_INSTRUCTIONS,
    )?;
    Ok(out)
}
