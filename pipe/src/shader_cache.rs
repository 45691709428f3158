//! Compiled shaders, cached by content hash in memory and on disk.
//!
//! The key is SHA-256 over the compiler's version and the TGSI text, so a new compiler never
//! reads an old compiler's output. The disk cache lives under `$XDG_CACHE_HOME/sgx535` (or
//! `~/.cache/sgx535`); `SGX_SHADER_CACHE=0` turns it off. A damaged cache file is ignored and
//! rewritten, never trusted.
//!
//! An entry file is a line `sha256 HEX` (over the key and the JSON that follows) and the
//! JSON. An entry whose checksum does not match, that does not parse, or that fails the
//! compiler's own checks (`validate`: counts within the hwdocs limits, code that decodes) is
//! dropped with a warning and compiled again.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use sgx_compiler::{CompiledShader, LinkedProgram};
use sha2::{Digest, Sha256};

use crate::error::Result;

/// Counters of cache use.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// Found in memory.
    pub memory_hits: u64,
    /// Loaded from disk.
    pub disk_hits: u64,
    /// Compiled.
    pub compiles: u64,
}

/// The shader cache of a screen.
#[derive(Debug)]
pub struct ShaderCache {
    mem: Mutex<HashMap<[u8; 32], Arc<CompiledShader>>>,
    linked: Mutex<HashMap<[u8; 32], Arc<LinkedProgram>>>,
    dir: Option<PathBuf>,
    stats: Mutex<CacheStats>,
}

impl ShaderCache {
    /// Memory only.
    pub fn in_memory() -> ShaderCache {
        ShaderCache {
            mem: Mutex::new(HashMap::new()),
            linked: Mutex::new(HashMap::new()),
            dir: None,
            stats: Mutex::new(CacheStats::default()),
        }
    }

    /// Memory and a disk cache in `dir`.
    pub fn with_dir(dir: PathBuf) -> ShaderCache {
        ShaderCache {
            dir: Some(dir),
            ..ShaderCache::in_memory()
        }
    }

    /// As the environment says: `SGX_SHADER_CACHE=0` for memory only, else the XDG cache dir.
    pub fn from_env() -> ShaderCache {
        if std::env::var("SGX_SHADER_CACHE").is_ok_and(|v| v == "0") {
            return ShaderCache::in_memory();
        }
        let base = std::env::var_os("XDG_CACHE_HOME")
            .map(PathBuf::from)
            .filter(|p| p.is_absolute())
            .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")));
        match base {
            Some(b) => ShaderCache::with_dir(b.join("sgx535")),
            None => ShaderCache::in_memory(),
        }
    }

    /// The disk directory, if any.
    pub fn dir(&self) -> Option<&PathBuf> {
        self.dir.as_ref()
    }

    /// Counters so far.
    pub fn stats(&self) -> CacheStats {
        *self.stats.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn key(parts: &[&str]) -> [u8; 32] {
        let mut h = Sha256::new();
        h.update(b"sgx-compiler ");
        h.update(sgx_compiler::VERSION.as_bytes());
        for p in parts {
            // Length-prefixed, so ("ab", "c") and ("a", "bc") differ.
            h.update((p.len() as u64).to_le_bytes());
            h.update(p.as_bytes());
        }
        h.finalize().into()
    }

    fn path(&self, key: &[u8; 32], kind: &str) -> Option<PathBuf> {
        let hex: String = key.iter().map(|b| format!("{b:02x}")).collect();
        self.dir
            .as_ref()
            .map(|d| d.join(format!("{kind}-{hex}.json")))
    }

    /// The compiled form of `tgsi`, compiling it at most once per process and once per disk
    /// cache.
    pub fn get_or_compile(&self, tgsi: &str) -> Result<Arc<CompiledShader>> {
        let key = Self::key(&[tgsi]);
        self.get_or_make(&self.mem, key, "s", || sgx_compiler::compile(tgsi))
    }

    /// The linked form of a vertex and fragment pair, linking it at most once per process and
    /// once per disk cache.
    pub fn get_or_link(&self, vs: &str, fs: &str) -> Result<Arc<LinkedProgram>> {
        let key = Self::key(&[vs, fs]);
        self.get_or_make(&self.linked, key, "l", || sgx_compiler::link(vs, fs))
    }

    fn get_or_make<T>(
        &self,
        mem: &Mutex<HashMap<[u8; 32], Arc<T>>>,
        key: [u8; 32],
        kind: &str,
        make: impl FnOnce() -> std::result::Result<T, sgx_compiler::CompileError>,
    ) -> Result<Arc<T>>
    where
        T: Entry,
    {
        if let Some(s) = mem.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
            self.stats
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .memory_hits += 1;
            return Ok(s.clone());
        }
        let path = self.path(&key, kind);
        if let Some(p) = &path {
            if let Some(s) = read_entry::<T>(p, &key) {
                let s = Arc::new(s);
                mem.lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .insert(key, s.clone());
                self.stats
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .disk_hits += 1;
                return Ok(s);
            }
        }
        let s = Arc::new(make()?);
        self.stats
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .compiles += 1;
        if let Some(p) = &path {
            // The disk cache is an optimisation: failing to write it is logged, not an error.
            if let Err(e) = write_entry(p, &key, &*s) {
                log::warn!("shader cache: cannot write {}: {e}", p.display());
            }
        }
        mem.lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(key, s.clone());
        Ok(s)
    }
}

/// What the cache checks before trusting an entry read from disk.
trait Entry: serde::Serialize + serde::de::DeserializeOwned {
    fn validate(&self) -> std::result::Result<(), String>;
}

impl Entry for CompiledShader {
    fn validate(&self) -> std::result::Result<(), String> {
        CompiledShader::validate(self)
    }
}

impl Entry for LinkedProgram {
    fn validate(&self) -> std::result::Result<(), String> {
        LinkedProgram::validate(self)
    }
}

fn checksum(key: &[u8; 32], json: &[u8]) -> String {
    let mut h = Sha256::new();
    h.update(key);
    h.update(json);
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// The entry at `p`, if there is one and it passes every check; a bad one is removed.
fn read_entry<T: Entry>(p: &std::path::Path, key: &[u8; 32]) -> Option<T> {
    let bytes = std::fs::read(p).ok()?;
    let check = || -> std::result::Result<T, String> {
        let nl = bytes
            .iter()
            .position(|b| *b == b'\n')
            .ok_or("no checksum line")?;
        let (head, json) = (&bytes[..nl], &bytes[nl + 1..]);
        let want = format!("sha256 {}", checksum(key, json));
        if head != want.as_bytes() {
            return Err("checksum does not match".into());
        }
        let t: T = serde_json::from_slice(json).map_err(|e| e.to_string())?;
        t.validate()?;
        Ok(t)
    };
    match check() {
        Ok(t) => Some(t),
        Err(why) => {
            log::warn!(
                "shader cache: dropping damaged entry {}: {why}",
                p.display()
            );
            let _ = std::fs::remove_file(p);
            None
        }
    }
}

/// Writes an entry through a temporary file renamed into place; the temporary file does not
/// outlive a failed write.
fn write_entry<T: Entry>(p: &std::path::Path, key: &[u8; 32], t: &T) -> std::io::Result<()> {
    std::fs::create_dir_all(p.parent().unwrap_or(p))?;
    let json = serde_json::to_vec(t)?;
    let mut bytes = format!("sha256 {}\n", checksum(key, &json)).into_bytes();
    bytes.extend_from_slice(&json);
    let tmp = p.with_extension(format!("tmp{}", std::process::id()));
    let r = std::fs::write(&tmp, &bytes).and_then(|()| std::fs::rename(&tmp, p));
    if r.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    const FS: &str = "FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\n  0: MOV OUT[0], IN[0]\n  1: END\n";

    fn dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("sgx535-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    fn only_entry(d: &std::path::Path) -> PathBuf {
        let files: Vec<PathBuf> = std::fs::read_dir(d)
            .expect("cache dir")
            .map(|e| e.expect("entry").path())
            .collect();
        assert_eq!(files.len(), 1, "{files:?}");
        files[0].clone()
    }

    /// Rewrites the entry's JSON with `damage`, keeping (`resign` false) or recomputing its
    /// checksum line.
    fn damage(p: &std::path::Path, resign: bool, damage: impl Fn(&mut serde_json::Value)) {
        let bytes = std::fs::read(p).expect("entry");
        let nl = bytes
            .iter()
            .position(|b| *b == b'\n')
            .expect("checksum line");
        let mut v: serde_json::Value = serde_json::from_slice(&bytes[nl + 1..]).expect("json");
        damage(&mut v);
        let json = serde_json::to_vec(&v).expect("json");
        let mut out = if resign {
            let key = ShaderCache::key(&[FS]);
            format!("sha256 {}\n", checksum(&key, &json)).into_bytes()
        } else {
            bytes[..=nl].to_vec()
        };
        out.extend_from_slice(&json);
        std::fs::write(p, out).expect("write");
    }

    fn reload(d: &std::path::Path) -> (Arc<CompiledShader>, CacheStats) {
        let c = ShaderCache::with_dir(d.to_path_buf());
        let s = c.get_or_compile(FS).expect("compiles");
        (s, c.stats())
    }

    #[test]
    fn an_entry_with_changed_code_fails_its_checksum_and_is_compiled_again() {
        let d = dir("cache-sum");
        let (good, _) = reload(&d);
        let p = only_entry(&d);
        damage(&p, false, |v| v["code"][0] = 0x1234.into());
        let (s, st) = reload(&d);
        assert_eq!((st.disk_hits, st.compiles), (0, 1));
        assert_eq!(s.code, good.code);
        // The rewritten entry is good again, and nothing else is left in the folder.
        assert_eq!(only_entry(&d), p);
        assert_eq!(reload(&d).1.disk_hits, 1);
        std::fs::remove_dir_all(&d).expect("cleanup");
    }

    #[test]
    fn an_entry_with_a_good_checksum_but_impossible_counts_is_dropped() {
        let d = dir("cache-counts");
        reload(&d);
        let p = only_entry(&d);
        damage(&p, true, |v| v["instructions"] = u32::MAX.into());
        let (_, st) = reload(&d);
        assert_eq!((st.disk_hits, st.compiles), (0, 1));
        damage(&p, true, |v| v["temps"] = 1_000_000.into());
        assert_eq!(reload(&d).1.compiles, 1);
        damage(&p, true, |v| v["code"] = serde_json::json!([0, 0]));
        assert_eq!(reload(&d).1.compiles, 1);
        assert_eq!(reload(&d).1.disk_hits, 1);
        std::fs::remove_dir_all(&d).expect("cleanup");
    }

    #[test]
    fn a_failed_write_leaves_no_temporary_file() {
        let d = dir("cache-tmp");
        std::fs::create_dir_all(&d).expect("dir");
        // The entry's path is a non-empty directory, so the rename onto it fails.
        let key = ShaderCache::key(&[FS]);
        let c = ShaderCache::with_dir(d.clone());
        let p = c.path(&key, "s").expect("path");
        std::fs::create_dir_all(p.join("x")).expect("blocker");
        c.get_or_compile(FS)
            .expect("compiles without its disk cache");
        let names: Vec<String> = std::fs::read_dir(&d)
            .expect("dir")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        assert!(names.iter().all(|n| !n.contains(".tmp")), "{names:?}");
        std::fs::remove_dir_all(&d).expect("cleanup");
    }
}
