//! Checks of a program's structure that lowering relies on: subroutines that are called are
//! subroutines, none calls itself (directly or through others), calls nest no deeper than
//! the call stack, and no input, output or system value is declared twice.

use std::collections::HashMap;

use sgx_hwdocs::usse;

use crate::error::{CompileError, Result};
use crate::tgsi::{File, Shader};

fn semantic(line: u32, msg: String) -> CompileError {
    CompileError::Semantic { line, msg }
}

/// Checks `sh`; `Err` names the offending line.
pub fn check(sh: &Shader) -> Result<()> {
    declarations(sh)?;
    calls(sh)
}

fn declarations(sh: &Shader) -> Result<()> {
    let mut regs: HashMap<(File, u32), u32> = HashMap::new();
    let mut sems = HashMap::new();
    for d in &sh.decls {
        if !matches!(d.file, File::Input | File::Output | File::SystemValue) {
            continue;
        }
        // Bounded as io::declared bounds it: limits are checked later, memory first.
        for i in d.first..=d.last.min(d.first.saturating_add(4096)) {
            if let Some(prev) = regs.insert((d.file, i), d.line) {
                return Err(semantic(
                    d.line,
                    format!("{}[{i}] is already declared on line {prev}", d.file.name()),
                ));
            }
        }
        if let (Some(s), true) = (d.semantic, d.first == d.last) {
            if let Some(prev) = sems.insert((d.file, s), d.line) {
                return Err(semantic(
                    d.line,
                    format!(
                        "a second {} with semantic {s:?} (the first is on line {prev})",
                        d.file.name()
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// The subroutine each instruction belongs to (by the index of its BGNSUB), or None for main.
fn owners(sh: &Shader) -> Result<Vec<Option<usize>>> {
    let mut cur = None;
    let mut out = Vec::with_capacity(sh.instrs.len());
    for (i, ins) in sh.instrs.iter().enumerate() {
        match ins.opcode.as_str() {
            "BGNSUB" if cur.is_some() => {
                return Err(semantic(ins.line, "BGNSUB inside a subroutine".into()))
            }
            "BGNSUB" => cur = Some(i),
            _ => {}
        }
        out.push(cur);
        if ins.opcode == "ENDSUB" {
            cur = None;
        }
    }
    if let Some(b) = cur {
        return Err(semantic(sh.instrs[b].line, "BGNSUB without ENDSUB".into()));
    }
    Ok(out)
}

fn calls(sh: &Shader) -> Result<()> {
    let owner = owners(sh)?;
    // Callees of main (key None) and of each subroutine, with the line of the call.
    let mut callees: HashMap<Option<usize>, Vec<(usize, u32)>> = HashMap::new();
    for (i, ins) in sh.instrs.iter().enumerate() {
        if ins.opcode != "CAL" {
            continue;
        }
        // A CAL without a label, or past the end, is reported by lowering.
        let Some(t) = ins
            .label
            .map(|t| t as usize)
            .filter(|t| *t < sh.instrs.len())
        else {
            continue;
        };
        if sh.instrs[t].opcode != "BGNSUB" {
            return Err(semantic(
                ins.line,
                format!(
                    "CAL :{t} calls instruction {t} ({}), which does not begin a subroutine (BGNSUB)",
                    sh.instrs[t].opcode
                ),
            ));
        }
        callees.entry(owner[i]).or_default().push((t, ins.line));
    }
    // Depth-first from main; a subroutine met again on the current path is recursion.
    let max_depth = usse::CALL_STACK_DEPTH as usize;
    let mut done: HashMap<usize, usize> = HashMap::new(); // sub -> deepest call chain below it
    fn depth(
        sub: Option<usize>,
        callees: &HashMap<Option<usize>, Vec<(usize, u32)>>,
        path: &mut Vec<usize>,
        done: &mut HashMap<usize, usize>,
    ) -> Result<usize> {
        let mut deepest = 0;
        for &(t, line) in callees.get(&sub).map(Vec::as_slice).unwrap_or(&[]) {
            if path.contains(&t) {
                return Err(semantic(
                    line,
                    format!("the subroutine at {t} calls itself (recursion is not supported)"),
                ));
            }
            let d = match done.get(&t) {
                Some(d) => *d,
                None => {
                    path.push(t);
                    let d = depth(Some(t), callees, path, done)?;
                    path.pop();
                    done.insert(t, d);
                    d
                }
            };
            deepest = deepest.max(d + 1);
        }
        Ok(deepest)
    }
    let d = depth(None, &callees, &mut Vec::new(), &mut done)?;
    // Subroutines nobody reaches from main may still recurse: reject those too.
    let subs: Vec<usize> = callees.keys().filter_map(|k| *k).collect();
    for s in subs {
        if !done.contains_key(&s) {
            depth(Some(s), &callees, &mut vec![s], &mut done)?;
        }
    }
    if d > max_depth {
        return Err(CompileError::Limit {
            limit: "usse::CALL_STACK_DEPTH",
            need: d as u64,
            max: max_depth as u64,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::CompileError;

    const HEAD: &str = "VERT\nDCL IN[0]\nDCL OUT[0], POSITION\nDCL TEMP[0]\n";

    fn compile(body: &str) -> Result<crate::CompiledShader, CompileError> {
        crate::compile(&format!("{HEAD}{body}"))
    }

    fn msg(body: &str) -> String {
        compile(body).expect_err("refused").to_string()
    }

    #[test]
    fn a_subroutine_that_calls_itself_is_refused() {
        let m = msg("  0: MOV OUT[0], IN[0]\n  1: CAL :3\n  2: END\n  3: BGNSUB\n  4: CAL :3\n  5: ENDSUB\n");
        assert!(m.contains("calls itself"), "{m}");
        assert!(m.starts_with("9:"), "the inner CAL's line: {m}");
    }

    #[test]
    fn mutual_recursion_is_refused_even_when_main_never_calls_it() {
        let m = msg("  0: MOV OUT[0], IN[0]\n  1: END\n  2: BGNSUB\n  3: CAL :5\n  4: ENDSUB\n  5: BGNSUB\n  6: CAL :2\n  7: ENDSUB\n");
        assert!(m.contains("calls itself"), "{m}");
    }

    #[test]
    fn a_call_to_an_instruction_that_is_not_a_subroutine_is_refused() {
        let m = msg("  0: CAL :2\n  1: END\n  2: MOV OUT[0], IN[0]\n  3: RET\n");
        assert!(
            m.contains("CAL :2") && m.contains("MOV") && m.contains("BGNSUB"),
            "{m}"
        );
    }

    #[test]
    fn calls_deeper_than_the_stack_are_refused_and_within_it_compile() {
        let chain = |n: usize| {
            let mut s = String::from("  0: MOV OUT[0], IN[0]\n  1: CAL :3\n  2: END\n");
            for k in 0..n {
                let at = 3 + 3 * k;
                if k + 1 < n {
                    s += &format!(
                        "  {at}: BGNSUB\n  {}: CAL :{}\n  {}: ENDSUB\n",
                        at + 1,
                        at + 3,
                        at + 2
                    );
                } else {
                    s += &format!("  {at}: BGNSUB\n  {}: NOP\n  {}: ENDSUB\n", at + 1, at + 2);
                }
            }
            s
        };
        compile(&chain(8)).expect("eight nested calls fit");
        assert!(matches!(
            compile(&chain(9)),
            Err(CompileError::Limit {
                limit: "usse::CALL_STACK_DEPTH",
                need: 9,
                max: 8
            })
        ));
    }

    #[test]
    fn a_second_position_output_or_register_is_refused() {
        let m = crate::compile("VERT\nDCL IN[0]\nDCL OUT[0], POSITION\nDCL OUT[0], POSITION\n  0: MOV OUT[0], IN[0]\n  1: END\n")
            .expect_err("refused")
            .to_string();
        assert!(m.contains("OUT[0] is already declared on line 3"), "{m}");
        let m = crate::compile("VERT\nDCL IN[0]\nDCL OUT[0], POSITION\nDCL OUT[1], POSITION\n  0: MOV OUT[0], IN[0]\n  1: END\n")
            .expect_err("refused")
            .to_string();
        assert!(m.contains("a second OUT with semantic"), "{m}");
    }
}
