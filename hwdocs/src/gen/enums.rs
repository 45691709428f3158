//! Enums: a Rust enum per definition, with names and serde by name.

use super::defs::*;
use super::GenError;
use std::collections::BTreeMap;
use std::fmt::Write as _;

pub(super) fn gen_enum(
    cx: &Ctx,
    out: &mut String,
    items: &mut Vec<ItemRow>,
    block: &str,
    e: &EnumDef,
    enums: &BTreeMap<String, EnumInfo>,
) -> Result<(), GenError> {
    let what = format!("enum {}", e.name);
    let (ev, src) = cx.evidence(&what, &e.evidence, &e.source)?;
    items.push(ItemRow::new(block, &[&e.name], "enum", &ev, &src));
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
        let names: [&str; 2] = [&e.name, &v.name];
        items.push(ItemRow::new(block, &names, "value", &vev, &vsrc));
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
pub(super) fn write_serde_by_name(out: &mut String, name: &str) {
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
