//! Stamps the compiler with a hash of its own sources and of the ISA it encodes, so that the
//! shader caches (keyed by `sgx_compiler::VERSION`) never serve code from another compiler.

use std::path::{Path, PathBuf};

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

fn main() {
    let mut paths = Vec::new();
    files(Path::new("src"), &mut paths);
    paths.sort();
    paths.push(PathBuf::from("../hwdocs/defs/usse.json"));
    // FNV-1a over the path names and contents: a stamp, not a security measure.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for p in &paths {
        println!("cargo:rerun-if-changed={}", p.display());
        let data = std::fs::read(p).unwrap_or_default();
        for b in p.display().to_string().bytes().chain(data) {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
    println!("cargo:rerun-if-changed=src");
    println!("cargo:rustc-env=SGX_COMPILER_SOURCE_HASH={h:016x}");
}
