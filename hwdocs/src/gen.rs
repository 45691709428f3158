//! The generator: hwdocs/defs/*.json in, Rust source out.
//!
//! Used by build.rs (through `#[path]`) and by the library's tests, which feed it broken
//! definitions. It is strict in the manner of Mesa's csbgen: every item carries evidence and
//! a source, fields may not overlap or leave their word, names and offsets are unique, and
//! defaults fit their fields. Errors name the file and the item.

use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

/// A definition the generator refuses, with the file and item it concerns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GenError(pub String);

impl std::fmt::Display for GenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for GenError {}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    block: String,
    doc: String,
    evidence: Option<String>,
    source: Option<String>,
    #[serde(default)]
    enums: Vec<EnumDef>,
    #[serde(default)]
    words: Vec<WordDef>,
    #[serde(default)]
    registers: Vec<RegDef>,
    #[serde(default)]
    constants: Vec<ConstDef>,
    #[serde(default)]
    formats: Vec<FormatDef>,
    /// Free prose sections (render.json's programming sequence); checked for evidence only.
    #[serde(default)]
    notes: Vec<NoteDef>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NoteDef {
    name: String,
    doc: String,
    evidence: Option<String>,
    source: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct EnumDef {
    name: String,
    doc: String,
    evidence: Option<String>,
    source: Option<String>,
    /// Typed attributes every value carries: attribute name -> "str" or the name of an enum.
    #[serde(default)]
    attrs: BTreeMap<String, String>,
    values: Vec<EnumValue>,
}

#[derive(Deserialize)]
struct EnumValue {
    name: String,
    value: u32,
    #[serde(default)]
    doc: String,
    evidence: Option<String>,
    source: Option<String>,
    #[serde(flatten)]
    attrs: BTreeMap<String, serde_json::Value>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WordDef {
    name: String,
    dwords: u32,
    doc: String,
    evidence: Option<String>,
    source: Option<String>,
    fields: Vec<FieldDef>,
}

#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
struct FieldDef {
    name: String,
    #[serde(default)]
    dw: u32,
    /// "hi:lo", or "n" for one bit.
    bits: String,
    #[serde(rename = "type", default = "default_type")]
    ty: String,
    /// For "enum" fields: the enum's name.
    #[serde(rename = "enum")]
    enum_name: Option<String>,
    /// For "addr" fields: how many low address bits are dropped (the alignment's log2).
    #[serde(default)]
    shift: u32,
    /// For "uint" fields: an upper bound below the field's capacity.
    max: Option<u64>,
    default: Option<serde_json::Value>,
    #[serde(default)]
    doc: String,
    evidence: Option<String>,
    source: Option<String>,
}

fn default_type() -> String {
    "uint".into()
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RegDef {
    name: String,
    offset: String,
    /// A register array: how many, and the byte distance between them.
    #[serde(default)]
    count: Option<u32>,
    #[serde(default)]
    stride: Option<u32>,
    doc: String,
    evidence: Option<String>,
    source: Option<String>,
    #[serde(default)]
    fields: Vec<FieldDef>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ConstDef {
    name: String,
    value: u64,
    doc: String,
    evidence: Option<String>,
    source: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FormatDef {
    name: String,
    code: u32,
    bytes_per_el: u32,
    block_w_px: u32,
    block_h_px: u32,
    /// Channels from the least significant bit up, e.g. "B8G8R8A8" is B in bits 7:0.
    channels: String,
    /// unorm, float, depth, depth_stencil, compressed
    kind: String,
    sampleable: bool,
    renderable: bool,
    twiddlable: bool,
    doc: String,
    evidence: Option<String>,
    source: Option<String>,
}

const EVIDENCE: [&str; 3] = ["CONFIRMED", "INFERRED", "MODEL"];

struct Ctx {
    file: String,
}

impl Ctx {
    fn err(&self, what: &str, msg: impl std::fmt::Display) -> GenError {
        GenError(format!("{}: {}: {}", self.file, what, msg))
    }

    fn evidence(
        &self,
        what: &str,
        evidence: &Option<String>,
        source: &Option<String>,
    ) -> Result<(String, String), GenError> {
        let ev = evidence
            .as_ref()
            .ok_or_else(|| self.err(what, "missing evidence"))?;
        if !EVIDENCE.contains(&ev.as_str()) {
            return Err(self.err(
                what,
                format!("evidence {ev:?} is not one of CONFIRMED, INFERRED, MODEL"),
            ));
        }
        let src = source
            .as_ref()
            .filter(|s| !s.trim().is_empty())
            .ok_or_else(|| self.err(what, "missing source"))?;
        if ev == "MODEL" && !src.starts_with("model:") {
            return Err(self.err(
                what,
                "a MODEL item's source must read \"model: <why this value>\"",
            ));
        }
        Ok((ev.clone(), src.clone()))
    }
}

/// One item of the run-time evidence table.
struct ItemRow {
    block: String,
    path: String,
    kind: &'static str,
    evidence: String,
    source: String,
}

#[derive(Clone)]
struct Field {
    def: FieldDef,
    lo: u32,
    hi: u32,
    evidence: String,
    source: String,
}

impl Field {
    fn width(&self) -> u32 {
        self.hi - self.lo + 1
    }
    fn cap(&self) -> u64 {
        (1u64 << self.width()) - 1
    }
    fn rust_type(&self, enums: &BTreeMap<String, String>) -> String {
        match self.def.ty.as_str() {
            "bool" => "bool".into(),
            "sint" => "i32".into(),
            "f32" => "f32".into(),
            "enum" => {
                let e = self.def.enum_name.as_ref().unwrap();
                format!("crate::generated::{}::{}", enums[e], e)
            }
            _ => "u32".into(),
        }
    }
}

struct EnumInfo {
    block: String,
    values: Vec<(String, u32)>,
}

/// Generates the Rust source for a set of definition files, given as (file name, text).
pub fn generate(files: &[(String, String)]) -> Result<String, GenError> {
    let mut parsed = Vec::new();
    for (name, text) in files {
        let f: File = serde_json::from_str(text)
            .map_err(|e| GenError(format!("{name}: malformed definition: {e}")))?;
        parsed.push((name.clone(), f));
    }

    // Pass 1: enums (global names: fields in one block may use another block's enums).
    let mut enums: BTreeMap<String, EnumInfo> = BTreeMap::new();
    let mut enum_block: BTreeMap<String, String> = BTreeMap::new();
    let mut global_names: BTreeSet<String> = BTreeSet::new();
    let mut blocks: BTreeSet<String> = BTreeSet::new();
    for (fname, f) in &parsed {
        let cx = Ctx {
            file: fname.clone(),
        };
        if !blocks.insert(f.block.clone()) {
            return Err(cx.err(&format!("block {}", f.block), "duplicate block name"));
        }
        if f.block.is_empty() || !f.block.chars().all(|c| c.is_ascii_lowercase() || c == '_') {
            return Err(cx.err(
                &format!("block {:?}", f.block),
                "block names are lower-case words",
            ));
        }
        for e in &f.enums {
            if !global_names.insert(e.name.clone()) {
                return Err(cx.err(&format!("enum {}", e.name), "duplicate name"));
            }
            let mut seen_n = BTreeSet::new();
            let mut seen_v = BTreeSet::new();
            let mut values = Vec::new();
            for v in &e.values {
                if !seen_n.insert(v.name.clone()) {
                    return Err(cx.err(
                        &format!("enum {} value {}", e.name, v.name),
                        "duplicate name",
                    ));
                }
                if !seen_v.insert(v.value) {
                    return Err(cx.err(
                        &format!("enum {} value {}", e.name, v.name),
                        format!("duplicate value {}", v.value),
                    ));
                }
                values.push((v.name.clone(), v.value));
            }
            if values.is_empty() {
                return Err(cx.err(&format!("enum {}", e.name), "has no values"));
            }
            enums.insert(
                e.name.clone(),
                EnumInfo {
                    block: f.block.clone(),
                    values,
                },
            );
            enum_block.insert(e.name.clone(), f.block.clone());
        }
    }
    if parsed.iter().any(|(_, f)| !f.formats.is_empty()) && enums.contains_key("Format") {
        return Err(GenError(
            "an enum named Format clashes with the one generated from formats".into(),
        ));
    }
    if let Some((_, f)) = parsed.iter().find(|(_, f)| !f.formats.is_empty()) {
        let values = f.formats.iter().map(|x| (x.name.clone(), x.code)).collect();
        enums.insert(
            "Format".into(),
            EnumInfo {
                block: f.block.clone(),
                values,
            },
        );
        enum_block.insert("Format".into(), f.block.clone());
    }

    let mut out = String::new();
    let mut items: Vec<ItemRow> = Vec::new();
    let mut word_list: Vec<(String, String)> = Vec::new();
    let mut reg_offsets: BTreeMap<u32, String> = BTreeMap::new();
    let mut reg_rows: Vec<String> = Vec::new();
    let mut const_names: BTreeSet<String> = BTreeSet::new();

    writeln!(
        out,
        "// @generated by hwdocs/src/gen.rs from hwdocs/defs/*.json. Do not edit."
    )
    .unwrap();
    for (fname, f) in &parsed {
        let cx = Ctx {
            file: fname.clone(),
        };
        let (bev, bsrc) = cx.evidence(&format!("block {}", f.block), &f.evidence, &f.source)?;
        items.push(ItemRow {
            block: f.block.clone(),
            path: f.block.clone(),
            kind: "block",
            evidence: bev,
            source: bsrc,
        });
        writeln!(out, "\n#[doc = {:?}]\npub mod {} {{", f.doc, f.block).unwrap();
        writeln!(
            out,
            "#![allow(clippy::all, clippy::pedantic, unused_imports)]"
        )
        .unwrap();
        writeln!(
            out,
            "use crate::{{PackError, DecodeError, Evidence, FieldInfo}};"
        )
        .unwrap();

        for n in &f.notes {
            let what = format!("note {}", n.name);
            let (ev, src) = cx.evidence(&what, &n.evidence, &n.source)?;
            let _ = &n.doc;
            items.push(ItemRow {
                block: f.block.clone(),
                path: format!("{}.{}", f.block, n.name),
                kind: "note",
                evidence: ev,
                source: src,
            });
        }

        for e in &f.enums {
            gen_enum(&cx, &mut out, &mut items, &f.block, e, &enums)?;
        }

        for c in &f.constants {
            let what = format!("constant {}", c.name);
            let (ev, src) = cx.evidence(&what, &c.evidence, &c.source)?;
            if !const_names.insert(c.name.clone()) {
                return Err(cx.err(&what, "duplicate name"));
            }
            check_ident_upper(&cx, &what, &c.name)?;
            writeln!(
                out,
                "#[doc = {:?}]\npub const {}: u64 = {};",
                c.doc, c.name, c.value
            )
            .unwrap();
            items.push(ItemRow {
                block: f.block.clone(),
                path: format!("{}.{}", f.block, c.name),
                kind: "constant",
                evidence: ev,
                source: src,
            });
        }

        for r in &f.registers {
            let what = format!("register {}", r.name);
            let (ev, src) = cx.evidence(&what, &r.evidence, &r.source)?;
            check_ident_upper(&cx, &what, &r.name)?;
            let off = parse_num(&r.offset)
                .ok_or_else(|| cx.err(&what, format!("offset {:?} is not a number", r.offset)))?;
            if off % 4 != 0 {
                return Err(cx.err(&what, format!("offset {off:#x} is not dword aligned")));
            }
            let count = r.count.unwrap_or(1);
            let stride = r.stride.unwrap_or(4);
            if count == 0
                || stride == 0
                || stride % 4 != 0
                || r.count.is_none() != r.stride.is_none()
            {
                return Err(cx.err(
                    &what,
                    "a register array has a count and a dword-multiple stride, both non-zero",
                ));
            }
            for i in 0..count {
                let o = off as u32 + i * stride;
                if let Some(other) = reg_offsets.insert(o, r.name.clone()) {
                    return Err(cx.err(&what, format!("duplicate offset {o:#x} (also {other})")));
                }
            }
            if !global_names.insert(r.name.clone()) {
                return Err(cx.err(&what, "duplicate name"));
            }
            writeln!(
                out,
                "#[doc = {:?}]\npub const {}: u32 = {:#x};",
                format!("{} [{} — {}]", r.doc, ev, src),
                r.name,
                off
            )
            .unwrap();
            reg_rows.push(format!(
                "    crate::RegInfo {{ name: {:?}, offset: {off:#x}, count: {count}, stride: {stride}, evidence: crate::Evidence::{} }},",
                r.name,
                ev_variant(&ev)
            ));
            if r.count.is_some() {
                writeln!(out, "/// Number of `{0}` registers.\npub const {0}_COUNT: u32 = {count};\n/// Byte distance between `{0}` registers.\npub const {0}_STRIDE: u32 = {stride};", r.name).unwrap();
            }
            items.push(ItemRow {
                block: f.block.clone(),
                path: format!("{}.{}", f.block, r.name),
                kind: "register",
                evidence: ev.clone(),
                source: src.clone(),
            });
            if !r.fields.is_empty() {
                let w = WordDef {
                    name: camel(&r.name),
                    dwords: 1,
                    doc: r.doc.clone(),
                    evidence: r.evidence.clone(),
                    source: r.source.clone(),
                    fields: r.fields.clone(),
                };
                if !global_names.insert(w.name.clone()) {
                    return Err(cx.err(&what, format!("struct name {} is taken", w.name)));
                }
                gen_word(&cx, &mut out, &mut items, &f.block, &w, &enums)?;
                word_list.push((f.block.clone(), w.name.clone()));
            }
        }

        for w in &f.words {
            if !global_names.insert(w.name.clone()) {
                return Err(cx.err(&format!("word {}", w.name), "duplicate name"));
            }
            gen_word(&cx, &mut out, &mut items, &f.block, w, &enums)?;
            word_list.push((f.block.clone(), w.name.clone()));
        }

        if !f.formats.is_empty() {
            gen_formats(&cx, &mut out, &mut items, &f.block, &f.formats)?;
        }
        writeln!(out, "}}").unwrap();
    }

    // The run-time evidence table.
    writeln!(
        out,
        "\n/// Every item of hwdocs with its evidence and source."
    )
    .unwrap();
    writeln!(out, "pub static ITEMS: &[crate::Item] = &[").unwrap();
    for it in &items {
        writeln!(
            out,
            "    crate::Item {{ block: {:?}, path: {:?}, kind: {:?}, evidence: crate::Evidence::{}, source: {:?} }},",
            it.block,
            it.path,
            it.kind,
            ev_variant(&it.evidence),
            it.source
        )
        .unwrap();
    }
    writeln!(out, "];").unwrap();

    writeln!(
        out,
        "\n/// Every register.\npub static REGISTERS: &[crate::RegInfo] = &["
    )
    .unwrap();
    for r in &reg_rows {
        writeln!(out, "{r}").unwrap();
    }
    writeln!(out, "];").unwrap();
    writeln!(
        out,
        "\n/// Every generated word, for round-trip checks over all of them."
    )
    .unwrap();
    writeln!(out, "pub static WORDS: &[crate::WordInfo] = &[").unwrap();
    for (b, w) in &word_list {
        writeln!(
            out,
            "    crate::WordInfo {{ block: {b:?}, name: {w:?}, dwords: {b}::{w}::DWORDS, fields: {b}::{w}::FIELDS, roundtrip: {b}::{w}::roundtrip_sample }},"
        )
        .unwrap();
    }
    writeln!(out, "];").unwrap();
    Ok(out)
}

fn ev_variant(e: &str) -> &'static str {
    match e {
        "CONFIRMED" => "Confirmed",
        "INFERRED" => "Inferred",
        _ => "Model",
    }
}

fn parse_num(s: &str) -> Option<u64> {
    let s = s.trim();
    if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        u64::from_str_radix(h, 16).ok()
    } else {
        s.parse().ok()
    }
}

fn camel(s: &str) -> String {
    s.split('_')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let lower = p.to_ascii_lowercase();
            let mut c = lower.chars();
            match c.next() {
                Some(f) => f.to_ascii_uppercase().to_string() + c.as_str(),
                None => String::new(),
            }
        })
        .collect()
}

fn check_ident_upper(cx: &Ctx, what: &str, s: &str) -> Result<(), GenError> {
    let ok = s.chars().next().is_some_and(|c| c.is_ascii_uppercase())
        && s.chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_');
    if ok {
        Ok(())
    } else {
        Err(cx.err(what, "names here are UPPER_CASE identifiers"))
    }
}

const KEYWORDS: [&str; 38] = [
    "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern",
    "false", "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub",
    "ref", "return", "self", "static", "struct", "super", "trait", "true", "type", "unsafe", "use",
    "where", "while", "yield",
];

fn check_ident_lower(cx: &Ctx, what: &str, s: &str) -> Result<(), GenError> {
    if KEYWORDS.contains(&s) {
        return Err(cx.err(what, format!("{s:?} is a Rust keyword")));
    }
    let ok = s.chars().next().is_some_and(|c| c.is_ascii_lowercase())
        && s.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    if ok {
        Ok(())
    } else {
        Err(cx.err(what, "field names are lower_case identifiers"))
    }
}

fn gen_enum(
    cx: &Ctx,
    out: &mut String,
    items: &mut Vec<ItemRow>,
    block: &str,
    e: &EnumDef,
    enums: &BTreeMap<String, EnumInfo>,
) -> Result<(), GenError> {
    let what = format!("enum {}", e.name);
    let (ev, src) = cx.evidence(&what, &e.evidence, &e.source)?;
    items.push(ItemRow {
        block: block.into(),
        path: format!("{block}.{}", e.name),
        kind: "enum",
        evidence: ev.clone(),
        source: src.clone(),
    });
    for (aname, aty) in &e.attrs {
        if aty != "str" && !enums.contains_key(aty) {
            return Err(cx.err(
                &format!("{what} attribute {aname}"),
                format!("type {aty:?} is neither \"str\" nor a known enum"),
            ));
        }
    }
    let mut val_ev = Vec::new();
    for v in &e.values {
        let vwhat = format!("{what} value {}", v.name);
        check_ident_upper(cx, &vwhat, &v.name)?;
        let (vev, vsrc) = cx.evidence(&vwhat, &v.evidence, &v.source)?;
        for k in v.attrs.keys() {
            if !e.attrs.contains_key(k) {
                return Err(cx.err(&vwhat, format!("unknown key {k:?}")));
            }
        }
        for (aname, aty) in &e.attrs {
            let a =
                v.attrs.get(aname).and_then(|x| x.as_str()).ok_or_else(|| {
                    cx.err(&vwhat, format!("missing attribute {aname:?} (a string)"))
                })?;
            if aty != "str" && !enums[aty].values.iter().any(|(n, _)| n == a) {
                return Err(cx.err(&vwhat, format!("{aname} {a:?} is not a value of {aty}")));
            }
        }
        items.push(ItemRow {
            block: block.into(),
            path: format!("{block}.{}.{}", e.name, v.name),
            kind: "value",
            evidence: vev.clone(),
            source: vsrc.clone(),
        });
        val_ev.push((vev, vsrc));
    }
    writeln!(
        out,
        "#[doc = {:?}]\n#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]\n#[allow(non_camel_case_types)]\n#[repr(u32)]\npub enum {} {{",
        format!("{} [{} — {}]", e.doc, ev, src),
        e.name
    )
    .unwrap();
    for (v, (vev, vsrc)) in e.values.iter().zip(&val_ev) {
        writeln!(
            out,
            "    #[doc = {:?}]\n    {} = {},",
            format!("{} [{} — {}]", v.doc, vev, vsrc),
            v.name,
            v.value
        )
        .unwrap();
    }
    writeln!(out, "}}\nimpl {} {{", e.name).unwrap();
    writeln!(
        out,
        "    /// Every value, in definition order.\n    pub const ALL: &'static [{0}] = &[{1}];",
        e.name,
        e.values
            .iter()
            .map(|v| format!("{}::{}", e.name, v.name))
            .collect::<Vec<_>>()
            .join(", ")
    )
    .unwrap();
    writeln!(
        out,
        "    /// The encoded value.\n    pub const fn raw(self) -> u32 {{ self as u32 }}"
    )
    .unwrap();
    writeln!(out, "    /// Decodes a value; `None` for an unknown code.\n    pub const fn from_raw(v: u32) -> Option<Self> {{ match v {{").unwrap();
    for v in &e.values {
        writeln!(out, "        {} => Some(Self::{}),", v.value, v.name).unwrap();
    }
    writeln!(out, "        _ => None }} }}").unwrap();
    writeln!(out, "    /// The name used in hwdocs.\n    pub const fn name(self) -> &'static str {{ match self {{").unwrap();
    for v in &e.values {
        writeln!(out, "        Self::{0} => {0:?},", v.name).unwrap();
    }
    writeln!(out, "    }} }}").unwrap();
    writeln!(out, "    /// Looks a value up by its hwdocs name.\n    pub fn from_name(s: &str) -> Option<Self> {{ Self::ALL.iter().copied().find(|v| v.name() == s) }}").unwrap();
    writeln!(out, "    /// The value's own documentation.\n    pub const fn doc(self) -> &'static str {{ match self {{").unwrap();
    for v in &e.values {
        writeln!(out, "        Self::{} => {:?},", v.name, v.doc).unwrap();
    }
    writeln!(out, "    }} }}").unwrap();
    writeln!(out, "    /// The value's evidence.\n    pub const fn evidence(self) -> Evidence {{ match self {{").unwrap();
    for (v, (vev, _)) in e.values.iter().zip(&val_ev) {
        writeln!(
            out,
            "        Self::{} => Evidence::{},",
            v.name,
            ev_variant(vev)
        )
        .unwrap();
    }
    writeln!(out, "    }} }}").unwrap();
    for (aname, aty) in &e.attrs {
        // An attribute is a string, or a value of another enum.
        let enum_path =
            (aty != "str").then(|| format!("crate::generated::{}::{aty}", enums[aty].block));
        let rty = enum_path.clone().unwrap_or_else(|| "&'static str".into());
        let conv = |a: &str| match &enum_path {
            Some(p) => format!("{p}::{a}"),
            None => format!("{a:?}"),
        };
        writeln!(out, "    /// Attribute `{aname}` of hwdocs.\n    pub const fn {aname}(self) -> {rty} {{ match self {{").unwrap();
        for v in &e.values {
            let a = v.attrs[aname].as_str().unwrap();
            writeln!(out, "        Self::{} => {},", v.name, conv(a)).unwrap();
        }
        writeln!(out, "    }} }}").unwrap();
    }
    writeln!(out, "}}").unwrap();
    write_serde_by_name(out, &e.name);
    Ok(())
}

/// Enums travel by name (JSON caches, traces), stable across renumbering.
fn write_serde_by_name(out: &mut String, name: &str) {
    writeln!(
        out,
        "impl serde::Serialize for {name} {{ fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {{ s.serialize_str(self.name()) }} }}"
    )
    .unwrap();
    writeln!(
        out,
        "impl<'de> serde::Deserialize<'de> for {name} {{ fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {{ let s = <std::borrow::Cow<'de, str> as serde::Deserialize>::deserialize(d)?; Self::from_name(&s).ok_or_else(|| <D::Error as serde::de::Error>::custom(format!(\"unknown {name} {{s}}\"))) }} }}"
    )
    .unwrap();
}

fn parse_bits(cx: &Ctx, what: &str, s: &str) -> Result<(u32, u32), GenError> {
    let bad = || cx.err(what, format!("bits {s:?} are not \"hi:lo\" or \"n\""));
    let (hi, lo) = match s.split_once(':') {
        Some((h, l)) => (
            h.trim().parse::<u32>().map_err(|_| bad())?,
            l.trim().parse::<u32>().map_err(|_| bad())?,
        ),
        None => {
            let n = s.trim().parse::<u32>().map_err(|_| bad())?;
            (n, n)
        }
    };
    if lo > hi {
        return Err(cx.err(what, format!("bits {s:?}: low bit above high bit")));
    }
    if hi > 31 {
        return Err(cx.err(what, format!("bits {s:?} run past the 32-bit word")));
    }
    Ok((lo, hi))
}

fn gen_word(
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
    items.push(ItemRow {
        block: block.into(),
        path: format!("{block}.{}", w.name),
        kind: "word",
        evidence: ev.clone(),
        source: src.clone(),
    });
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
        items.push(ItemRow {
            block: block.into(),
            path: format!("{block}.{}.{}", w.name, fd.name),
            kind: "field",
            evidence: fev,
            source: fsrc,
        });
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

fn check_default(
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

fn default_expr(
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

fn gen_formats(
    cx: &Ctx,
    out: &mut String,
    items: &mut Vec<ItemRow>,
    block: &str,
    formats: &[FormatDef],
) -> Result<(), GenError> {
    let mut names = BTreeSet::new();
    let mut codes = BTreeSet::new();
    let mut rows = Vec::new();
    for f in formats {
        let what = format!("format {}", f.name);
        let (ev, src) = cx.evidence(&what, &f.evidence, &f.source)?;
        check_ident_upper(cx, &what, &f.name)?;
        if !names.insert(f.name.clone()) {
            return Err(cx.err(&what, "duplicate name"));
        }
        if !codes.insert(f.code) {
            return Err(cx.err(&what, format!("duplicate code {}", f.code)));
        }
        if ![1, 2, 4, 8, 16].contains(&f.bytes_per_el) {
            return Err(cx.err(&what, "bytes_per_el is not 1, 2, 4, 8 or 16"));
        }
        if f.block_w_px == 0 || f.block_h_px == 0 {
            return Err(cx.err(&what, "zero block size"));
        }
        let kind = match f.kind.as_str() {
            "unorm" => "Unorm",
            "srgb" => "Srgb",
            "float" => "Float",
            "depth" => "Depth",
            "depth_stencil" => "DepthStencil",
            "compressed" => "Compressed",
            k => return Err(cx.err(&what, format!("kind {k:?} is unknown"))),
        };
        let chans = parse_channels(&f.channels)
            .ok_or_else(|| cx.err(&what, format!("channels {:?} do not parse", f.channels)))?;
        let bits: u32 = chans.iter().map(|c| c.1).sum();
        if kind != "Compressed" && bits != f.bytes_per_el * 8 {
            return Err(cx.err(
                &what,
                format!(
                    "channels cover {bits} bits, element is {} bytes",
                    f.bytes_per_el
                ),
            ));
        }
        items.push(ItemRow {
            block: block.into(),
            path: format!("{block}.{}", f.name),
            kind: "format",
            evidence: ev.clone(),
            source: src.clone(),
        });
        rows.push((f, kind, chans, ev, src));
    }
    writeln!(out, "#[doc = \"Every format the driver knows, with its hardware code.\"]\n#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]\n#[allow(non_camel_case_types)]\n#[repr(u32)]\npub enum Format {{").unwrap();
    for (f, ..) in &rows {
        writeln!(
            out,
            "    #[doc = {:?}]\n    {} = {},",
            f.doc, f.name, f.code
        )
        .unwrap();
    }
    writeln!(out, "}}").unwrap();
    writeln!(out, "impl Format {{").unwrap();
    writeln!(
        out,
        "    /// Every format, in definition order.\n    pub const ALL: &'static [Format] = &[{}];",
        rows.iter()
            .map(|r| format!("Format::{}", r.0.name))
            .collect::<Vec<_>>()
            .join(", ")
    )
    .unwrap();
    writeln!(
        out,
        "    /// The hardware code.\n    pub const fn raw(self) -> u32 {{ self as u32 }}"
    )
    .unwrap();
    writeln!(out, "    /// Decodes a hardware code.\n    pub const fn from_raw(v: u32) -> Option<Self> {{ match v {{").unwrap();
    for (f, ..) in &rows {
        writeln!(out, "        {} => Some(Self::{}),", f.code, f.name).unwrap();
    }
    writeln!(out, "        _ => None }} }}").unwrap();
    writeln!(out, "    /// The Gallium-style name (PIPE_FORMAT_ without the prefix).\n    pub const fn name(self) -> &'static str {{ self.info().name }}").unwrap();
    writeln!(out, "    /// Looks a format up by name.\n    pub fn from_name(s: &str) -> Option<Self> {{ let s = s.strip_prefix(\"PIPE_FORMAT_\").unwrap_or(s); Self::ALL.iter().copied().find(|v| v.name() == s) }}").unwrap();
    writeln!(out, "    /// The format's description.\n    pub const fn info(self) -> &'static crate::FormatInfo {{ match self {{").unwrap();
    for (i, (f, ..)) in rows.iter().enumerate() {
        writeln!(out, "        Self::{} => &FORMATS[{i}],", f.name).unwrap();
    }
    writeln!(out, "    }} }}\n}}").unwrap();
    write_serde_by_name(out, "Format");
    writeln!(
        out,
        "/// The format table.\npub static FORMATS: &[crate::FormatInfo] = &["
    )
    .unwrap();
    for (f, kind, chans, ev, src) in &rows {
        let ch = chans
            .iter()
            .map(|(c, b, lo)| format!("crate::Channel {{ name: {c:?}, bits: {b}, lo: {lo} }}"))
            .collect::<Vec<_>>()
            .join(", ");
        writeln!(
            out,
            "    crate::FormatInfo {{ format: Format::{}, name: {:?}, code: {}, bytes_per_el: {}, block_w_px: {}, block_h_px: {}, channels: &[{ch}], kind: crate::FormatKind::{kind}, sampleable: {}, renderable: {}, twiddlable: {}, evidence: Evidence::{}, source: {:?} }},",
            f.name, f.name, f.code, f.bytes_per_el, f.block_w_px, f.block_h_px, f.sampleable, f.renderable, f.twiddlable, ev_variant(ev), src
        )
        .unwrap();
    }
    writeln!(out, "];").unwrap();
    Ok(())
}

/// "B8G8R8A8" -> [("b", 8, 0), ("g", 8, 8), ...]; "X8" is padding; "Z24S8" for depth.
fn parse_channels(s: &str) -> Option<Vec<(String, u32, u32)>> {
    let mut out = Vec::new();
    let mut lo = 0;
    let b = s.as_bytes();
    let mut i = 0;
    if s == "PVRTC" {
        return Some(out);
    }
    while i < b.len() {
        let c = b[i] as char;
        if !"RGBAXLIZSF".contains(c) {
            return None;
        }
        i += 1;
        let st = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        let bits: u32 = s[st..i].parse().ok()?;
        out.push((c.to_ascii_lowercase().to_string(), bits, lo));
        lo += bits;
    }
    Some(out)
}
