//! Point-sprite coordinate replacement (`sprite_coord_enable`, GL 2.0's COORD_REPLACE).
//!
//! The TSP delivers the point coordinate into one fragment input slot (hwdocs tsp.json
//! `pcoord_slot`). A fragment shader whose GENERIC[n] input is to be replaced is recompiled
//! with that input declared as PCOORD, which the compiler gives such a slot. The hardware has
//! one such slot, so one replaced input per shader (what GL applications use: the sprite's
//! texture unit).

use crate::error::{PipeError, Result};

/// The fragment shader text with GENERIC[n] inputs (bit n of `mask`) declared as PCOORD.
/// Err(Unsupported) when more than one input would be replaced, or the shader already reads
/// PCOORD alongside a replaced input. No replaced input declared: the text is unchanged.
pub(crate) fn replace_sprite_inputs(fs_tgsi: &str, mask: u16) -> Result<String> {
    let mut out = String::with_capacity(fs_tgsi.len());
    let mut replaced = 0;
    let has_pcoord = fs_tgsi
        .lines()
        .any(|l| l.trim_start().starts_with("DCL IN[") && l.contains(", PCOORD"));
    for line in fs_tgsi.split_inclusive('\n') {
        match generic_input_index(line) {
            Some(n) if n < 16 && mask & (1 << n) != 0 => {
                replaced += 1;
                let decl_end = line.find(", GENERIC[").unwrap_or(line.len());
                out.push_str(&line[..decl_end]);
                // PCOORD carries no interpolation qualifier: the TSP writes it per pixel.
                out.push_str(", PCOORD");
                if line.ends_with('\n') {
                    out.push('\n');
                }
            }
            _ => out.push_str(line),
        }
    }
    if replaced > 1 || (replaced == 1 && has_pcoord) {
        return Err(PipeError::Unsupported(format!(
            "point sprites: {replaced} replaced texture coordinates{}; the TSP delivers one",
            if has_pcoord { " and gl_PointCoord" } else { "" }
        )));
    }
    Ok(out)
}

/// n of a `DCL IN[k], GENERIC[n]...` line.
fn generic_input_index(line: &str) -> Option<u32> {
    let l = line.trim_start();
    if !l.starts_with("DCL IN[") {
        return None;
    }
    let at = l.find(", GENERIC[")? + ", GENERIC[".len();
    let end = l[at..].find(']')? + at;
    l[at..end].parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    const FS: &str = "FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL IN[1], GENERIC[3], PERSPECTIVE\nDCL OUT[0], COLOR\n  0: MOV OUT[0], IN[0]\n  1: END\n";

    #[test]
    fn only_the_masked_generic_becomes_pcoord() {
        let t = replace_sprite_inputs(FS, 1 << 3).unwrap();
        assert!(t.contains("DCL IN[0], GENERIC[0], PERSPECTIVE\n"));
        assert!(t.contains("DCL IN[1], PCOORD\n"));
        assert_eq!(t.lines().count(), FS.lines().count());
        assert_eq!(replace_sprite_inputs(FS, 1 << 5).unwrap(), FS);
    }

    #[test]
    fn two_replacements_or_pcoord_beside_one_are_unsupported() {
        assert!(matches!(
            replace_sprite_inputs(FS, 0b1001),
            Err(PipeError::Unsupported(_))
        ));
        let with_pcoord = FS.replace("DCL OUT[0]", "DCL IN[2], PCOORD\nDCL OUT[0]");
        assert!(matches!(
            replace_sprite_inputs(&with_pcoord, 1),
            Err(PipeError::Unsupported(_))
        ));
        assert!(replace_sprite_inputs(&with_pcoord, 1 << 7).is_ok());
    }
}
