//! The parser (and the compiler behind it) never panics on random or truncated text.

use proptest::prelude::*;

const SAMPLE: &str = "VERT\nPROPERTY NEXT_SHADER FRAG\nDCL IN[0]\nDCL OUT[0], POSITION\nDCL OUT[1], GENERIC[0]\nDCL CONST[1][0..3]\nDCL ADDR[0]\nDCL TEMP[0..2], LOCAL\nIMM[0] FLT32 { 0x3f800000, -2.5, 0.0, 1e3}\n  0: ARL ADDR[0].x, IN[0].xxxx\n  1: MAD_SAT TEMP[0].xy, -|CONST[1][ADDR[0].x+2]|.yzxw, IMM[0].x, IN[0]\n  2: IF TEMP[0].xxxx :0\n  3: BGNLOOP :0\n  4: BRK\n  5: ENDLOOP :0\n  6: ENDIF\n  7: TEX TEMP[1], TEMP[0], SAMP[0], 2D\n  8: MOV OUT[1], TEMP[0]\n  9: END\n";

const TOKENS: &[&str] = &[
    "VERT\n",
    "FRAG\n",
    "DCL ",
    "IMM[0] ",
    "FLT32 ",
    "UINT32 ",
    "{",
    "}",
    "IN",
    "OUT",
    "TEMP",
    "CONST",
    "SAMP",
    "ADDR",
    "[",
    "]",
    "..",
    ".",
    ",",
    "-",
    "|",
    "0",
    "1",
    "4294967296",
    "99999999999",
    ":",
    "MOV ",
    "MAD ",
    "TEX ",
    "IF ",
    "ENDIF",
    "BGNLOOP",
    "ENDLOOP",
    "CAL :3",
    "RET",
    "END",
    "\n",
    " ",
    "x",
    "xyzw",
    "_SAT",
    "POSITION",
    "GENERIC",
    "COLOR",
    "2D",
    "0x",
    "é",
    "\t",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_panic(s in "\\PC{0,200}") {
        let _ = sgx_compiler::parse(&s);
        let _ = sgx_compiler::compile(&s);
    }

    #[test]
    fn random_tokens_never_panic(v in proptest::collection::vec(0..TOKENS.len(), 0..80)) {
        let s: String = v.iter().map(|i| TOKENS[*i]).collect();
        let _ = sgx_compiler::compile(&s);
        let s2 = format!("VERT\n{s}");
        let _ = sgx_compiler::compile(&s2);
    }

    #[test]
    fn truncated_text_never_panics(cut in 0..SAMPLE.len()) {
        if SAMPLE.is_char_boundary(cut) {
            let _ = sgx_compiler::compile(&SAMPLE[..cut]);
        }
    }

    #[test]
    fn mutated_text_never_panics(pos in 0..SAMPLE.len(), c in proptest::char::any()) {
        let mut s: String = SAMPLE.chars().take(pos).collect();
        s.push(c);
        s.extend(SAMPLE.chars().skip(pos + 1));
        let _ = sgx_compiler::compile(&s);
    }
}

#[test]
fn sample_compiles() {
    sgx_compiler::compile(SAMPLE).unwrap();
}
