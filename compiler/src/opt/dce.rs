//! Dead code: writes to temporaries nobody reads, identity moves, jumps to the next item.

use sgx_hwdocs::usse::{Opcode, Pred, SrcMod};

use super::live::{liveness_of, Uses};
use crate::ir::{Code, Item, RegFile, SWZ_ID};

/// Removes dead writes and narrows write masks to live lanes; returns true on any change.
pub fn dead_code(code: &mut Code) -> bool {
    let mut any = false;
    loop {
        // Strong liveness: a chain of dead writes is found whole, not one link per round.
        let live = liveness_of(code, Uses::OfLiveResults);
        let mut changed = false;
        let mut keep = Vec::with_capacity(code.items.len());
        for (i, it) in code.items.iter().enumerate() {
            let mut it = *it;
            if let Item::I(m) = &mut it {
                if m.has_dst() && m.dst.reg.file == RegFile::Temp {
                    let lanes = live.live_out[i].lanes(m.dst.reg.num) & m.dst.mask;
                    if lanes == 0 {
                        changed = true;
                        continue;
                    }
                    if lanes != m.dst.mask {
                        m.dst.mask = lanes;
                        changed = true;
                    }
                }
                if is_identity_move(m) {
                    changed = true;
                    continue;
                }
            }
            keep.push(it);
        }
        code.items = keep;
        changed |= jumps_to_next(code);
        changed |= branch_over_one(code);
        changed |= unused_labels(code);
        if !changed {
            return any;
        }
        any = true;
    }
}

fn is_identity_move(m: &crate::ir::MInst) -> bool {
    m.op == Opcode::MOV
        && m.src[0].reg == m.dst.reg
        && m.src[0].modi == SrcMod::NONE
        && (0..4).all(|l| m.dst.mask & (1 << l) == 0 || m.src[0].swz[l] == SWZ_ID[l])
}

/// Drops unconditional BRs whose target label follows them directly.
fn jumps_to_next(code: &mut Code) -> bool {
    let mut changed = false;
    let mut i = 0;
    while i < code.items.len() {
        if let Item::I(m) = code.items[i] {
            if m.op == Opcode::BR && m.pred == Pred::ALWAYS {
                let mut j = i + 1;
                let mut hit = false;
                while let Some(Item::Label(l)) = code.items.get(j) {
                    hit |= *l == m.target;
                    j += 1;
                }
                if hit {
                    code.items.remove(i);
                    changed = true;
                    continue;
                }
            }
        }
        i += 1;
    }
    changed
}

/// Drops labels no branch or call targets, so blocks merge for the local passes.
fn unused_labels(code: &mut Code) -> bool {
    let targets: std::collections::HashSet<u32> = code
        .items
        .iter()
        .filter_map(|it| match it {
            Item::I(m) if matches!(m.op, Opcode::BR | Opcode::CALL) => Some(m.target),
            _ => None,
        })
        .collect();
    let before = code.items.len();
    code.items
        .retain(|it| !matches!(it, Item::Label(l) if !targets.contains(l)));
    code.items.len() != before
}

fn negate(p: Pred) -> Pred {
    match p {
        Pred::P0 => Pred::NOT_P0,
        Pred::P1 => Pred::NOT_P1,
        Pred::P2 => Pred::NOT_P2,
        Pred::NOT_P0 => Pred::P0,
        Pred::NOT_P1 => Pred::P1,
        Pred::NOT_P2 => Pred::P2,
        Pred::ALWAYS => Pred::ALWAYS,
    }
}

/// `(p) br L; X; L:` with X an unconditional BR/RET/KILL becomes `(!p) X`.
fn branch_over_one(code: &mut Code) -> bool {
    let mut changed = false;
    let mut i = 0;
    while i + 2 < code.items.len() {
        if let (Item::I(b), Item::I(x)) = (code.items[i], code.items[i + 1]) {
            let lands = code.items[i + 2..]
                .iter()
                .take_while(|it| matches!(it, Item::Label(_)))
                .any(|it| *it == Item::Label(b.target));
            if b.op == Opcode::BR
                && b.pred != Pred::ALWAYS
                && x.pred == Pred::ALWAYS
                && matches!(x.op, Opcode::BR | Opcode::RET | Opcode::KILL)
                && lands
            {
                let mut x = x;
                x.pred = negate(b.pred);
                code.items[i + 1] = Item::I(x);
                code.items.remove(i);
                changed = true;
                continue;
            }
        }
        i += 1;
    }
    changed
}
