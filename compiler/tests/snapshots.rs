//! Snapshot tests of the disassembly of a few shaders (tests/snapshots/*.txt).
//!
//! A changed listing fails the test; after reviewing the change, regenerate with
//! `SGX_UPDATE_SNAPSHOTS=1 cargo test -p sgx-compiler --test snapshots`.

use sgx_compiler::{assemble, compile, disasm_words, link};

fn dir() -> String {
    format!("{}/tests", env!("CARGO_MANIFEST_DIR"))
}

fn check(name: &str, listing: &str) {
    let path = format!("{}/snapshots/{name}.txt", dir());
    if std::env::var_os("SGX_UPDATE_SNAPSHOTS").is_some() {
        std::fs::write(&path, listing).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&path).unwrap_or_else(|_| panic!("missing snapshot {path}"));
    assert_eq!(listing, want, "disassembly of {name} changed");
}

fn shader(name: &str) -> String {
    std::fs::read_to_string(format!("{}/shaders/{name}.tgsi", dir())).unwrap()
}

#[test]
fn snapshots_of_disassembly() {
    for name in [
        "mvp.vert",
        "lighting.vert",
        "texmod.frag",
        "discard.frag",
        "loop.vert",
        "sub.vert",
        "tex3d.frag",
        "shadow2dproj.frag",
        "tex1dbias.frag",
        "tex1d.frag",
    ] {
        let cs = compile(&shader(name)).unwrap();
        let listing = disasm_words(&cs.code).unwrap();
        // The listing is also an assembly source for the same words.
        assert_eq!(assemble(&listing).unwrap(), cs.code, "{name}");
        check(name, &listing);
    }
    let p = link(&shader("generic.vert"), &shader("generic.frag")).unwrap();
    let both = format!(
        "{}---\n{}",
        disasm_words(&p.vs.code).unwrap(),
        disasm_words(&p.fs.code).unwrap()
    );
    check("generic.linked", &both);
}
