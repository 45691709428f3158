//! Prints a level table, as `sgx535 layout` will:
//! `cargo run -p sgx-layout --example layout_table -- B8G8R8A8_UNORM 64x64 [--cube] [--levels N] [--json]`.

use sgx_hwdocs::Format;
use sgx_layout::{level_table, Layout, Template};

fn run() -> Result<String, String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: layout_table FORMAT WxH [--cube] [--levels N] [--json]";
    let format = args
        .first()
        .and_then(|s| Format::from_name(s))
        .ok_or(usage)?;
    let (w, h) = args.get(1).and_then(|s| s.split_once('x')).ok_or(usage)?;
    let (w, h) = (
        w.parse::<u32>().map_err(|e| e.to_string())?,
        h.parse::<u32>().map_err(|e| e.to_string())?,
    );
    let mut t = Template::new_2d(format, w, h).with_full_chain();
    if args.iter().any(|a| a == "--cube") {
        t = Template::new_cube(format, w).with_full_chain();
        t.height_px = h;
    }
    if let Some(i) = args.iter().position(|a| a == "--levels") {
        t.levels = args.get(i + 1).and_then(|s| s.parse().ok()).ok_or(usage)?;
    }
    let layout = Layout::new(&t).map_err(|e| e.to_string())?;
    if args.iter().any(|a| a == "--json") {
        serde_json::to_string_pretty(&layout).map_err(|e| e.to_string())
    } else {
        Ok(level_table(&layout))
    }
}

fn main() {
    match run() {
        Ok(s) => println!("{}", s.trim_end()),
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    }
}
