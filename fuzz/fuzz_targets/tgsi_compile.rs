//! TGSI text through the parser and the whole compiler: an error or a program that passes
//! the compiler's own checks and disassembles, never a panic. Text with a line `---` is a
//! vertex and a fragment shader, linked.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Some((vs, fs)) = text.split_once("\n---\n") {
        if let Ok(p) = sgx_compiler::link(vs, fs) {
            assert_eq!(
                p.validate(),
                Ok(()),
                "a linked program fails its own checks"
            );
        }
        return;
    }
    if let Ok(s) = sgx_compiler::compile(text) {
        assert_eq!(
            s.validate(),
            Ok(()),
            "a compiled shader fails its own checks"
        );
        sgx_compiler::disasm_words(&s.code).expect("compiled code disassembles");
    }
});
