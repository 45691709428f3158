//! Parser for TGSI text in the dialect `tgsi_dump` prints (the form virglrenderer parses).
//!
//! Line oriented: a header (`VERT`/`FRAG`), then `PROPERTY`, `DCL`, `IMM` and numbered
//! instruction lines. Every error names the line, column and what was expected; no input
//! panics (a property test feeds random and truncated text).

use super::ast::*;
use super::cursor::Cursor;
use crate::error::{CompileError, Result};

/// Parses a whole shader.
pub fn parse(text: &str) -> Result<Shader> {
    let mut stage = None;
    let mut shader = Shader {
        stage: ShaderStage::Vertex,
        properties: Vec::new(),
        decls: Vec::new(),
        imms: Vec::new(),
        instrs: Vec::new(),
    };
    let mut last_line = 0u32;
    for (i, raw) in text.lines().enumerate() {
        let line = u32::try_from(i + 1).unwrap_or(u32::MAX);
        last_line = line;
        let mut c = Cursor::new(raw, line);
        if c.at_end() {
            continue;
        }
        if stage.is_none() {
            let start = c.pos();
            let w = c.word();
            stage = Some(match w.as_str() {
                "VERT" => ShaderStage::Vertex,
                "FRAG" => ShaderStage::Fragment,
                "GEOM" | "COMP" | "TESS_CTRL" | "TESS_EVAL" => {
                    return Err(CompileError::Unsupported {
                        line,
                        what: format!("shader stage {w}"),
                    })
                }
                _ => {
                    c.rewind(start);
                    return Err(c.error("'VERT' or 'FRAG'"));
                }
            });
            end_of_line(&mut c)?;
            continue;
        }
        statement(&mut c, &mut shader)?;
    }
    match stage {
        None => Err(CompileError::Parse {
            line: last_line.max(1),
            col: 1,
            expected: "'VERT' or 'FRAG'".into(),
            found: "end of text".into(),
        }),
        Some(s) => {
            shader.stage = s;
            if !shader.instrs.iter().any(|i| i.opcode == "END") {
                return Err(CompileError::Parse {
                    line: last_line.max(1),
                    col: 1,
                    expected: "an END instruction".into(),
                    found: "end of text".into(),
                });
            }
            Ok(shader)
        }
    }
}

fn end_of_line(c: &mut Cursor) -> Result<()> {
    if c.at_end() {
        Ok(())
    } else {
        Err(c.error("end of line"))
    }
}

fn statement(c: &mut Cursor, sh: &mut Shader) -> Result<()> {
    let start = c.pos();
    if matches!(c.peek(), Some(d) if d.is_ascii_digit()) {
        c.uint("instruction number")?;
        c.expect(':')?;
        let ins = instruction(c)?;
        sh.instrs.push(ins);
        return Ok(());
    }
    let w = c.word();
    match w.as_str() {
        "PROPERTY" => {
            let name = c.expect_word("a property name")?;
            let value = c.expect_word("a property value")?;
            end_of_line(c)?;
            sh.properties.push((name, value));
            Ok(())
        }
        "DCL" => {
            let d = declaration(c)?;
            sh.decls.push(d);
            Ok(())
        }
        "IMM" => {
            if c.eat('[') {
                let pos = c.pos();
                let n = c.uint("an immediate index")?;
                if n as usize != sh.imms.len() {
                    c.rewind(pos);
                    return Err(c.error(&format!("immediate index {}", sh.imms.len())));
                }
                c.expect(']')?;
            }
            let imm = immediate(c)?;
            sh.imms.push(imm);
            Ok(())
        }
        "" => {
            c.rewind(start);
            Err(c.error("a statement (DCL, IMM, PROPERTY or an instruction)"))
        }
        _ => {
            c.rewind(start);
            let ins = instruction(c)?;
            sh.instrs.push(ins);
            Ok(())
        }
    }
}

fn immediate(c: &mut Cursor) -> Result<Immediate> {
    let pos = c.pos();
    let ty = match c.word().as_str() {
        "FLT32" => ImmType::Flt32,
        "UINT32" => ImmType::Uint32,
        "INT32" => ImmType::Int32,
        "FLT64" | "UINT64" | "INT64" => {
            return Err(CompileError::Unsupported {
                line: c.line(),
                what: "64-bit immediates".into(),
            })
        }
        _ => {
            c.rewind(pos);
            return Err(c.error("FLT32, UINT32 or INT32"));
        }
    };
    c.expect('{')?;
    let mut bits = [0u32; 4];
    for (i, b) in bits.iter_mut().enumerate() {
        if i > 0 && !c.eat(',') {
            break;
        }
        *b = imm_value(c, ty)?;
    }
    c.expect('}')?;
    end_of_line(c)?;
    Ok(Immediate { ty, bits })
}

fn imm_value(c: &mut Cursor, ty: ImmType) -> Result<u32> {
    let pos = c.pos();
    let tok = c.number_token();
    let hex = tok
        .strip_prefix("0x")
        .or_else(|| tok.strip_prefix("0X"))
        .map(|h| u32::from_str_radix(h, 16));
    let v = match (hex, ty) {
        (Some(Ok(v)), _) => Some(v),
        (Some(Err(_)), _) => None,
        (None, ImmType::Flt32) => tok.parse::<f32>().ok().map(f32::to_bits),
        (None, ImmType::Uint32) => tok.parse::<u32>().ok(),
        (None, ImmType::Int32) => tok.parse::<i32>().ok().map(|v| v as u32),
    };
    v.ok_or_else(|| {
        c.rewind(pos);
        c.error(match ty {
            ImmType::Flt32 => "a float (decimal or 0x bits)",
            ImmType::Uint32 => "an unsigned integer",
            ImmType::Int32 => "a signed integer",
        })
    })
}

fn file(c: &mut Cursor) -> Result<File> {
    let pos = c.pos();
    let w = c.word();
    File::from_name(&w).ok_or_else(|| {
        c.rewind(pos);
        c.error("a register file (IN, OUT, TEMP, CONST, IMM, SAMP, SVIEW, ADDR, SV)")
    })
}

fn declaration(c: &mut Cursor) -> Result<Decl> {
    let line = c.line();
    let file = file(c)?;
    c.expect('[')?;
    let mut first = c.uint("a register index")?;
    let mut dim = 0;
    if c.eat(']') {
        // `CONST[1][0..3]`: the first bracket was the buffer.
        if c.eat('[') {
            dim = first;
            first = c.uint("a register index")?;
        } else {
            let d = finish_decl(c, file, 0, first, first, line)?;
            return Ok(d);
        }
    }
    let mut last = first;
    if c.eat('.') {
        c.expect('.')?;
        let pos = c.pos();
        last = c.uint("the last register of the range")?;
        if last < first {
            c.rewind(pos);
            return Err(c.error(&format!("a last index >= {first}")));
        }
    }
    c.expect(']')?;
    finish_decl(c, file, dim, first, last, line)
}

fn finish_decl(
    c: &mut Cursor,
    file: File,
    dim: u32,
    first: u32,
    last: u32,
    line: u32,
) -> Result<Decl> {
    let mut d = Decl {
        file,
        dim,
        first,
        last,
        usage_mask: 0xF,
        semantic: None,
        interp: None,
        centroid: false,
        array_id: 0,
        target: None,
        target_col: 0,
        line,
    };
    c.skip_ws();
    if c.peek() == Some('.') {
        c.eat('.');
        d.usage_mask = write_mask(c)?;
    }
    while c.eat(',') {
        let pos = c.pos();
        let w = c.word();
        if w.is_empty() {
            c.rewind(pos);
            return Err(c.error("a semantic, interpolation or declaration flag"));
        }
        if let Some(name) = SemanticName::ALL.iter().find(|n| n.name() == w) {
            let mut index = 0;
            if c.eat('[') {
                index = c.uint("a semantic index")?;
                c.expect(']')?;
            }
            if d.semantic.is_some() {
                // tgsi_dump prints `COLOR, COLOR`: the second COLOR is the interpolation.
                if *name == SemanticName::Color && d.interp.is_none() {
                    d.interp = Some(Interp::Color);
                    continue;
                }
                c.rewind(pos);
                return Err(c.error("one semantic per declaration"));
            }
            d.semantic = Some(Semantic { name: *name, index });
            continue;
        }
        match w.as_str() {
            "CONSTANT" => d.interp = Some(Interp::Constant),
            "LINEAR" => d.interp = Some(Interp::Linear),
            "PERSPECTIVE" => d.interp = Some(Interp::Perspective),
            "CENTROID" => d.centroid = true,
            "ARRAY" => {
                c.expect('(')?;
                d.array_id = c.uint("an array id")?;
                c.expect(')')?;
            }
            "LOCAL" | "INVARIANT" | "FLOAT" | "UINT" | "SINT" | "UNORM" | "SNORM" | "SAMPLE" => {}
            _ => {
                if let Some(t) = target_name(&w) {
                    d.target = Some(t);
                    d.target_col = col_of(c.pos() - w.chars().count());
                } else {
                    return Err(CompileError::Unsupported {
                        line: c.line(),
                        what: format!("declaration item {w}"),
                    });
                }
            }
        }
    }
    end_of_line(c)?;
    Ok(d)
}

/// The 1-based column of cursor position `pos`.
fn col_of(pos: usize) -> u32 {
    u32::try_from(pos + 1).unwrap_or(u32::MAX)
}

fn target_name(w: &str) -> Option<TexTarget> {
    TexTarget::ALL.iter().copied().find(|t| t.name() == w)
}

fn comp(ch: char) -> Option<u8> {
    match ch {
        'x' => Some(0),
        'y' => Some(1),
        'z' => Some(2),
        'w' => Some(3),
        _ => None,
    }
}

fn write_mask(c: &mut Cursor) -> Result<u8> {
    let pos = c.pos();
    let w = c.word();
    let mut mask = 0u8;
    let mut last = -1i32;
    for ch in w.chars() {
        match comp(ch) {
            Some(v) if i32::from(v) > last => {
                mask |= 1 << v;
                last = i32::from(v);
            }
            _ => {
                c.rewind(pos);
                return Err(c.error("a write mask (x, y, z, w in order)"));
            }
        }
    }
    if mask == 0 {
        c.rewind(pos);
        return Err(c.error("a write mask"));
    }
    Ok(mask)
}

fn swizzle(c: &mut Cursor) -> Result<[u8; 4]> {
    let pos = c.pos();
    let w = c.word();
    let comps: Option<Vec<u8>> = w.chars().map(comp).collect();
    match comps {
        Some(v) if !v.is_empty() && v.len() <= 4 => {
            let mut s = [0u8; 4];
            for (i, l) in s.iter_mut().enumerate() {
                *l = v[i.min(v.len() - 1)];
            }
            Ok(s)
        }
        _ => {
            c.rewind(pos);
            Err(c.error("a swizzle of 1 to 4 of x, y, z, w"))
        }
    }
}

/// `FILE[i]`, `FILE[d][i]`, `FILE[ADDR[0].x+3]`.
fn reg_ref(c: &mut Cursor) -> Result<RegRef> {
    let f = file(c)?;
    c.expect('[')?;
    let (mut index, mut indirect) = bracket_index(c)?;
    c.expect(']')?;
    let mut dim = 0;
    c.skip_ws();
    if c.peek() == Some('[') {
        if indirect.is_some() || index < 0 {
            return Err(c.error("'.' or ','"));
        }
        dim = u32::try_from(index).map_err(|_| c.error("a buffer index"))?;
        c.eat('[');
        let (i2, ind2) = bracket_index(c)?;
        index = i2;
        indirect = ind2;
        c.expect(']')?;
    }
    // tgsi_dump prints the array id of an array access after the brackets: `TEMP[1](2)`.
    let mut array_id = 0;
    if c.peek() == Some('(') {
        c.eat('(');
        array_id = c.uint("an array id")?;
        c.expect(')')?;
    }
    Ok(RegRef {
        file: f,
        dim,
        index,
        indirect,
        array_id,
    })
}

fn bracket_index(c: &mut Cursor) -> Result<(i64, Option<Indirect>)> {
    c.skip_ws();
    if matches!(c.peek(), Some(d) if d.is_ascii_digit()) {
        return Ok((i64::from(c.uint("a register index")?), None));
    }
    let f = file(c)?;
    c.expect('[')?;
    let idx = c.uint("an address register index")?;
    c.expect(']')?;
    c.expect('.')?;
    let pos = c.pos();
    let w = c.word();
    let comp = match w.chars().next().and_then(comp) {
        Some(v) if w.len() == 1 => v,
        _ => {
            c.rewind(pos);
            return Err(c.error("an address component (x, y, z or w)"));
        }
    };
    let mut offset = 0i64;
    if c.eat('+') {
        offset = i64::from(c.uint("an offset")?);
    } else if c.eat('-') {
        offset = -i64::from(c.uint("an offset")?);
    }
    Ok((
        offset,
        Some(Indirect {
            file: f,
            index: idx,
            comp,
        }),
    ))
}

enum Operand {
    Reg {
        reg: RegRef,
        comps: Option<[u8; 4]>,
        mask: Option<u8>,
        neg: bool,
        abs: bool,
    },
    /// The target and its 1-based column.
    Target(TexTarget, u32),
    Label(u32),
}

fn operand(c: &mut Cursor) -> Result<Operand> {
    c.skip_ws();
    if c.eat(':') {
        return Ok(Operand::Label(c.uint("a label")?));
    }
    if matches!(c.peek(), Some(d) if d.is_ascii_digit())
        || (c.peek().is_some_and(|ch| ch.is_ascii_uppercase()) && {
            let pos = c.pos();
            let w = c.word();
            c.rewind(pos);
            File::from_name(&w).is_none()
        })
    {
        let pos = c.pos();
        let w = c.word();
        return match target_name(&w) {
            Some(t) => Ok(Operand::Target(t, col_of(pos))),
            None => {
                c.rewind(pos);
                Err(c.error("an operand (register, texture target or :label)"))
            }
        };
    }
    let neg = c.eat('-');
    let abs = c.eat('|');
    let reg = reg_ref(c)?;
    let mut comps = None;
    let mut mask = None;
    c.skip_ws();
    if c.peek() == Some('.') {
        c.eat('.');
        let pos = c.pos();
        // Kept both ways; the opcode decides whether this is a mask or a swizzle.
        let s = swizzle(c)?;
        let end = c.pos();
        c.rewind(pos);
        mask = write_mask(c).ok();
        c.rewind(end);
        comps = Some(s);
    }
    if abs {
        c.expect('|')?;
        // tgsi_dump puts the swizzle inside the bars; accept it after them too.
        if comps.is_none() && c.peek() == Some('.') {
            c.eat('.');
            comps = Some(swizzle(c)?);
        }
    }
    Ok(Operand::Reg {
        reg,
        comps,
        mask,
        neg,
        abs,
    })
}

/// TGSI opcodes without a destination (everything else has one).
const NO_DST: [&str; 16] = [
    "END", "KILL", "KILL_IF", "IF", "UIF", "ELSE", "ENDIF", "BGNLOOP", "ENDLOOP", "BRK", "CONT",
    "CAL", "RET", "BGNSUB", "ENDSUB", "NOP",
];

fn instruction(c: &mut Cursor) -> Result<Instruction> {
    let line = c.line();
    let mut name = c.expect_word("an opcode")?;
    if !name
        .chars()
        .all(|ch| ch.is_ascii_uppercase() || ch.is_ascii_digit() || ch == '_')
    {
        return Err(CompileError::Parse {
            line,
            col: 1,
            expected: "an opcode".into(),
            found: format!("'{name}'"),
        });
    }
    let mut sat = false;
    if let Some(base) = name.strip_suffix("_SAT") {
        name = base.to_string();
        sat = true;
    }
    let mut ins = Instruction {
        opcode: name,
        sat,
        dst: Vec::new(),
        src: Vec::new(),
        target: None,
        target_col: 0,
        label: None,
        line,
    };
    let has_dst = !NO_DST.contains(&ins.opcode.as_str());
    let mut first = true;
    if !c.at_end() {
        loop {
            let pos = c.pos();
            match operand(c)? {
                Operand::Label(l) => ins.label = Some(l),
                Operand::Target(t, col) => {
                    ins.target = Some(t);
                    ins.target_col = col;
                }
                Operand::Reg {
                    reg,
                    comps,
                    mask,
                    neg,
                    abs,
                } => {
                    if first && has_dst {
                        if neg || abs {
                            c.rewind(pos);
                            return Err(c.error("a destination register (no modifiers)"));
                        }
                        let mask = match (comps, mask) {
                            (None, _) => 0xF,
                            (Some(_), Some(m)) => m,
                            (Some(_), None) => {
                                c.rewind(pos);
                                return Err(
                                    c.error("a destination with a write mask in xyzw order")
                                );
                            }
                        };
                        ins.dst.push(DstOperand { reg, mask });
                    } else {
                        ins.src.push(SrcOperand {
                            reg,
                            swz: comps.unwrap_or([0, 1, 2, 3]),
                            neg,
                            abs,
                        });
                    }
                }
            }
            first = false;
            if !c.eat(',') {
                break;
            }
        }
    }
    // tgsi_dump prints flow labels after a space, not a comma: `IF TEMP[0].xxxx :4`.
    if c.eat(':') {
        ins.label = Some(c.uint("a label")?);
    }
    end_of_line(c)?;
    Ok(ins)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_glxgears_fs() {
        let sh = parse(
            "FRAG\nPROPERTY FS_COLOR0_WRITES_ALL_CBUFS 1\nDCL IN[0], COLOR, COLOR\nDCL OUT[0], COLOR\n  0: MOV OUT[0], IN[0]\n  1: END\n",
        )
        .unwrap();
        assert_eq!(sh.stage, ShaderStage::Fragment);
        assert_eq!(sh.decls.len(), 2);
        assert_eq!(sh.decls[0].interp, Some(Interp::Color));
        assert_eq!(
            sh.decls[0].semantic,
            Some(Semantic {
                name: SemanticName::Color,
                index: 0
            })
        );
        assert_eq!(sh.instrs.len(), 2);
        assert_eq!(sh.instrs[0].opcode, "MOV");
    }

    #[test]
    fn parses_operand_forms() {
        let sh = parse(
            "VERT\nDCL CONST[1][0..10]\nDCL ADDR[0]\nIMM[0] FLT32 { 0x3f000000, 1.5, -2, 0}\nIMM[1] INT32 {-1, 2, 3, 4}\n\
             0: MAD_SAT TEMP[0].xz, -|CONST[1][ADDR[0].x+3].yzxw|, IMM[0].x, TEMP[1]\n1: TEX TEMP[0], IN[0].xyyy, SAMP[2], 2D\n2: IF TEMP[0].xxxx :4\n3: END\n",
        )
        .unwrap();
        assert_eq!(sh.decls[0].dim, 1);
        assert_eq!((sh.decls[0].first, sh.decls[0].last), (0, 10));
        assert_eq!(
            sh.imms[0].bits,
            [0x3f00_0000, 1.5f32.to_bits(), (-2f32).to_bits(), 0]
        );
        assert_eq!(sh.imms[1].bits[0], u32::MAX);
        let i = &sh.instrs[0];
        assert!(i.sat);
        assert_eq!(i.dst[0].mask, 0b0101);
        let s = i.src[0];
        assert!(s.neg && s.abs);
        assert_eq!(s.swz, [1, 2, 0, 3]);
        assert_eq!(s.reg.dim, 1);
        assert_eq!(s.reg.index, 3);
        assert_eq!(s.reg.indirect.unwrap().file, File::Addr);
        assert_eq!(i.src[1].swz, [0, 0, 0, 0]);
        assert_eq!(sh.instrs[1].target, Some(TexTarget::D2));
        // "1: TEX TEMP[0], IN[0].xyyy, SAMP[2], 2D": the target starts in column 38.
        assert_eq!(sh.instrs[1].target_col, 38);
        assert_eq!(sh.instrs[0].target_col, 0);
        assert_eq!(sh.instrs[2].label, Some(4));
    }

    #[test]
    fn view_targets_keep_their_column() {
        let sh =
            parse("FRAG\nDCL SVIEW[0],   SHADOW2D, FLOAT\nDCL SVIEW[1], 3D\n0: END\n").unwrap();
        assert_eq!(
            (sh.decls[0].target, sh.decls[0].target_col),
            (Some(TexTarget::Shadow2D), 17)
        );
        assert_eq!(
            (sh.decls[1].target, sh.decls[1].target_col),
            (Some(TexTarget::D3), 15)
        );
    }

    #[test]
    fn errors_name_line_column_and_expectation() {
        let e = parse("VERT\n  0: MOV TEMP[0], TEMP[\n1: END\n").unwrap_err();
        match e {
            CompileError::Parse {
                line,
                col,
                expected,
                ..
            } => {
                assert_eq!(line, 2);
                assert_eq!(col, 24);
                assert!(
                    expected.contains("index") || expected.contains("register"),
                    "{expected}"
                );
            }
            other => panic!("{other:?}"),
        }
        let e = parse("PIXEL\n").unwrap_err();
        assert!(
            matches!(
                e,
                CompileError::Parse {
                    line: 1,
                    col: 1,
                    ..
                }
            ),
            "{e:?}"
        );
        let e = parse("VERT\n0: MOV TEMP[0].yx, TEMP[1]\n1: END\n").unwrap_err();
        assert!(e.to_string().contains("write mask"), "{e}");
    }
}
