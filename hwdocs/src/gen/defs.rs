//! The definitions' JSON shapes, and the small checks and name helpers every generator
//! uses.

use super::GenError;
use serde::Deserialize;
use std::collections::BTreeMap;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct File {
    pub(super) block: String,
    pub(super) doc: String,
    pub(super) evidence: Option<String>,
    pub(super) source: Option<String>,
    #[serde(default)]
    pub(super) enums: Vec<EnumDef>,
    #[serde(default)]
    pub(super) words: Vec<WordDef>,
    #[serde(default)]
    pub(super) registers: Vec<RegDef>,
    #[serde(default)]
    pub(super) constants: Vec<ConstDef>,
    #[serde(default)]
    pub(super) formats: Vec<FormatDef>,
    /// Free prose sections (render.json's programming sequence); checked for evidence only.
    #[serde(default)]
    pub(super) notes: Vec<NoteDef>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct NoteDef {
    pub(super) name: String,
    pub(super) doc: String,
    pub(super) evidence: Option<String>,
    pub(super) source: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct EnumDef {
    pub(super) name: String,
    pub(super) doc: String,
    pub(super) evidence: Option<String>,
    pub(super) source: Option<String>,
    /// Typed attributes every value carries: attribute name -> "str" or the name of an enum.
    #[serde(default)]
    pub(super) attrs: BTreeMap<String, String>,
    pub(super) values: Vec<EnumValue>,
}

#[derive(Deserialize)]
pub(super) struct EnumValue {
    pub(super) name: String,
    pub(super) value: u32,
    #[serde(default)]
    pub(super) doc: String,
    pub(super) evidence: Option<String>,
    pub(super) source: Option<String>,
    #[serde(flatten)]
    pub(super) attrs: BTreeMap<String, serde_json::Value>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct WordDef {
    pub(super) name: String,
    pub(super) dwords: u32,
    pub(super) doc: String,
    pub(super) evidence: Option<String>,
    pub(super) source: Option<String>,
    pub(super) fields: Vec<FieldDef>,
}

#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
pub(super) struct FieldDef {
    pub(super) name: String,
    #[serde(default)]
    pub(super) dw: u32,
    /// "hi:lo", or "n" for one bit.
    pub(super) bits: String,
    #[serde(rename = "type", default = "default_type")]
    pub(super) ty: String,
    /// For "enum" fields: the enum's name.
    #[serde(rename = "enum")]
    pub(super) enum_name: Option<String>,
    /// For "addr" fields: how many low address bits are dropped (the alignment's log2).
    #[serde(default)]
    pub(super) shift: u32,
    /// For "uint" fields: an upper bound below the field's capacity.
    pub(super) max: Option<u64>,
    pub(super) default: Option<serde_json::Value>,
    #[serde(default)]
    pub(super) doc: String,
    pub(super) evidence: Option<String>,
    pub(super) source: Option<String>,
}

pub(super) fn default_type() -> String {
    "uint".into()
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RegDef {
    pub(super) name: String,
    pub(super) offset: String,
    /// A register array: how many, and the byte distance between them.
    #[serde(default)]
    pub(super) count: Option<u32>,
    #[serde(default)]
    pub(super) stride: Option<u32>,
    pub(super) doc: String,
    pub(super) evidence: Option<String>,
    pub(super) source: Option<String>,
    #[serde(default)]
    pub(super) fields: Vec<FieldDef>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ConstDef {
    pub(super) name: String,
    pub(super) value: u64,
    pub(super) doc: String,
    pub(super) evidence: Option<String>,
    pub(super) source: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct FormatDef {
    pub(super) name: String,
    pub(super) code: u32,
    pub(super) bytes_per_el: u32,
    pub(super) block_w_px: u32,
    pub(super) block_h_px: u32,
    /// Channels from the least significant bit up, e.g. "B8G8R8A8" is B in bits 7:0.
    pub(super) channels: String,
    /// unorm, float, depth, depth_stencil, compressed
    pub(super) kind: String,
    pub(super) sampleable: bool,
    pub(super) renderable: bool,
    pub(super) twiddlable: bool,
    pub(super) doc: String,
    pub(super) evidence: Option<String>,
    pub(super) source: Option<String>,
}

pub(super) const EVIDENCE: [&str; 3] = ["CONFIRMED", "INFERRED", "MODEL"];

pub(super) struct Ctx {
    pub(super) file: String,
}

impl Ctx {
    pub(super) fn err(&self, what: &str, msg: impl std::fmt::Display) -> GenError {
        GenError(format!("{}: {}: {}", self.file, what, msg))
    }

    pub(super) fn evidence(
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
pub(super) struct ItemRow {
    pub(super) block: String,
    pub(super) path: String,
    pub(super) kind: &'static str,
    pub(super) evidence: String,
    pub(super) source: String,
}

impl ItemRow {
    /// The item `names` (none for the block itself) of `block`: its path is the block and the
    /// names joined by dots (`block.word.field`).
    pub(super) fn new(
        block: &str,
        names: &[&str],
        kind: &'static str,
        evidence: &str,
        source: &str,
    ) -> ItemRow {
        let path = std::iter::once(block).chain(names.iter().copied());
        ItemRow {
            block: block.into(),
            path: path.collect::<Vec<_>>().join("."),
            kind,
            evidence: evidence.into(),
            source: source.into(),
        }
    }
}

#[derive(Clone)]
pub(super) struct Field {
    pub(super) def: FieldDef,
    pub(super) lo: u32,
    pub(super) hi: u32,
    pub(super) evidence: String,
    pub(super) source: String,
}

impl Field {
    pub(super) fn width(&self) -> u32 {
        self.hi - self.lo + 1
    }
    pub(super) fn cap(&self) -> u64 {
        (1u64 << self.width()) - 1
    }
    pub(super) fn rust_type(&self, enums: &BTreeMap<String, String>) -> String {
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

pub(super) struct EnumInfo {
    pub(super) block: String,
    pub(super) values: Vec<(String, u32)>,
}

pub(super) fn ev_variant(e: &str) -> &'static str {
    match e {
        "CONFIRMED" => "Confirmed",
        "INFERRED" => "Inferred",
        _ => "Model",
    }
}

pub(super) fn parse_num(s: &str) -> Option<u64> {
    let s = s.trim();
    if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        u64::from_str_radix(h, 16).ok()
    } else {
        s.parse().ok()
    }
}

pub(super) fn camel(s: &str) -> String {
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

pub(super) fn check_ident_upper(cx: &Ctx, what: &str, s: &str) -> Result<(), GenError> {
    let ok = s.chars().next().is_some_and(|c| c.is_ascii_uppercase())
        && s.chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_');
    if ok {
        Ok(())
    } else {
        Err(cx.err(what, "names here are UPPER_CASE identifiers"))
    }
}

pub(super) const KEYWORDS: [&str; 38] = [
    "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern",
    "false", "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub",
    "ref", "return", "self", "static", "struct", "super", "trait", "true", "type", "unsafe", "use",
    "where", "while", "yield",
];

pub(super) fn check_ident_lower(cx: &Ctx, what: &str, s: &str) -> Result<(), GenError> {
    if KEYWORDS.contains(&s) {
        return Err(cx.err(what, format!("{s:?} is a Rust keyword")));
    }
    // A byte count keeps the project's unit suffix `_B` (CONTRIBUTING.md).
    let stem = s.strip_suffix("_B").unwrap_or(s);
    let ok = stem.chars().next().is_some_and(|c| c.is_ascii_lowercase())
        && stem
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    if ok {
        Ok(())
    } else {
        Err(cx.err(
            what,
            "field names are lower_case identifiers (a byte count may end in _B)",
        ))
    }
}

pub(super) fn parse_bits(cx: &Ctx, what: &str, s: &str) -> Result<(u32, u32), GenError> {
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
