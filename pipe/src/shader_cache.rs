//! Compiled shaders, cached by content hash in memory and on disk.
//!
//! The key is SHA-256 over the compiler's version and the TGSI text, so a new compiler never
//! reads an old compiler's output. The disk cache lives under `$XDG_CACHE_HOME/sgx535` (or
//! `~/.cache/sgx535`); `SGX_SHADER_CACHE=0` turns it off. A damaged cache file is ignored and
//! rewritten, never trusted.

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
        T: serde::Serialize + serde::de::DeserializeOwned,
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
            if let Some(s) = std::fs::read(p)
                .ok()
                .and_then(|b| serde_json::from_slice::<T>(&b).ok())
            {
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
            let write = || -> std::io::Result<()> {
                std::fs::create_dir_all(p.parent().unwrap_or(p))?;
                let tmp = p.with_extension(format!("tmp{}", std::process::id()));
                std::fs::write(&tmp, serde_json::to_vec(&*s)?)?;
                std::fs::rename(&tmp, p)
            };
            if let Err(e) = write() {
                log::warn!("shader cache: cannot write {}: {e}", p.display());
            }
        }
        mem.lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(key, s.clone());
        Ok(s)
    }
}
