//! The generator refuses bad definitions with a message naming the file and item.

use sgx_hwdocs::gen::generate;

fn gen_err(json: &str) -> String {
    match generate(&[("defs/t.json".to_string(), json.to_string())]) {
        Ok(_) => panic!("accepted: {json}"),
        Err(e) => e.0,
    }
}

/// A well-formed file with one word whose single field is given.
fn one_field(field: &str) -> String {
    format!(
        r#"{{"block":"t","doc":"d","evidence":"MODEL","source":"model: test",
        "enums":[{{"name":"E","doc":"","evidence":"MODEL","source":"model: x",
          "values":[{{"name":"A","value":0,"evidence":"MODEL","source":"model: x"}},
                    {{"name":"B","value":5,"evidence":"MODEL","source":"model: x"}}]}}],
        "words":[{{"name":"W","dwords":2,"doc":"","evidence":"MODEL","source":"model: x",
          "fields":[{field}]}}]}}"#
    )
}

const GOOD: &str =
    r#"{"name":"f","dw":0,"bits":"3:0","doc":"","evidence":"MODEL","source":"model: x"}"#;

#[test]
fn a_good_definition_generates() {
    let src = generate(&[("defs/t.json".into(), one_field(GOOD))]).unwrap();
    assert!(src.contains("pub struct W"));
    assert!(src.contains("pub fn pack"));
}

#[test]
fn refuses_overlapping_fields() {
    let f = format!(
        r#"{GOOD}, {{"name":"g","dw":0,"bits":"5:3","doc":"","evidence":"MODEL","source":"model: x"}}"#
    );
    let e = gen_err(&one_field(&f));
    assert!(
        e.contains("defs/t.json") && e.contains("word W field g") && e.contains("overlaps field f"),
        "{e}"
    );
}

#[test]
fn refuses_fields_past_the_word() {
    let e = gen_err(&one_field(
        r#"{"name":"f","dw":0,"bits":"32:30","doc":"","evidence":"MODEL","source":"model: x"}"#,
    ));
    assert!(
        e.contains("field f") && e.contains("past the 32-bit word"),
        "{e}"
    );
    let e = gen_err(&one_field(
        r#"{"name":"f","dw":2,"bits":"1:0","doc":"","evidence":"MODEL","source":"model: x"}"#,
    ));
    assert!(
        e.contains("field f") && e.contains("past the word's 2 dwords"),
        "{e}"
    );
}

#[test]
fn refuses_missing_evidence_or_source() {
    let e = gen_err(&one_field(
        r#"{"name":"f","bits":"1:0","doc":"","source":"model: x"}"#,
    ));
    assert!(e.contains("word W field f: missing evidence"), "{e}");
    let e = gen_err(&one_field(
        r#"{"name":"f","bits":"1:0","doc":"","evidence":"MODEL"}"#,
    ));
    assert!(e.contains("word W field f: missing source"), "{e}");
    let e = gen_err(&one_field(
        r#"{"name":"f","bits":"1:0","doc":"","evidence":"GUESS","source":"model: x"}"#,
    ));
    assert!(e.contains("not one of CONFIRMED, INFERRED, MODEL"), "{e}");
    let e = gen_err(&one_field(
        r#"{"name":"f","bits":"1:0","doc":"","evidence":"MODEL","source":"a hunch"}"#,
    ));
    assert!(e.contains("model: <why this value>"), "{e}");
}

#[test]
fn refuses_duplicate_names_and_offsets() {
    let f = format!(
        r#"{GOOD}, {{"name":"f","dw":1,"bits":"1:0","doc":"","evidence":"MODEL","source":"model: x"}}"#
    );
    let e = gen_err(&one_field(&f));
    assert!(e.contains("field f: duplicate field name"), "{e}");
    let regs = r#"{"block":"r","doc":"","evidence":"MODEL","source":"model: x","registers":[
        {"name":"A","offset":"0x10","doc":"","evidence":"MODEL","source":"model: x"},
        {"name":"B","offset":"0x10","doc":"","evidence":"MODEL","source":"model: x"}]}"#;
    let e = gen_err(regs);
    assert!(
        e.contains("register B: duplicate offset 0x10 (also A)"),
        "{e}"
    );
    let regs = r#"{"block":"r","doc":"","evidence":"MODEL","source":"model: x","registers":[
        {"name":"A","offset":"0x10","doc":"","evidence":"MODEL","source":"model: x"},
        {"name":"A","offset":"0x14","doc":"","evidence":"MODEL","source":"model: x"}]}"#;
    let e = gen_err(regs);
    assert!(e.contains("register A: duplicate name"), "{e}");
}

#[test]
fn refuses_defaults_out_of_range() {
    let e = gen_err(&one_field(
        r#"{"name":"f","bits":"3:0","default":16,"doc":"","evidence":"MODEL","source":"model: x"}"#,
    ));
    assert!(
        e.contains("field f: default 16: out of range (max 15)"),
        "{e}"
    );
    let e = gen_err(&one_field(
        r#"{"name":"f","bits":"3:0","type":"enum","enum":"E","default":"C","doc":"","evidence":"MODEL","source":"model: x"}"#,
    ));
    assert!(e.contains("not a value of E"), "{e}");
    let e = gen_err(&one_field(
        r#"{"name":"f","bits":"29:0","type":"addr","shift":2,"default":6,"doc":"","evidence":"MODEL","source":"model: x"}"#,
    ));
    assert!(e.contains("not 4-byte aligned"), "{e}");
}

#[test]
fn refuses_enums_that_do_not_fit_and_unknown_types() {
    let e = gen_err(&one_field(
        r#"{"name":"f","bits":"1:0","type":"enum","enum":"E","doc":"","evidence":"MODEL","source":"model: x"}"#,
    ));
    assert!(e.contains("E::B = 5 does not fit 2 bits"), "{e}");
    let e = gen_err(&one_field(
        r#"{"name":"f","bits":"1:0","type":"enum","enum":"Nope","doc":"","evidence":"MODEL","source":"model: x"}"#,
    ));
    assert!(e.contains("unknown enum Nope"), "{e}");
    let e = gen_err(&one_field(
        r#"{"name":"f","bits":"1:0","type":"float","doc":"","evidence":"MODEL","source":"model: x"}"#,
    ));
    assert!(e.contains("type \"float\" is not"), "{e}");
    let e = gen_err(&one_field(
        r#"{"name":"type","bits":"1:0","doc":"","evidence":"MODEL","source":"model: x"}"#,
    ));
    assert!(e.contains("Rust keyword"), "{e}");
}

#[test]
fn refuses_malformed_json_naming_the_file() {
    let e = gen_err("{ not json");
    assert!(e.starts_with("defs/t.json: malformed definition"), "{e}");
    let e = gen_err(r#"{"block":"t","doc":"","evidence":"MODEL","source":"model: x","colour":1}"#);
    assert!(e.contains("unknown field `colour`"), "{e}");
}

#[test]
fn the_real_definitions_generate() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/defs");
    let mut files: Vec<(String, String)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .map(|p| {
            (
                p.display().to_string(),
                std::fs::read_to_string(&p).unwrap(),
            )
        })
        .collect();
    files.sort();
    // The data as it stands generates exactly the code the crate was built with.
    let code = generate(&files).expect("the committed definitions generate");
    assert_eq!(code, include_str!(concat!(env!("OUT_DIR"), "/hwdocs.rs")));
}
