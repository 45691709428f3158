//! Formats named by people: any case, `PIPE_FORMAT_` prefix optional, and an error that
//! lists the names there are.

use crate::Format;

/// A format name that names no format.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown format {name}; the formats are {}", Format::ALL.iter().map(|f| f.name()).collect::<Vec<_>>().join(", "))]
pub struct UnknownFormat {
    /// The name as given.
    pub name: String,
}

impl Format {
    /// Looks a format up by name as a person types it: case-insensitive, with or without
    /// `PIPE_FORMAT_`. (`from_name` is the exact lookup that data files use.)
    pub fn parse_name(s: &str) -> Result<Format, UnknownFormat> {
        let upper = s.trim().to_ascii_uppercase();
        Format::from_name(&upper).ok_or_else(|| UnknownFormat { name: s.into() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_match_in_any_case_with_or_without_the_prefix() {
        for s in [
            "B8G8R8A8_UNORM",
            "b8g8r8a8_unorm",
            "pipe_format_B8G8R8A8_unorm",
        ] {
            assert_eq!(Format::parse_name(s), Ok(Format::B8G8R8A8_UNORM), "{s}");
        }
    }

    #[test]
    fn an_unknown_name_lists_the_known_ones() {
        let e = Format::parse_name("B8G8R8A9_UNORM")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("unknown format B8G8R8A9_UNORM; the formats are "),
            "{e}"
        );
        for f in Format::ALL {
            assert!(e.contains(f.name()), "{e}");
        }
    }
}
