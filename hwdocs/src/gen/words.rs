//! Words and registers: a struct per word with `pack()` / `unpack()`, field layout and
//! evidence, checked defaults.

use super::defs::*;
use super::GenError;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

pub(super) fn gen_word(
    cx: &Ctx,
    out: &mut String,
    items: &mut Vec<ItemRow>,
    block: &str,
    w: &WordDef,
    enums: &BTreeMap<String, EnumInfo>,
) -> Result<(), GenError> {
    let what = format!("word {}", w.name);
    let (ev, src) = cx.evidence(&what, &w.evidence, &w.source)?;
    if w.dwords == 0 || w.dwords > 64 {
        return Err(cx.err(&what, format!("dwords {} is not in 1..=64", w.dwords)));
    }
    items.push(ItemRow::new(block, &[&w.name], "word", &ev, &src));
    let enum_blocks: BTreeMap<String, String> = enums
        .iter()
        .map(|(k, v)| (k.clone(), v.block.clone()))
        .collect();
    let mut fields: Vec<Field> = Vec::new();
    let mut used = vec![0u32; w.dwords as usize];
    let mut names = BTreeSet::new();
    for fd in &w.fields {
        let fwhat = format!("{what} field {}", fd.name);
        check_ident_lower(cx, &fwhat, &fd.name)?;
        if !names.insert(fd.name.clone()) {
            return Err(cx.err(&fwhat, "duplicate field name"));
        }
        let (fev, fsrc) = cx.evidence(&fwhat, &fd.evidence, &fd.source)?;
        let (lo, hi) = parse_bits(cx, &fwhat, &fd.bits)?;
        if fd.dw >= w.dwords {
            return Err(cx.err(
                &fwhat,
                format!("dword {} is past the word's {} dwords", fd.dw, w.dwords),
            ));
        }
        let mask = if hi - lo == 31 {
            u32::MAX
        } else {
            ((1u32 << (hi - lo + 1)) - 1) << lo
        };
        if used[fd.dw as usize] & mask != 0 {
            let other = fields
                .iter()
                .find(|o| o.def.dw == fd.dw && o.lo <= hi && lo <= o.hi)
                .map(|o| o.def.name.clone())
                .unwrap_or_default();
            return Err(cx.err(&fwhat, format!("overlaps field {other}")));
        }
        used[fd.dw as usize] |= mask;
        let f = Field {
            def: fd.clone(),
            lo,
            hi,
            evidence: fev.clone(),
            source: fsrc.clone(),
        };
        match fd.ty.as_str() {
            "uint" | "addr" | "sint" => {}
            "bool" => {
                if f.width() != 1 {
                    return Err(cx.err(&fwhat, "a bool field is one bit"));
                }
            }
            "f32" => {
                if f.width() != 32 {
                    return Err(cx.err(&fwhat, "an f32 field is 32 bits"));
                }
            }
            "enum" => {
                let en = fd
                    .enum_name
                    .as_ref()
                    .ok_or_else(|| cx.err(&fwhat, "an enum field names its enum"))?;
                let info = enums
                    .get(en)
                    .ok_or_else(|| cx.err(&fwhat, format!("unknown enum {en}")))?;
                if let Some((n, v)) = info.values.iter().find(|(_, v)| u64::from(*v) > f.cap()) {
                    return Err(cx.err(
                        &fwhat,
                        format!("enum value {en}::{n} = {v} does not fit {} bits", f.width()),
                    ));
                }
            }
            other => {
                return Err(cx.err(
                    &fwhat,
                    format!("type {other:?} is not uint, sint, bool, f32, enum or addr"),
                ))
            }
        }
        if fd.ty != "enum" && fd.enum_name.is_some() {
            return Err(cx.err(&fwhat, "only enum fields name an enum"));
        }
        if fd.ty != "addr" && fd.shift != 0 {
            return Err(cx.err(&fwhat, "only addr fields have a shift"));
        }
        if fd.ty == "addr" && f.width() + fd.shift > 32 {
            return Err(cx.err(&fwhat, "width plus shift exceed a 32-bit address"));
        }
        if let Some(m) = fd.max {
            if fd.ty != "uint" {
                return Err(cx.err(&fwhat, "only uint fields take a max"));
            }
            if m > f.cap() {
                return Err(cx.err(&fwhat, format!("max {m} does not fit {} bits", f.width())));
            }
        }
        // Defaults must fit.
        if let Some(d) = &fd.default {
            check_default(cx, &fwhat, &f, d, enums)?;
        }
        let names: [&str; 2] = [&w.name, &fd.name];
        items.push(ItemRow::new(block, &names, "field", &fev, &fsrc));
        fields.push(f);
    }

    let n = w.dwords;
    writeln!(
        out,
        "\n#[doc = {:?}]\n#[derive(Debug, Clone, Copy, PartialEq)]\npub struct {} {{",
        format!("{} [{} — {}]", w.doc, ev, src),
        w.name
    )
    .unwrap();
    for f in &fields {
        writeln!(
            out,
            "    #[doc = {:?}]\n    pub {}: {},",
            format!(
                "{} (dword {}, bits {}:{}{}) [{} — {}]",
                f.def.doc,
                f.def.dw,
                f.hi,
                f.lo,
                if f.def.ty == "addr" {
                    format!("; a byte address, {}-byte aligned", 1u64 << f.def.shift)
                } else {
                    String::new()
                },
                f.evidence,
                f.source
            ),
            f.def.name,
            f.rust_type(&enum_blocks)
        )
        .unwrap();
    }
    writeln!(out, "}}").unwrap();

    // Default
    writeln!(
        out,
        "impl Default for {} {{ fn default() -> Self {{ Self {{",
        w.name
    )
    .unwrap();
    for f in &fields {
        writeln!(
            out,
            "    {}: {},",
            f.def.name,
            default_expr(f, &enum_blocks, enums)
        )
        .unwrap();
    }
    writeln!(out, "}} }} }}").unwrap();

    writeln!(out, "impl {} {{", w.name).unwrap();
    writeln!(
        out,
        "    /// Size in dwords.\n    pub const DWORDS: usize = {n};"
    )
    .unwrap();
    writeln!(
        out,
        "    /// Bits of each dword that no field covers: they must be zero."
    )
    .unwrap();
    writeln!(
        out,
        "    pub const RESERVED: [u32; {n}] = [{}];",
        used.iter()
            .map(|u| format!("{:#010x}", !u))
            .collect::<Vec<_>>()
            .join(", ")
    )
    .unwrap();
    // One mask per field, in its dword, so code that tests or raises a bit (an event, a fault
    // bit) names the field instead of writing the bit by hand.
    for f in &fields {
        let mask = (f.cap() << f.lo) as u32;
        writeln!(
            out,
            "    /// Mask of `{}` in dword {} (bits {}:{}) [{} — {}].\n    pub const {}_MASK: u32 = {:#010x};",
            f.def.name,
            f.def.dw,
            f.hi,
            f.lo,
            f.evidence,
            f.source,
            f.def.name.to_ascii_uppercase(),
            mask
        )
        .unwrap();
    }
    writeln!(out, "    /// Layout and evidence of every field.\n    pub const FIELDS: &'static [FieldInfo] = &[").unwrap();
    for f in &fields {
        writeln!(
            out,
            "        FieldInfo {{ name: {:?}, dw: {}, lo: {}, hi: {}, evidence: Evidence::{}, source: {:?} }},",
            f.def.name,
            f.def.dw,
            f.lo,
            f.hi,
            ev_variant(&f.evidence),
            f.source
        )
        .unwrap();
    }
    writeln!(out, "    ];").unwrap();

    // pack
    writeln!(
        out,
        "    /// Packs the word; refuses values out of range and misaligned addresses."
    )
    .unwrap();
    writeln!(
        out,
        "    pub fn pack(&self) -> Result<[u32; {n}], PackError> {{"
    )
    .unwrap();
    writeln!(out, "        let mut dw = [0u32; {n}];").unwrap();
    for f in &fields {
        let name = &f.def.name;
        let cap = f.cap();
        let (d, lo) = (f.def.dw, f.lo);
        let wn = &w.name;
        match f.def.ty.as_str() {
            "bool" => writeln!(out, "        dw[{d}] |= (self.{name} as u32) << {lo};").unwrap(),
            "f32" => writeln!(out, "        dw[{d}] |= self.{name}.to_bits();").unwrap(),
            "enum" => writeln!(out, "        dw[{d}] |= self.{name}.raw() << {lo};").unwrap(),
            "sint" => {
                let half = 1i64 << (f.width() - 1);
                writeln!(out, "        {{ let v = self.{name} as i64; if v < -{half} || v > {} {{ return Err(PackError::OutOfRange {{ word: {wn:?}, field: {name:?}, value: v, min: -{half}, max: {} }}); }}", half - 1, half - 1).unwrap();
                writeln!(
                    out,
                    "          dw[{d}] |= ((v as u64 & {cap:#x}) as u32) << {lo}; }}"
                )
                .unwrap();
            }
            "addr" => {
                let s = f.def.shift;
                let align = 1u64 << s;
                let maxv = cap << s;
                writeln!(out, "        {{ let v = self.{name} as u64; if v & {:#x} != 0 {{ return Err(PackError::Misaligned {{ word: {wn:?}, field: {name:?}, value: v, align: {align} }}); }}", align - 1).unwrap();
                writeln!(out, "          if v > {maxv:#x} {{ return Err(PackError::OutOfRange {{ word: {wn:?}, field: {name:?}, value: v as i64, min: 0, max: {maxv:#x} }}); }}").unwrap();
                writeln!(out, "          dw[{d}] |= ((v >> {s}) as u32) << {lo}; }}").unwrap();
            }
            _ => {
                let maxv = f.def.max.unwrap_or(cap);
                writeln!(out, "        {{ let v = self.{name} as u64; if v > {maxv:#x} {{ return Err(PackError::OutOfRange {{ word: {wn:?}, field: {name:?}, value: v as i64, min: 0, max: {maxv:#x} }}); }}").unwrap();
                writeln!(out, "          dw[{d}] |= (v as u32) << {lo}; }}").unwrap();
            }
        }
    }
    writeln!(out, "        Ok(dw)\n    }}").unwrap();

    // unpack
    writeln!(
        out,
        "    /// Decodes the word; refuses set reserved bits and unknown enum values."
    )
    .unwrap();
    writeln!(
        out,
        "    pub fn unpack(dw: &[u32]) -> Result<Self, DecodeError> {{"
    )
    .unwrap();
    writeln!(out, "        if dw.len() < {n} {{ return Err(DecodeError::Short {{ word: {:?}, need: {n}, got: dw.len() }}); }}", w.name).unwrap();
    writeln!(out, "        for (i, r) in Self::RESERVED.iter().enumerate() {{ if dw[i] & r != 0 {{ return Err(DecodeError::Reserved {{ word: {:?}, dw: i, bits: dw[i] & r }}); }} }}", w.name).unwrap();
    writeln!(out, "        Ok(Self {{").unwrap();
    for f in &fields {
        let name = &f.def.name;
        let cap = f.cap();
        let (d, lo) = (f.def.dw, f.lo);
        let raw = format!("(u64::from(dw[{d}] >> {lo}) & {cap:#x})");
        let wn = &w.name;
        let raw_bare = &raw[1..raw.len() - 1];
        let expr = match f.def.ty.as_str() {
            "bool" => format!("{raw} != 0"),
            "f32" => format!("f32::from_bits(dw[{d}])"),
            "enum" => {
                let en = f.def.enum_name.as_ref().unwrap();
                format!(
                    "{{ let r = {raw} as u32; crate::generated::{}::{}::from_raw(r).ok_or(DecodeError::UnknownValue {{ word: {wn:?}, field: {name:?}, value: r }})? }}",
                    enum_blocks[en], en
                )
            }
            "sint" => {
                let wdt = f.width();
                format!("{{ let r = {raw} as i64; (if r >= {} {{ r - {} }} else {{ r }}) as i32 }}", 1u64 << (wdt - 1), 1u64 << wdt)
            }
            "addr" => format!("({raw} << {}) as u32", f.def.shift),
            _ => match f.def.max {
                Some(m) => format!(
                    "{{ let r = {raw_bare}; if r > {m} {{ return Err(DecodeError::OutOfRange {{ word: {wn:?}, field: {name:?}, value: r as u32 }}); }} r as u32 }}"
                ),
                None => format!("{raw} as u32"),
            },
        };
        writeln!(out, "            {name}: {expr},").unwrap();
    }
    writeln!(out, "        }})\n    }}").unwrap();

    // sample: a valid value from a source of random bits (for the round-trip property test).
    writeln!(out, "    /// A valid value drawn from `bits` (called with a bit count, returns that many random bits).").unwrap();
    writeln!(
        out,
        "    pub fn sample(bits: &mut dyn FnMut(u32) -> u64) -> Self {{ Self {{"
    )
    .unwrap();
    for f in &fields {
        let name = &f.def.name;
        let wdt = f.width();
        let expr = match f.def.ty.as_str() {
            "bool" => "bits(1) != 0".to_string(),
            "f32" => {
                "{ let v = f32::from_bits(bits(32) as u32); if v.is_finite() { v } else { 0.5 } }"
                    .to_string()
            }
            "enum" => {
                let en = f.def.enum_name.as_ref().unwrap();
                let p = format!("crate::generated::{}::{}", enum_blocks[en], en);
                format!("{p}::ALL[(bits(16) as usize) % {p}::ALL.len()]")
            }
            "sint" => format!(
                "{{ let r = bits({wdt}) as i64; (if r >= {} {{ r - {} }} else {{ r }}) as i32 }}",
                1u64 << (wdt - 1),
                1u64 << wdt
            ),
            "addr" => format!("((bits({wdt})) << {}) as u32", f.def.shift),
            _ => match f.def.max {
                Some(m) => format!("(bits({wdt}) % {}) as u32", m + 1),
                None => format!("bits({wdt}) as u32"),
            },
        };
        writeln!(out, "        {name}: {expr},").unwrap();
    }
    writeln!(out, "    }} }}").unwrap();
    writeln!(
        out,
        "    /// Packs and unpacks a sampled value; `Err` names what did not survive."
    )
    .unwrap();
    writeln!(
        out,
        "    pub fn roundtrip_sample(bits: &mut dyn FnMut(u32) -> u64) -> Result<(), String> {{"
    )
    .unwrap();
    writeln!(out, "        let v = Self::sample(bits);").unwrap();
    writeln!(
        out,
        "        let p = v.pack().map_err(|e| format!(\"{{v:?}}: {{e}}\"))?;"
    )
    .unwrap();
    writeln!(
        out,
        "        let u = Self::unpack(&p).map_err(|e| format!(\"{{v:?}} -> {{p:x?}}: {{e}}\"))?;"
    )
    .unwrap();
    writeln!(
        out,
        "        if u != v {{ return Err(format!(\"{{v:?}} came back as {{u:?}}\")); }}"
    )
    .unwrap();
    writeln!(out, "        Ok(())\n    }}").unwrap();
    writeln!(out, "}}").unwrap();
    Ok(())
}

pub(super) fn check_default(
    cx: &Ctx,
    what: &str,
    f: &Field,
    d: &serde_json::Value,
    enums: &BTreeMap<String, EnumInfo>,
) -> Result<(), GenError> {
    let bad = |m: String| cx.err(what, format!("default {d}: {m}"));
    match f.def.ty.as_str() {
        "bool" => d
            .as_bool()
            .map(|_| ())
            .ok_or_else(|| bad("not a bool".into())),
        "f32" => d
            .as_f64()
            .map(|_| ())
            .ok_or_else(|| bad("not a number".into())),
        "enum" => {
            let en = f.def.enum_name.as_ref().unwrap();
            let s = d.as_str().ok_or_else(|| bad("not a value name".into()))?;
            if enums[en].values.iter().any(|(n, _)| n == s) {
                Ok(())
            } else {
                Err(bad(format!("not a value of {en}")))
            }
        }
        "sint" => {
            let v = d.as_i64().ok_or_else(|| bad("not an integer".into()))?;
            let half = 1i64 << (f.width() - 1);
            if v < -half || v >= half {
                Err(bad(format!("out of range for {} signed bits", f.width())))
            } else {
                Ok(())
            }
        }
        "addr" => {
            let v = d.as_u64().ok_or_else(|| bad("not an address".into()))?;
            if v & ((1u64 << f.def.shift) - 1) != 0 {
                return Err(bad(format!("not {}-byte aligned", 1u64 << f.def.shift)));
            }
            if v > f.cap() << f.def.shift {
                return Err(bad("out of range".into()));
            }
            Ok(())
        }
        _ => {
            let v = d
                .as_u64()
                .ok_or_else(|| bad("not an unsigned integer".into()))?;
            let max = f.def.max.unwrap_or(f.cap());
            if v > max {
                Err(bad(format!("out of range (max {max})")))
            } else {
                Ok(())
            }
        }
    }
}

pub(super) fn default_expr(
    f: &Field,
    enum_blocks: &BTreeMap<String, String>,
    enums: &BTreeMap<String, EnumInfo>,
) -> String {
    let d = f.def.default.as_ref();
    match f.def.ty.as_str() {
        "bool" => d.and_then(|v| v.as_bool()).unwrap_or(false).to_string(),
        "f32" => format!("{:?}f32", d.and_then(|v| v.as_f64()).unwrap_or(0.0) as f32),
        "enum" => {
            let en = f.def.enum_name.as_ref().unwrap();
            let name = d
                .and_then(|v| v.as_str())
                .map(str::to_string)
                .unwrap_or_else(|| {
                    // The lowest-coded value stands in when no default is given.
                    enums[en]
                        .values
                        .iter()
                        .min_by_key(|(_, v)| *v)
                        .unwrap()
                        .0
                        .clone()
                });
            format!("crate::generated::{}::{}::{}", enum_blocks[en], en, name)
        }
        "sint" => format!("{}i32", d.and_then(|v| v.as_i64()).unwrap_or(0)),
        _ => format!("{}u32", d.and_then(|v| v.as_u64()).unwrap_or(0)),
    }
}
