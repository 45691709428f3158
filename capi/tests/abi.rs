//! The entry table: versioned as libglvnd's vendor interface, growing only at its end, every
//! entry also an exported symbol and declared in the committed header.

mod common;

use std::collections::BTreeMap;

use sgx535::*;

fn abi_files() -> BTreeMap<(u32, u32), Vec<String>> {
    let dir = format!("{}/abi", env!("CARGO_MANIFEST_DIR"));
    let mut out = BTreeMap::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_stem().unwrap().to_string_lossy().into_owned();
        let v = name
            .strip_prefix("sgx535-")
            .expect("abi/sgx535-MAJOR.MINOR.txt");
        let (ma, mi) = v.split_once('.').unwrap();
        let list = std::fs::read_to_string(&p)
            .unwrap()
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| l.trim().to_string())
            .collect();
        out.insert((ma.parse().unwrap(), mi.parse().unwrap()), list);
    }
    out
}

#[test]
fn the_table_is_the_checked_in_list_of_its_version() {
    let files = abi_files();
    let ours = files
        .get(&(SGX535_ABI_MAJOR, SGX535_ABI_MINOR))
        .expect("an abi/ file for the library's version: bump the version when the table changes");
    assert_eq!(
        ours, SGX535_ENTRIES,
        "the table changed without a version bump"
    );
    // Within a major, every older minor is a prefix: the table only grows at its end.
    for ((ma, mi), list) in &files {
        if (*ma, *mi) != (SGX535_ABI_MAJOR, SGX535_ABI_MINOR) && *ma == SGX535_ABI_MAJOR {
            assert_eq!(&ours[..list.len()], &list[..], "{ma}.{mi} is not a prefix");
        }
    }
}

#[test]
fn every_entry_is_declared_in_the_header() {
    let h = std::fs::read_to_string(format!("{}/include/sgx535.h", env!("CARGO_MANIFEST_DIR")))
        .unwrap();
    let declared = |e: &str| h.contains(&format!(" {e}(")) || h.contains(&format!("*{e}("));
    for e in SGX535_ENTRIES {
        assert!(declared(e), "{e} is not declared in sgx535.h");
    }
    assert!(declared("sgx535_get_interface"));
}

#[test]
fn get_interface_checks_versions_and_points_at_the_exported_symbols() {
    assert!(sgx535_get_interface(SGX535_ABI_MAJOR + 1, 0).is_null());
    assert!(
        common::last_error().contains("ABI"),
        "{}",
        common::last_error()
    );
    assert!(sgx535_get_interface(SGX535_ABI_MAJOR, SGX535_ABI_MINOR + 1).is_null());
    let t = sgx535_get_interface(SGX535_ABI_MAJOR, 0);
    assert!(!t.is_null());
    // SAFETY: a non-null table lives as long as the library.
    let t = unsafe { &*t };
    assert_eq!((t.major, t.minor), (SGX535_ABI_MAJOR, SGX535_ABI_MINOR));
    assert_eq!(
        t.screen_create as usize,
        sgx535_screen_create as *const () as usize
    );
    assert_eq!(
        t.layout_generate_mipmap as usize,
        sgx535_layout_generate_mipmap as *const () as usize
    );
    assert_eq!(
        t.last_error_message as usize,
        sgx535_last_error_message as *const () as usize
    );
    // The table is the struct's size: two u32 and one pointer per entry.
    assert_eq!(
        std::mem::size_of::<sgx535_interface>(),
        8 + SGX535_ENTRIES.len() * std::mem::size_of::<usize>()
    );
}
