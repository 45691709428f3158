//! Formats: the format enum and its table of channels and properties.

use super::defs::*;
use super::enums::write_serde_by_name;
use super::GenError;
use std::collections::BTreeSet;
use std::fmt::Write as _;

pub(super) fn gen_formats(
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
        items.push(ItemRow::new(block, &[&f.name], "format", &ev, &src));
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
pub(super) fn parse_channels(s: &str) -> Option<Vec<(String, u32, u32)>> {
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
