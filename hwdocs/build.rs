//! Generates the packers, unpackers and tables of hwdocs from defs/*.json.
#[path = "src/gen/mod.rs"]
mod gen;

fn main() {
    let dir = std::path::Path::new("defs");
    println!("cargo:rerun-if-changed=defs");
    println!("cargo:rerun-if-changed=src/gen");
    let mut names: Vec<_> = std::fs::read_dir(dir)
        .expect("hwdocs/defs is readable")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    names.sort();
    let mut files = Vec::new();
    for p in &names {
        println!("cargo:rerun-if-changed={}", p.display());
        let text = std::fs::read_to_string(p).expect("definition file is readable");
        files.push((p.display().to_string(), text));
    }
    match gen::generate(&files) {
        Ok(src) => {
            let out = std::path::PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("hwdocs.rs");
            std::fs::write(out, src).expect("OUT_DIR is writable");
        }
        Err(e) => {
            eprintln!("hwdocs: {e}");
            std::process::exit(1);
        }
    }
}
