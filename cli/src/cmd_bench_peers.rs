//! `sgx535 bench sim --peers`: the model's benchmark work on Mesa's software rasterisers,
//! softpipe and llvmpipe, through OSMesa (Debian: libosmesa6), in one table with the model.
//!
//! OSMesa picks its Gallium driver once per process (`GALLIUM_DRIVER`, read when the first
//! context is made), so each peer runs in a child process of this program
//! (`bench sim --peer-child`) that prints its figures. Mesa's work is timed whole: the draw,
//! its state validation and the copy into the caller's buffer at glFinish; the model's job
//! building is outside its timer. The mip chain on Mesa renders each level into the window
//! (viewport of the level's size, sampling the previous level with base = max level), not into
//! the texture: the same texels read and pixels written, without a framebuffer object.

use sgx_sim::bench_pattern as pattern;
use std::ffi::c_void;
use std::process::Command;
use std::time::Instant;

use anyhow::{bail, Context as _};

/// The library OSMesa's Debian package installs.
const OSMESA_LIB: &str = "libOSMesa.so.8";

/// The peers for a model on `n` threads: (label, GALLIUM_DRIVER, LP_NUM_THREADS, threads),
/// each compared with the model on the same thread count.
fn peers(n: usize) -> Vec<(String, &'static str, String, usize)> {
    let mut v = vec![
        ("softpipe".to_string(), "softpipe", "0".to_string(), 1),
        ("llvmpipe 1t".to_string(), "llvmpipe", "1".to_string(), 1),
    ];
    if n > 1 {
        v.push((format!("llvmpipe {n}t"), "llvmpipe", n.to_string(), n));
    }
    v
}

type GlEnum = u32;
type Ctx = *mut c_void;

const OSMESA_BGRA: GlEnum = 0x1;
const GL_UNSIGNED_BYTE: GlEnum = 0x1401;
const GL_TEXTURE_2D: GlEnum = 0x0DE1;
const GL_RGBA: GlEnum = 0x1908;
const GL_TEXTURE_MAG_FILTER: GlEnum = 0x2800;
const GL_TEXTURE_MIN_FILTER: GlEnum = 0x2801;
const GL_TEXTURE_WRAP_S: GlEnum = 0x2802;
const GL_TEXTURE_WRAP_T: GlEnum = 0x2803;
const GL_LINEAR: i32 = 0x2601;
const GL_CLAMP_TO_EDGE: i32 = 0x812F;
const GL_TEXTURE_BASE_LEVEL: GlEnum = 0x813C;
const GL_TEXTURE_MAX_LEVEL: GlEnum = 0x813D;
const GL_TRIANGLE_STRIP: GlEnum = 0x0005;

/// The GL entry points the workloads use, from libOSMesa (which exports GL 1.x itself).
struct Gl {
    _lib: libloading::Library,
    create: unsafe extern "C" fn(GlEnum, i32, i32, i32, Ctx) -> Ctx,
    make_current: unsafe extern "C" fn(Ctx, *mut c_void, GlEnum, i32, i32) -> u8,
    destroy: unsafe extern "C" fn(Ctx),
    viewport: unsafe extern "C" fn(i32, i32, i32, i32),
    enable: unsafe extern "C" fn(GlEnum),
    tex_image: unsafe extern "C" fn(GlEnum, i32, i32, i32, i32, i32, GlEnum, GlEnum, *const c_void),
    tex_parameteri: unsafe extern "C" fn(GlEnum, GlEnum, i32),
    begin: unsafe extern "C" fn(GlEnum),
    end: unsafe extern "C" fn(),
    tex_coord: unsafe extern "C" fn(f32, f32),
    vertex: unsafe extern "C" fn(f32, f32),
    finish: unsafe extern "C" fn(),
}

impl Gl {
    fn load() -> anyhow::Result<Gl> {
        // SAFETY: loading Mesa's OSMesa runs its initialisers, which have no preconditions.
        let lib = unsafe { libloading::Library::new(OSMESA_LIB) }?;
        macro_rules! sym {
            ($name:literal) => {
                // SAFETY: the symbol is the OSMesa/GL 1.x entry point of that name, whose C
                // signature the field's type spells.
                *unsafe { lib.get($name) }
                    .with_context(|| format!("{OSMESA_LIB}: {}", String::from_utf8_lossy($name)))?
            };
        }
        Ok(Gl {
            create: sym!(b"OSMesaCreateContextExt\0"),
            make_current: sym!(b"OSMesaMakeCurrent\0"),
            destroy: sym!(b"OSMesaDestroyContext\0"),
            viewport: sym!(b"glViewport\0"),
            enable: sym!(b"glEnable\0"),
            tex_image: sym!(b"glTexImage2D\0"),
            tex_parameteri: sym!(b"glTexParameteri\0"),
            begin: sym!(b"glBegin\0"),
            end: sym!(b"glEnd\0"),
            tex_coord: sym!(b"glTexCoord2f\0"),
            vertex: sym!(b"glVertex2f\0"),
            finish: sym!(b"glFinish\0"),
            _lib: lib,
        })
    }

    /// A window-filling quad with texture coordinates 0..1.
    fn quad(&self) {
        // SAFETY: GL calls on the current context with valid enums and plain values.
        unsafe {
            (self.begin)(GL_TRIANGLE_STRIP);
            for (x, y) in [(0.0, 0.0), (0.0, 1.0), (1.0, 0.0), (1.0, 1.0)] {
                (self.tex_coord)(x, y);
                (self.vertex)(2.0 * x - 1.0, 2.0 * y - 1.0);
            }
            (self.end)();
        }
    }
}

/// In the child: renders both workloads on the current OSMesa driver and prints
/// `quad <Mpix/s>` and `chain <Mpix/s>`.
pub fn child() -> anyhow::Result<()> {
    let gl = Gl::load()?;
    // The bench's target: 512x512 BGRA8, as sgx-sim's bench renders into.
    let mut buf = vec![0u8; 512 * 512 * 4];
    // SAFETY: OSMesa calls with a live buffer of 512x512 BGRA8 pixels that outlives the
    // context (destroyed below before `buf` drops); texture data pointers are live slices of
    // the size the call reads.
    unsafe {
        let ctx = (gl.create)(OSMESA_BGRA, 0, 0, 0, std::ptr::null_mut());
        if ctx.is_null() {
            bail!("OSMesaCreateContextExt failed");
        }
        if (gl.make_current)(ctx, buf.as_mut_ptr().cast(), GL_UNSIGNED_BYTE, 512, 512) == 0 {
            bail!("OSMesaMakeCurrent failed");
        }
        (gl.enable)(GL_TEXTURE_2D);
        for (p, v) in [
            (GL_TEXTURE_MIN_FILTER, GL_LINEAR),
            (GL_TEXTURE_MAG_FILTER, GL_LINEAR),
            (GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE),
            (GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE),
        ] {
            (gl.tex_parameteri)(GL_TEXTURE_2D, p, v);
        }
        let tex = pattern(256 * 256 * 4);
        let up = |level: i32, side: i32, data: &[u8]| {
            (gl.tex_image)(
                GL_TEXTURE_2D,
                level,
                GL_RGBA as i32,
                side,
                side,
                0,
                GL_RGBA,
                GL_UNSIGNED_BYTE,
                data.as_ptr().cast(),
            )
        };
        up(0, 256, &tex);
        (gl.viewport)(0, 0, 512, 512);
        let quad = best_secs(8, || {
            gl.quad();
            (gl.finish)();
        });
        println!("quad {}", 512.0 * 512.0 / quad / 1e6);
        // 64x64 chain, all levels present; each pass samples level L-1 only.
        for l in 0..7 {
            let side = 64 >> l;
            up(l, side, &pattern((side * side * 4) as usize));
        }
        let chain = best_secs(200, || {
            for l in 1..7 {
                (gl.tex_parameteri)(GL_TEXTURE_2D, GL_TEXTURE_BASE_LEVEL, l - 1);
                (gl.tex_parameteri)(GL_TEXTURE_2D, GL_TEXTURE_MAX_LEVEL, l - 1);
                (gl.viewport)(0, 0, 64 >> l, 64 >> l);
                gl.quad();
            }
            (gl.finish)();
        });
        let pixels: i32 = (1..7).map(|l| (64 >> l) * (64 >> l)).sum();
        println!("chain {}", f64::from(pixels) / chain / 1e6);
        (gl.destroy)(ctx);
    }
    Ok(())
}

/// Fastest of `runs` runs of `f` (after one untimed), in seconds.
fn best_secs(runs: u32, mut f: impl FnMut()) -> f64 {
    f();
    (0..runs)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64()
        })
        .fold(f64::MAX, f64::min)
}

/// One peer's figures: (quad, chain) Mpix/s.
fn peer(driver: &str, lp_threads: &str) -> anyhow::Result<(f64, f64)> {
    let out = Command::new(std::env::current_exe()?)
        .args(["bench", "sim", "--peer-child"])
        .env("GALLIUM_DRIVER", driver)
        .env("LP_NUM_THREADS", lp_threads)
        .output()?;
    if !out.status.success() {
        bail!("{}", String::from_utf8_lossy(&out.stderr).trim());
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let get = |key: &str| -> anyhow::Result<f64> {
        text.lines()
            .find_map(|l| l.strip_prefix(key)?.trim().parse().ok())
            .with_context(|| format!("no `{key}` figure in {text:?}"))
    };
    Ok((get("quad ")?, get("chain ")?))
}

/// One peer's figures.
#[derive(Clone, Debug, PartialEq)]
pub struct Peer {
    label: String,
    threads: usize,
    /// Textured quad and mip chain, Mpix/s.
    quad: f64,
    chain: f64,
}

/// Whether OSMesa loads; says why not when it does not (the peers are then skipped).
pub fn available() -> bool {
    // SAFETY: only probes whether the library loads (see Gl::load); dropped at once.
    match unsafe { libloading::Library::new(OSMESA_LIB) } {
        Ok(_) => true,
        Err(e) => {
            println!(
                "peers skipped: {OSMESA_LIB} not loadable ({e}); Debian: apt install libosmesa6"
            );
            false
        }
    }
}

/// One pass of every peer for a model on `n` threads (a peer that fails says why and is left
/// out of this pass).
pub fn measure(n: usize) -> Vec<Peer> {
    let mut figures = Vec::new();
    for (label, driver, lp, threads) in peers(n) {
        match peer(driver, &lp) {
            Ok((quad, chain)) => figures.push(Peer {
                label,
                threads,
                quad,
                chain,
            }),
            Err(e) => println!("peer {label} skipped: {e}"),
        }
    }
    figures
}

/// Takes another pass into `all`: each peer's fastest figures over the passes.
pub fn merge(all: &mut Vec<Peer>, pass: Vec<Peer>) {
    for p in pass {
        match all.iter_mut().find(|a| a.label == p.label) {
            Some(a) => {
                a.quad = a.quad.max(p.quad);
                a.chain = a.chain.max(p.chain);
            }
            None => all.push(p),
        }
    }
}

/// Prints the peers beside the model's rows (quad first, chain second), each peer against the
/// model on the same thread count.
pub fn print(rows: &[sgx_sim::BenchRow], figures: &[Peer], passes: u32) {
    let n = rows.first().map_or(1, |r| r.threads);
    let mut head = format!(
        "{:<22} {:>9} {:>9}",
        "Mpix/s (Mesa: OSMesa)",
        "model 1t",
        format!("model {n}t")
    );
    for p in figures {
        head.push_str(&format!(" {:>12}", p.label));
    }
    for p in figures {
        head.push_str(&format!(" {:>16}", format!("{}t/{}", p.threads, p.label)));
    }
    println!("{head}");
    for (k, (name, r)) in ["512x512 textured quad", "64x64 mip chain"]
        .iter()
        .zip(rows)
        .enumerate()
    {
        let mut line = format!(
            "{name:<22} {:>9.2} {:>9.2}",
            r.mpix_per_s(),
            r.mpix_per_s_nt()
        );
        let fig = |p: &Peer| if k == 0 { p.quad } else { p.chain };
        for p in figures {
            line.push_str(&format!(" {:>12.2}", fig(p)));
        }
        for p in figures {
            let model = if p.threads == 1 {
                r.mpix_per_s()
            } else {
                r.mpix_per_s_nt()
            };
            line.push_str(&format!(" {:>15.3}x", model / fig(p)));
        }
        println!("{line}");
    }
    println!(
        "(fastest of {passes} passes, each the model's rounds then every peer: both sampled \
         the machine over the same minutes)"
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merged_passes_keep_each_peers_fastest_figures() {
        let p = |label: &str, quad, chain| Peer {
            label: label.into(),
            threads: 1,
            quad,
            chain,
        };
        let mut all = vec![p("softpipe", 7.0, 4.0)];
        merge(
            &mut all,
            vec![p("softpipe", 6.0, 5.0), p("llvmpipe 1t", 90.0, 7.0)],
        );
        merge(&mut all, vec![p("llvmpipe 1t", 110.0, 6.0)]);
        assert_eq!(
            all,
            vec![p("softpipe", 7.0, 5.0), p("llvmpipe 1t", 110.0, 7.0)]
        );
    }
}
