//! Coalescing `op s ...; MOV d, s` into `op d ...` within a basic block.
//!
//! Renaming s to d over the region where s is live is exact when: s is dead after the MOV
//! and not live where the region starts, the region writes s only in lanes the MOV copies,
//! and the region neither reads nor writes d (so writing d early is invisible).

use sgx_hwdocs::usse::{InstrFormat, Opcode, Pred, SrcMod};

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

/// Coalesces one MOV at a time until none qualifies; returns true on any change.
pub fn coalesce(code: &mut Code) -> bool {
    let mut any = false;
    'outer: loop {
        let live = liveness(code);
        for mi in (0..code.items.len()).rev() {
            let Item::I(m) = code.items[mi] else { continue };
            let Some((s, d, mask)) = candidate(&m) else {
                continue;
            };
            if live.live_out[mi][s.num as usize] != 0 {
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
                        if live.live_in[k][s.num as usize] == 0 {
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
            code.items.remove(mi);
            any = true;
            continue 'outer;
        }
        return any;
    }
}
