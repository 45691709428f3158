//! Assembler for the disassembler's syntax (see `disasm`).

use sgx_hwdocs::usse::{InstrFormat, Opcode, Pred, SrcMod};

use crate::encode::encode;
use crate::error::{CompileError, Result};
use crate::ir::{Dst, MInst, Reg, RegFile, Src};

fn err(line: u32, msg: impl Into<String>) -> CompileError {
    CompileError::Asm {
        line,
        msg: msg.into(),
    }
}

fn num(s: &str, line: u32) -> Result<u32> {
    let v = if let Some(h) = s.strip_prefix("0x") {
        u32::from_str_radix(h, 16)
    } else {
        s.parse::<u32>()
    };
    v.map_err(|_| err(line, format!("expected a number, found '{s}'")))
}

fn reg(s: &str, line: u32) -> Result<Reg> {
    if let Some(rest) = s.strip_prefix("sa[a0.x+") {
        let n = rest
            .strip_suffix(']')
            .ok_or_else(|| err(line, "expected ']'"))?;
        return Ok(Reg {
            file: RegFile::SecondaryIndexed,
            num: num(n, line)?,
        });
    }
    let prefixes: [(&str, RegFile); 7] = [
        ("pa", RegFile::Primary),
        ("sa", RegFile::Secondary),
        ("r", RegFile::Temp),
        ("o", RegFile::Output),
        ("#", RegFile::Immediate),
        ("p", RegFile::Predicate),
        ("a", RegFile::Address),
    ];
    for (p, f) in prefixes {
        if let Some(n) = s.strip_prefix(p) {
            if n.chars().all(|c| c.is_ascii_digit()) && !n.is_empty() {
                return Ok(Reg {
                    file: f,
                    num: num(n, line)?,
                });
            }
        }
    }
    Err(err(line, format!("expected a register, found '{s}'")))
}

fn lane(c: char, line: u32) -> Result<u8> {
    "xyzw"
        .find(c)
        .map(|i| i as u8)
        .ok_or_else(|| err(line, format!("expected x, y, z or w, found '{c}'")))
}

fn split_suffix(s: &str) -> (&str, Option<&str>) {
    // The component suffix follows the last '.' outside `sa[a0.x+n]`.
    let base_end = s.rfind(']').map_or(0, |i| i + 1);
    match s[base_end..].rfind('.') {
        Some(i) => (&s[..base_end + i], Some(&s[base_end + i + 1..])),
        None => (s, None),
    }
}

fn dst(s: &str, line: u32) -> Result<Dst> {
    let (r, suf) = split_suffix(s.trim());
    let mask = match suf {
        None => 0xF,
        Some("_") => 0,
        Some(m) => {
            let mut v = 0u8;
            for c in m.chars() {
                v |= 1 << lane(c, line)?;
            }
            v
        }
    };
    Ok(Dst {
        reg: reg(r, line)?,
        mask,
    })
}

fn src(s: &str, line: u32) -> Result<Src> {
    let mut s = s.trim();
    let neg = s.starts_with('-');
    if neg {
        s = &s[1..];
    }
    let abs = s.starts_with('|');
    if abs {
        s = s[1..]
            .strip_suffix('|')
            .ok_or_else(|| err(line, "expected a closing '|'"))?;
    }
    let (r, suf) = split_suffix(s);
    let mut swz = [0, 1, 2, 3];
    if let Some(sw) = suf {
        let v: Vec<char> = sw.chars().collect();
        if v.len() != 4 {
            return Err(err(
                line,
                format!("expected a 4-lane swizzle, found '{sw}'"),
            ));
        }
        for (i, c) in v.iter().enumerate() {
            swz[i] = lane(*c, line)?;
        }
    }
    let modi = match (neg, abs) {
        (false, false) => SrcMod::NONE,
        (true, false) => SrcMod::NEG,
        (false, true) => SrcMod::ABS,
        (true, true) => SrcMod::NEG_ABS,
    };
    Ok(Src {
        reg: reg(r, line)?,
        swz,
        modi,
    })
}

fn prefixed(s: &str, p: &str, line: u32) -> Result<u32> {
    let n = s
        .trim()
        .strip_prefix(p)
        .ok_or_else(|| err(line, format!("expected {p}N, found '{s}'")))?;
    num(n, line)
}

/// Parses one instruction line (without index or comment).
pub fn parse_inst(text: &str, line: u32) -> Result<MInst> {
    let mut t = text.trim();
    let mut pred = Pred::ALWAYS;
    if let Some(rest) = t.strip_prefix('(') {
        let close = rest.find(')').ok_or_else(|| err(line, "expected ')'"))?;
        pred = match &rest[..close] {
            "p0" => Pred::P0,
            "p1" => Pred::P1,
            "p2" => Pred::P2,
            "!p0" => Pred::NOT_P0,
            "!p1" => Pred::NOT_P1,
            "!p2" => Pred::NOT_P2,
            p => return Err(err(line, format!("unknown predicate '{p}'"))),
        };
        t = rest[close + 1..].trim_start();
    }
    let (head, extra) = match t.find('{') {
        Some(i) => {
            let e = t[i + 1..]
                .trim_end()
                .strip_suffix('}')
                .ok_or_else(|| err(line, "expected '}'"))?;
            (&t[..i], Some(e))
        }
        None => (t, None),
    };
    let head = head.trim();
    let (mn, rest) = head.split_once(char::is_whitespace).unwrap_or((head, ""));
    let (name, sat) = match mn.strip_suffix(".sat") {
        Some(n) => (n, true),
        None => (mn, false),
    };
    let op = Opcode::from_name(&name.to_ascii_uppercase())
        .ok_or_else(|| err(line, format!("unknown opcode '{name}'")))?;
    let mut m = MInst::new(op);
    m.pred = pred;
    m.sat = sat;
    let ops: Vec<&str> = if rest.trim().is_empty() {
        Vec::new()
    } else {
        rest.split(',').map(str::trim).collect()
    };
    let want = |n: usize| {
        if ops.len() == n {
            Ok(())
        } else {
            Err(err(
                line,
                format!("{name} takes {n} operand(s), found {}", ops.len()),
            ))
        }
    };
    match op.format() {
        InstrFormat::ALU => {
            let nd = usize::from(m.has_dst());
            want(nd + m.nsrc())?;
            if nd == 1 {
                m.dst = dst(ops[0], line)?;
            }
            for j in 0..m.nsrc() {
                m.src[j] = src(ops[nd + j], line)?;
            }
        }
        InstrFormat::TEX => {
            want(if op == Opcode::TEXD { 4 } else { 3 })?;
            m.dst = dst(ops[0], line)?;
            m.src[0] = src(ops[1], line)?;
            m.sampler = prefixed(ops[2], "t", line)?;
            if op == Opcode::TEXD {
                m.grad = prefixed(ops[3], "g", line)?;
            }
        }
        InstrFormat::LIMM => {
            want(2)?;
            m.dst = dst(ops[0], line)?;
            m.imm = num(ops[1], line)?;
        }
        InstrFormat::FLOW => {
            if matches!(op, Opcode::BR | Opcode::CALL) {
                want(1)?;
                m.target = num(ops[0], line)?;
            } else {
                want(0)?;
            }
        }
    }
    for kv in extra.into_iter().flat_map(|e| e.split(',')) {
        let (k, v) = kv
            .split_once('=')
            .ok_or_else(|| err(line, format!("expected field=value, found '{kv}'")))?;
        match k.trim() {
            "dst" => m.dst = dst(v, line)?,
            "src0" => m.src[0] = src(v, line)?,
            "src1" => m.src[1] = src(v, line)?,
            "grad" => m.grad = num(v.trim(), line)?,
            "target" => m.target = num(v.trim(), line)?,
            other => return Err(err(line, format!("unknown field '{other}'"))),
        }
    }
    Ok(m)
}

/// Assembles a listing (as `disasm_words` prints it: optional `N:` indices, `;` comments).
pub fn assemble(text: &str) -> Result<Vec<u32>> {
    let mut words = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = u32::try_from(i + 1).unwrap_or(u32::MAX);
        let mut t = raw.split(';').next().unwrap_or("").trim();
        if let Some((idx, rest)) = t.split_once(':') {
            if idx.trim().chars().all(|c| c.is_ascii_digit()) && !idx.trim().is_empty() {
                t = rest.trim();
            }
        }
        if t.is_empty() {
            continue;
        }
        if let Some(rest) = t.strip_prefix(".word") {
            let v: Vec<&str> = rest.split(',').map(str::trim).collect();
            if v.len() != 2 {
                return Err(err(line, ".word takes two values"));
            }
            words.push(num(v[0], line)?);
            words.push(num(v[1], line)?);
            continue;
        }
        let m = parse_inst(t, line)?;
        let w = encode(&m, words.len() / 2).map_err(|e| err(line, e.to_string()))?;
        words.extend_from_slice(&w);
    }
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::disasm::disasm_words;

    #[test]
    fn listing_round_trips() {
        let text = "0: (p0) fmad.sat r3.xz, -|pa1.yxzw|, sa[a0.x+5]\n\
                    1: tex r0, r1.xyxy, t7\n\
                    2: limm o2.w, 0x3f800000\n\
                    3: (!p2) br 0\n\
                    4: emitpix #1\n\
                    5: texd r0, r1, t0, g4\n\
                    6: end\n";
        let w = assemble(text).unwrap();
        let listing = disasm_words(&w).unwrap();
        assert_eq!(assemble(&listing).unwrap(), w);
        assert!(
            listing.contains("(p0) fmad.sat r3.xz, -|pa1.yxzw|, sa[a0.x+5]"),
            "{listing}"
        );
    }

    #[test]
    fn every_decodable_word_round_trips() {
        // Walk a pseudo-random sample of words; whatever they decode to must come back.
        let mut x = 0x1234_5678_9abc_def0u64;
        for _ in 0..20000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let mut w = [x as u32, (x >> 32) as u32];
            // Bias towards valid opcodes so every format is exercised.
            w[0] = (w[0] & !0x7F) | ((w[0] & 0x7F) % 71);
            let listing = disasm_words(&w).unwrap();
            assert_eq!(assemble(&listing).unwrap(), w, "{listing}");
        }
    }

    #[test]
    fn errors_name_the_line() {
        let e = assemble("nop\nfadd r0, r1\n").unwrap_err();
        assert!(matches!(e, CompileError::Asm { line: 2, .. }), "{e:?}");
        assert!(disasm_words(&[1, 2, 3]).is_err());
    }
}
