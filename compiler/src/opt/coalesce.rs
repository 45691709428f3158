//! Coalescing `op s ...; MOV d, s` into `op d ...` within a basic block.
//!
//! Renaming s to d over the region where s is live is exact when: s is dead after the MOV
//! and not live where the region starts, the region writes s only in lanes the MOV copies,
//! and the region neither reads nor writes d (so writing d early is invisible).

use sgx_hwdocs::usse::{InstrFormat, Opcode, Pred, SrcMod};

use std::collections::HashSet;

use super::live::liveness;
use crate::ir::{Code, Item, MInst, Reg, RegFile};

fn candidate(m: &MInst) -> Option<(Reg, Reg, u8)> {
    let s = m.src[0];
    let ok = m.op == Opcode::MOV
        && m.pred == Pred::ALWAYS
        && s.modi == SrcMod::NONE
        && s.reg.file == RegFile::Temp
        && matches!(m.dst.reg.file, RegFile::Temp | RegFile::Output)
        && s.reg != m.dst.reg
        && (0..4).all(|l| m.dst.mask & (1 << l) == 0 || usize::from(s.swz[l]) == l);
    ok.then_some((s.reg, m.dst.reg, m.dst.mask))
}

fn touches(m: &MInst, r: Reg) -> bool {
    (m.has_dst() && m.dst.reg == r) || (0..m.nsrc()).any(|j| m.src[j].reg == r)
}

/// Coalesces every MOV that qualifies against one liveness analysis; returns true on any
/// change (the optimiser's loop runs it again for MOVs the renames enabled).
///
/// A rename of s to d changes the code only in [k, mi] and the liveness only of s and d, so
/// further candidates in the same round stay exact as long as they involve neither: each
/// round skips MOVs whose registers an earlier rename touched. Walking MOVs from the end and
/// removing them afterwards keeps the analysis' item indices valid for the whole round.
pub fn coalesce(code: &mut Code) -> bool {
    let live = liveness(code);
    let mut touched: HashSet<Reg> = HashSet::new();
    let mut removed = Vec::new();
    for mi in (0..code.items.len()).rev() {
        let Item::I(m) = code.items[mi] else { continue };
        let Some((s, d, mask)) = candidate(&m) else {
            continue;
        };
        if touched.contains(&s) || touched.contains(&d) {
            continue;
        }
        if live.live_out[mi].lanes(s.num) != 0 {
            continue;
        }
        // Walk back to where s stops being live.
        let mut k = mi;
        let start = loop {
            if k == 0 {
                break None;
            }
            k -= 1;
            match &code.items[k] {
                Item::I(x) if x.op.format() != InstrFormat::FLOW => {
                    if live.live_in[k].lanes(s.num) == 0 {
                        break Some(k);
                    }
                }
                _ => break None,
            }
        };
        let Some(k) = start else { continue };
        let region_ok = code.items[k..mi].iter().all(|it| match it {
            Item::I(x) => {
                !(touches(x, d) || (x.has_dst() && x.dst.reg == s && x.dst.mask & !mask != 0))
            }
            Item::Label(_) => false,
        });
        if !region_ok {
            continue;
        }
        for it in &mut code.items[k..mi] {
            if let Item::I(x) = it {
                if x.has_dst() && x.dst.reg == s {
                    x.dst.reg = d;
                }
                for j in 0..x.nsrc() {
                    if x.src[j].reg == s {
                        x.src[j].reg = d;
                    }
                }
            }
        }
        touched.insert(s);
        touched.insert(d);
        removed.push(mi);
    }
    if removed.is_empty() {
        return false;
    }
    let removed: HashSet<usize> = removed.into_iter().collect();
    let mut i = 0;
    code.items.retain(|_| {
        i += 1;
        !removed.contains(&(i - 1))
    });
    true
}
