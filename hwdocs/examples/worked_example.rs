//! Prints every word of the field guide's worked example (a textured quad into a 16x16 target).
fn main() {
    match sgx_hwdocs::example::listing() {
        Ok(s) => print!("{s}"),
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    }
}
