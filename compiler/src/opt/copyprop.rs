//! Copy propagation and immediate folding, within basic blocks.
//!
//! A `MOV t, x` lets later reads of t read x directly (swizzles and modifiers composed);
//! a `LIMM t, k` lets a read of t whose lanes all hold one small whole number read the
//! IMMEDIATE bank instead (`#k`, or `-#k` where modifiers are legal). The moves and LIMMs
//! left unread are then dead code.

use std::collections::HashMap;

use sgx_hwdocs::usse::{InstrFormat, Opcode, Pred, SrcMod};

use crate::ir::{compose_mod, Code, Item, MInst, Reg, RegFile, Src};

type Copy = (Reg, u8, SrcMod);

#[derive(Default)]
struct State {
    copies: HashMap<u32, [Option<Copy>; 4]>,
    consts: HashMap<u32, [Option<u32>; 4]>,
}

impl State {
    fn clear(&mut self) {
        self.copies.clear();
        self.consts.clear();
    }

    /// Forgets what `m`'s write invalidates.
    fn write(&mut self, m: &MInst) {
        let d = m.dst.reg;
        if d.file == RegFile::Temp {
            let written = |l: usize| m.dst.mask & (1 << l) != 0;
            if let Some(lanes) = self.copies.get_mut(&d.num) {
                for (l, e) in lanes.iter_mut().enumerate() {
                    if written(l) {
                        *e = None;
                    }
                }
            }
            if let Some(lanes) = self.consts.get_mut(&d.num) {
                for (l, e) in lanes.iter_mut().enumerate() {
                    if written(l) {
                        *e = None;
                    }
                }
            }
        }
        let indexed = d.file == RegFile::Address;
        for lanes in self.copies.values_mut() {
            for e in lanes.iter_mut() {
                if let Some((r, _, _)) = e {
                    if *r == d || (indexed && r.file == RegFile::SecondaryIndexed) {
                        *e = None;
                    }
                }
            }
        }
    }
}

/// The f32 whole number 0..=127 whose bits are `bits`, if any.
fn small_whole(bits: u32) -> Option<u32> {
    let f = f32::from_bits(bits);
    (0..=127u32).find(|k| (*k as f32).to_bits() == bits && f >= 0.0)
}

fn apply_mod(bits: u32, m: SrcMod) -> u32 {
    match m {
        SrcMod::NONE => bits,
        // IEEE 754 single precision: the sign is bit 31.
        SrcMod::NEG => bits ^ 0x8000_0000,
        SrcMod::ABS => bits & 0x7FFF_FFFF,
        SrcMod::NEG_ABS => bits | 0x8000_0000,
    }
}

fn mod_ok(m: &MInst, modi: SrcMod) -> bool {
    modi == SrcMod::NONE || (m.op.format() == InstrFormat::ALU && m.allows_mod())
}

fn rewrite_src(st: &State, m: &MInst, j: usize) -> Option<Src> {
    let s = m.src[j];
    if s.reg.file != RegFile::Temp {
        return None;
    }
    let used: Vec<usize> = (0..4).filter(|l| m.src_lanes(j) & (1 << l) != 0).collect();
    if used.is_empty() {
        return None;
    }
    if let Some(c) = st.consts.get(&s.reg.num) {
        let vals: Option<Vec<u32>> = used.iter().map(|&l| c[usize::from(s.swz[l])]).collect();
        if let Some(vals) = vals {
            let v = apply_mod(vals[0], s.modi);
            if vals.iter().all(|x| apply_mod(*x, s.modi) == v) {
                if let Some(k) = small_whole(v) {
                    return Some(Src::of(Reg::imm(k)));
                }
                // -v (IEEE 754's sign bit) is a small whole number under NEG.
                if let Some(k) = small_whole(v ^ 0x8000_0000) {
                    if mod_ok(m, SrcMod::NEG) {
                        return Some(Src::of(Reg::imm(k)).neg());
                    }
                }
            }
        }
    }
    let cp = st.copies.get(&s.reg.num)?;
    let entries: Option<Vec<Copy>> = used.iter().map(|&l| cp[usize::from(s.swz[l])]).collect();
    let entries = entries?;
    let (reg, _, inner) = entries[0];
    if entries.iter().any(|(r, _, md)| *r != reg || *md != inner) {
        return None;
    }
    let modi = compose_mod(s.modi, inner);
    if !mod_ok(m, modi) {
        return None;
    }
    let mut swz = [entries[0].1; 4];
    for (k, &l) in used.iter().enumerate() {
        swz[l] = entries[k].1;
    }
    Some(Src { reg, swz, modi })
}

/// Runs both propagations; returns true on any change.
pub fn propagate(code: &mut Code) -> bool {
    let mut st = State::default();
    let mut changed = false;
    for it in code.items.iter_mut() {
        let m = match it {
            Item::Label(_) => {
                st.clear();
                continue;
            }
            Item::I(m) => m,
        };
        if m.op.format() == InstrFormat::FLOW {
            if m.op != Opcode::NOP {
                st.clear();
            }
            continue;
        }
        for j in 0..m.nsrc() {
            if let Some(ns) = rewrite_src(&st, m, j) {
                if ns != m.src[j] {
                    m.src[j] = ns;
                    changed = true;
                }
            }
        }
        if !m.has_dst() {
            continue;
        }
        st.write(m);
        let d = m.dst.reg;
        if d.file != RegFile::Temp || m.pred != Pred::ALWAYS {
            continue;
        }
        if m.op == Opcode::MOV && m.src[0].reg != d {
            let e = st.copies.entry(d.num).or_default();
            for (l, slot) in e.iter_mut().enumerate() {
                if m.dst.mask & (1 << l) != 0 {
                    *slot = Some((m.src[0].reg, m.src[0].swz[l], m.src[0].modi));
                }
            }
        }
        if m.op == Opcode::LIMM {
            let e = st.consts.entry(d.num).or_default();
            for (l, slot) in e.iter_mut().enumerate() {
                if m.dst.mask & (1 << l) != 0 {
                    *slot = Some(m.imm);
                }
            }
        }
    }
    changed
}
