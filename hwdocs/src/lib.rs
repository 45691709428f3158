//! The PowerVR SGX535 described as data.
//!
//! `defs/*.json` holds every register, state word, control-stream object, the USSE model
//! ISA, the formats and the limits, each with its evidence (CONFIRMED, INFERRED, MODEL) and
//! source. `build.rs` generates from them, in the manner of Mesa's csbgen, a struct per word
//! with `pack()` / `unpack()`, enums with `name()`, register offsets and the evidence table
//! [`ITEMS`]. The driver packs with these; the device model unpacks with them.
#![allow(non_snake_case)]
// byte counts end in _B (CONTRIBUTING.md)

// Every unsafe block says why it is sound (RELIABILITY.md).
#![warn(clippy::undocumented_unsafe_blocks)]

pub mod example;
mod format_name;
pub mod gen;

/// The generated code, one module per definition block.
#[allow(clippy::all, clippy::pedantic, missing_docs)]
pub mod generated {
    include!(concat!(env!("OUT_DIR"), "/hwdocs.rs"));
}

pub use format_name::UnknownFormat;
pub use generated::formats::{Format, FORMATS};
pub use generated::*;

/// How well a fact is known.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Evidence {
    /// A public, licensed source states it, or SGX535 hardware was seen doing it.
    Confirmed,
    /// Deduced, or a sibling core's fact.
    Inferred,
    /// This project's definition, standing in for an unknown.
    Model,
}

impl Evidence {
    /// The upper-case name used in the definitions.
    pub const fn name(self) -> &'static str {
        match self {
            Evidence::Confirmed => "CONFIRMED",
            Evidence::Inferred => "INFERRED",
            Evidence::Model => "MODEL",
        }
    }
}

/// One item of the definitions (block, enum, value, word, field, register, constant,
/// format, note) with its evidence.
#[derive(Debug, Clone, Copy)]
pub struct Item {
    /// The definition block (file) it belongs to.
    pub block: &'static str,
    /// Dotted path, e.g. `pbe.PbeState.clip_xmax`.
    pub path: &'static str,
    /// What kind of item it is.
    pub kind: &'static str,
    /// How well it is known.
    pub evidence: Evidence,
    /// Where it comes from (a short name from hwdocs/guide/sources.md, or `model: why`).
    pub source: &'static str,
}

/// Position and evidence of one field of a generated word.
#[derive(Debug, Clone, Copy)]
pub struct FieldInfo {
    /// Field name.
    pub name: &'static str,
    /// Dword index within the word.
    pub dw: u32,
    /// Lowest bit.
    pub lo: u32,
    /// Highest bit.
    pub hi: u32,
    /// How well it is known.
    pub evidence: Evidence,
    /// Where it comes from.
    pub source: &'static str,
}

/// A generated word, for checks that walk them all.
#[derive(Clone, Copy)]
pub struct WordInfo {
    /// Block it belongs to.
    pub block: &'static str,
    /// Struct name.
    pub name: &'static str,
    /// Size in dwords.
    pub dwords: usize,
    /// Field table.
    pub fields: &'static [FieldInfo],
    /// Packs and unpacks a value sampled from a bit source.
    pub roundtrip: fn(&mut dyn FnMut(u32) -> u64) -> Result<(), String>,
}

/// How a format stores its data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FormatKind {
    /// Unsigned normalised integer channels.
    Unorm,
    /// Unsigned normalised channels whose R, G and B are sRGB-encoded (alpha is linear).
    Srgb,
    /// Floating-point channels.
    Float,
    /// Depth only.
    Depth,
    /// Depth and stencil.
    DepthStencil,
    /// Block-compressed.
    Compressed,
}

/// One channel of a format: name (`r g b a x l i z s`), width, lowest bit within the element.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Channel {
    /// Channel letter, lower case; `x` is padding.
    pub name: &'static str,
    /// Width in bits.
    pub bits: u32,
    /// Lowest bit within the element (little-endian element).
    pub lo: u32,
}

/// A row of formats.json.
#[derive(Debug, Clone, Copy)]
pub struct FormatInfo {
    /// The format.
    pub format: Format,
    /// Gallium name without `PIPE_FORMAT_`.
    pub name: &'static str,
    /// Hardware code (texture and PBE format fields).
    pub code: u32,
    /// Bytes per element (a texel, or a compressed block).
    pub bytes_per_el: u32,
    /// Block width in pixels (1 for uncompressed formats).
    pub block_w_px: u32,
    /// Block height in pixels.
    pub block_h_px: u32,
    /// Channels from bit 0 up.
    pub channels: &'static [Channel],
    /// Storage kind.
    pub kind: FormatKind,
    /// The TSP can sample it.
    pub sampleable: bool,
    /// The PBE can write it.
    pub renderable: bool,
    /// It may be stored twiddled.
    pub twiddlable: bool,
    /// How well the entry is known.
    pub evidence: Evidence,
    /// Where it comes from.
    pub source: &'static str,
}

impl FormatInfo {
    /// The channel of that name, if the format has it.
    pub fn channel(&self, name: &str) -> Option<&'static Channel> {
        self.channels.iter().find(|c| c.name == name)
    }
}

/// A value that a word cannot hold.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PackError {
    /// The value is outside the field's range.
    #[error("{word}.{field}: {value} is outside {min}..={max}")]
    OutOfRange {
        /// Word name.
        word: &'static str,
        /// Field name.
        field: &'static str,
        /// The value given.
        value: i64,
        /// Lowest value the field holds.
        min: i64,
        /// Highest value the field holds.
        max: i64,
    },
    /// An address has low bits set that the field cannot hold.
    #[error("{word}.{field}: address {value:#x} is not {align}-byte aligned")]
    Misaligned {
        /// Word name.
        word: &'static str,
        /// Field name.
        field: &'static str,
        /// The address given.
        value: u64,
        /// Required alignment in bytes.
        align: u64,
    },
}

/// Words that do not decode.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// Fewer dwords than the word has.
    #[error("{word}: needs {need} dwords, got {got}")]
    Short {
        /// Word name.
        word: &'static str,
        /// Dwords needed.
        need: usize,
        /// Dwords given.
        got: usize,
    },
    /// Reserved bits are set.
    #[error("{word}: reserved bits {bits:#010x} set in dword {dw}")]
    Reserved {
        /// Word name.
        word: &'static str,
        /// Dword index.
        dw: usize,
        /// The offending bits.
        bits: u32,
    },
    /// An enum field holds a code with no meaning.
    #[error("{word}.{field}: unknown value {value}")]
    UnknownValue {
        /// Word name.
        word: &'static str,
        /// Field name.
        field: &'static str,
        /// The code.
        value: u32,
    },
    /// A bounded field holds a value past its bound.
    #[error("{word}.{field}: value {value} is out of range")]
    OutOfRange {
        /// Word name.
        word: &'static str,
        /// Field name.
        field: &'static str,
        /// The value.
        value: u32,
    },
}

/// Counts of items per evidence level.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EvidenceSummary {
    /// CONFIRMED items.
    pub confirmed: usize,
    /// INFERRED items.
    pub inferred: usize,
    /// MODEL items.
    pub model: usize,
}

/// Counts the items of one block, or of all blocks with `None`.
pub fn evidence_summary(block: Option<&str>) -> EvidenceSummary {
    let mut s = EvidenceSummary::default();
    for it in ITEMS.iter().filter(|i| block.is_none_or(|b| i.block == b)) {
        match it.evidence {
            Evidence::Confirmed => s.confirmed += 1,
            Evidence::Inferred => s.inferred += 1,
            Evidence::Model => s.model += 1,
        }
    }
    s
}

/// The names of the definition blocks, in order.
pub fn blocks() -> Vec<&'static str> {
    let mut v: Vec<&'static str> = Vec::new();
    for it in ITEMS {
        if !v.contains(&it.block) {
            v.push(it.block);
        }
    }
    v
}

/// One register (or register array) of registers.json.
#[derive(Debug, Clone, Copy)]
pub struct RegInfo {
    /// Name, as the offset constant in [`regs`].
    pub name: &'static str,
    /// Byte offset of the first register.
    pub offset: u32,
    /// Registers in the array (1 for a plain register).
    pub count: u32,
    /// Byte distance between array members.
    pub stride: u32,
    /// How well the offset is known.
    pub evidence: Evidence,
}

/// The name of the register at `offset`: `EVENT_STATUS`, or `PBE_STATE[2]` in an array.
pub fn register_name(offset: u32) -> Option<String> {
    REGISTERS.iter().find_map(|r| {
        let rel = offset.checked_sub(r.offset)?;
        let i = rel / r.stride;
        if rel % r.stride != 0 || i >= r.count {
            return None;
        }
        Some(if r.count == 1 {
            r.name.to_string()
        } else {
            format!("{}[{i}]", r.name)
        })
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn register_names_cover_arrays() {
        assert_eq!(super::register_name(0x12C).as_deref(), Some("EVENT_STATUS"));
        assert_eq!(super::register_name(0xF18).as_deref(), Some("PBE_STATE[2]"));
        assert_eq!(
            super::register_name(0xA0C + 15 * 4).as_deref(),
            Some("USE_CODE_BASE[15]")
        );
        assert_eq!(super::register_name(0xA0C + 16 * 4), None);
        assert_eq!(super::register_name(0x12E), None);
    }

    #[test]
    fn the_worked_example_packs() {
        let job = super::example::textured_quad_job().unwrap();
        assert_eq!(job.ta_regs.last().unwrap().0, super::regs::VDM_START);
        assert_eq!(job.td_regs.last().unwrap().0, super::regs::ISP_START_RENDER);
        let l = super::example::listing().unwrap();
        assert!(
            l.contains("PBE_STATE[4]") && l.contains("0x0000f00f"),
            "{l}"
        );
    }
}

#[cfg(test)]
mod guide_tests {
    /// The worked example in the field guide is the listing the code prints, word for word.
    #[test]
    fn the_guide_shows_the_current_listing() {
        let page = include_str!("../guide/worked-example.md");
        let head = "## The listing\n\n```\n";
        let start = page.find(head).expect("listing heading") + head.len();
        let end = start + page[start..].find("```").expect("closing fence");
        assert_eq!(
            &page[start..end],
            super::example::listing().unwrap(),
            "regenerate with: cargo run -p sgx-hwdocs --example worked_example"
        );
    }
}
