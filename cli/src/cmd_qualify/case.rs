//! One qualification case: a format, a size, a window and a pattern. The chain is generated on
//! the device through the blitter (admitting exactly this case), compared with the CPU
//! reference read directly and sampled, and the trace, the levels outside the window and the
//! caller's state and queries are checked.

use std::sync::Arc;
use std::time::{Duration, Instant};

use sgx_blitter::{Admission, AdmissionEntry, BlitInfo, Blitter, DeviceKind, Route};
use sgx_hwdocs::Format;
use sgx_pipe::state::{
    BlendState, FramebufferState, RasterizerState, ScissorState, Surface, ViewportState,
};
use sgx_pipe::{bind, Context, PipeBox, QueryType, Resource, ResourceTemplate, Screen};
use sgx_winsys::Access;

use super::texels::{self, Diff, Pattern};

/// How long a wait may take before the case fails as hung.
const WAIT: Duration = Duration::from_secs(20);

/// What to qualify.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Spec {
    /// Format.
    #[serde(serialize_with = "ser_format")]
    pub format: Format,
    /// Level-0 side.
    pub size_px: u32,
    /// First level of the window (sampled by the first pass).
    pub base: u32,
    /// Last level generated.
    pub last: u32,
    /// Level-0 pattern.
    pub pattern: Pattern,
}

fn ser_format<S: serde::Serializer>(f: &Format, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(f.name())
}

/// One generated level's figures, with RGBA8 images when it is small enough.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Level {
    pub level: u32,
    pub extent_px: u32,
    /// The level read directly against the CPU filter of the level before it.
    pub direct: Diff,
    /// The level sampled (NEAREST, texel centres) against that reference sampled alike.
    pub sampled: Diff,
    /// The level against the CPU reference chain.
    pub chain: Diff,
    /// Expected, actual, magnified difference (RGBA8), for the report's PNGs.
    #[serde(skip)]
    pub images: Option<[Vec<u8>; 3]>,
}

/// A case's outcome.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Outcome {
    #[serde(flatten)]
    pub spec: Spec,
    /// "pass", "fail" or "not renderable".
    pub status: &'static str,
    /// Why the case failed or was not run.
    pub failures: Vec<String>,
    /// The largest per-channel error allowed.
    pub tolerance: u64,
    /// Per-pass figures, summed over the levels.
    pub direct: Diff,
    pub sampled: Diff,
    /// Figures against the CPU chain (rounding may compound here).
    pub chain: Diff,
    pub levels: Vec<Level>,
    /// Generation submissions, in order.
    pub submissions: Vec<u64>,
    pub elapsed_ms: f64,
}

/// The hwdocs item that says a format cannot be a render target, if it says so.
pub fn not_renderable(format: Format) -> Option<String> {
    let info = format.info();
    (!info.renderable).then(|| {
        format!(
            "hwdocs/defs/formats.json {}: renderable false ({:?}: {})",
            info.name, info.evidence, info.source
        )
    })
}

/// The context's state and query activity as text, to compare before and after.
fn fingerprint(ctx: &Context) -> String {
    fn ptr<T>(a: Option<Arc<T>>) -> Option<*const T> {
        a.map(|a| Arc::as_ptr(&a))
    }
    format!(
        "{:?}|{:?}|{:?}|{:?}|{:?}|{:?}|{:?}|{:?}|{:?}|{}|{}|{}",
        ctx.framebuffer_state(),
        ctx.viewport_state(),
        ctx.scissor_state(),
        ptr(ctx.blend_state()),
        ptr(ctx.depth_stencil_alpha_state()),
        ptr(ctx.rasterizer_state()),
        ptr(ctx.vs_state()),
        ptr(ctx.fs_state()),
        ctx.sampler_views().len(),
        ctx.vertex_buffers().len(),
        ctx.sample_mask(),
        ctx.active_query_state()
    )
}

fn texture(
    screen: &Screen,
    format: Format,
    size_px: u32,
    last: u32,
) -> anyhow::Result<Arc<Resource>> {
    Ok(screen.resource_create(&ResourceTemplate::texture_2d(
        format,
        size_px,
        size_px,
        last,
        bind::SAMPLER_VIEW | bind::RENDER_TARGET,
    ))?)
}

fn upload(
    ctx: &mut Context,
    res: &Arc<Resource>,
    level: u32,
    data: &[u8],
    size_px: u32,
) -> anyhow::Result<()> {
    let s = (size_px >> level).max(1);
    let bpe = res.format().info().bytes_per_el as usize;
    ctx.texture_subdata(
        res,
        level,
        0,
        PipeBox::new(0, 0, s, s),
        data,
        s as usize * bpe,
        0,
    )?;
    Ok(())
}

/// Samples a level with NEAREST at its texel centres: a 1:1 blit into a target of its size.
fn sampled(
    ctx: &mut Context,
    blitter: &Blitter,
    screen: &Screen,
    src: &Arc<Resource>,
    level: u32,
) -> anyhow::Result<Vec<u8>> {
    let (w, h) = src.level_extent(level)?;
    let dst = screen.resource_create(&ResourceTemplate::texture_2d(
        src.format(),
        w,
        h,
        0,
        bind::RENDER_TARGET | bind::SAMPLER_VIEW,
    ))?;
    blitter.blit(
        ctx,
        &BlitInfo {
            dst: dst.clone(),
            dst_level: 0,
            dst_face: 0,
            dst_box: PipeBox::new(0, 0, w, h),
            src: src.clone(),
            src_level: level,
            src_face: 0,
            src_box: PipeBox::new(0, 0, w, h),
            linear: false,
        },
    )?;
    Ok(ctx.read_level(&dst, 0, 0)?)
}

/// The application state the blitter must leave as it was: a framebuffer, viewport, scissor,
/// blend and rasterizer state of its own, and an active occlusion query.
struct Sentinel {
    _fb: Arc<Resource>,
    query: Arc<sgx_pipe::Query>,
}

fn bind_sentinel(ctx: &mut Context, screen: &Screen) -> anyhow::Result<Sentinel> {
    let fb = screen.resource_create(&ResourceTemplate::texture_2d(
        Format::B8G8R8A8_UNORM,
        16,
        16,
        0,
        bind::RENDER_TARGET,
    ))?;
    ctx.set_framebuffer_state(&FramebufferState::colour(Surface::new(&fb, 0, 0), 16, 16))?;
    ctx.set_viewport_state(&ViewportState::rect(1.0, 2.0, 13.0, 11.0))?;
    ctx.set_scissor_state(&ScissorState {
        minx: 1,
        miny: 1,
        maxx: 9,
        maxy: 7,
    })?;
    let blend = ctx.create_blend_state(&BlendState::default());
    ctx.bind_blend_state(Some(&blend));
    let rast = ctx.create_rasterizer_state(&RasterizerState {
        scissor: true,
        ..Default::default()
    })?;
    ctx.bind_rasterizer_state(Some(&rast));
    ctx.set_sample_mask(0x5);
    let query = ctx.create_query(QueryType::OcclusionCounter);
    ctx.begin_query(&query)?;
    Ok(Sentinel { _fb: fb, query })
}

/// Runs one case on a screen; `images_max_px` bounds the levels that keep images.
pub fn run(screen: &Screen, spec: Spec, images_max_px: u32) -> Outcome {
    let t0 = Instant::now();
    let mut out = Outcome {
        spec,
        status: "fail",
        failures: Vec::new(),
        tolerance: spec.pattern.tolerance(),
        direct: Diff::default(),
        sampled: Diff::default(),
        chain: Diff::default(),
        levels: Vec::new(),
        submissions: Vec::new(),
        elapsed_ms: 0.0,
    };
    if let Some(why) = not_renderable(spec.format) {
        out.status = "not renderable";
        out.failures.push(why);
        return out;
    }
    if let Err(e) = run_checked(screen, spec, images_max_px, &mut out) {
        out.failures.push(format!("{e:#}"));
    }
    let limit = out.tolerance;
    if out.direct.max_channel_err > limit {
        out.failures.push(format!(
            "direct read: largest channel error {} over the tolerance {limit} ({} bytes differ)",
            out.direct.max_channel_err, out.direct.bytes
        ));
    }
    if out.sampled.max_channel_err > limit {
        out.failures.push(format!(
            "sampled: largest channel error {} over the tolerance {limit} ({} bytes differ)",
            out.sampled.max_channel_err, out.sampled.bytes
        ));
    }
    if spec.pattern == Pattern::Exact && out.chain.bytes != 0 {
        out.failures.push(format!(
            "{} bytes differ from the CPU chain on the exact pattern",
            out.chain.bytes
        ));
    }
    if out.failures.is_empty() {
        out.status = "pass";
    }
    out.elapsed_ms = t0.elapsed().as_secs_f64() * 1e3;
    out
}

fn run_checked(
    screen: &Screen,
    spec: Spec,
    images_max_px: u32,
    out: &mut Outcome,
) -> anyhow::Result<()> {
    let dev = screen.device().clone();
    let kind = DeviceKind::of(&dev.info());
    let mut ctx = screen.context_create();
    ctx.set_timeout(WAIT);
    let mut blitter = Blitter::with_admission(&ctx, Admission::only(Vec::new()))?;
    // The reference: level 0 and the CPU generator's levels (the route the blitter falls back
    // to), computed on linear rows.
    let mut expected = vec![texels::level0(spec.format, spec.pattern, spec.size_px)];
    for l in 1..=spec.last {
        let s = (spec.size_px >> (l - 1)).max(1);
        let next = sgx_layout::mipgen::downsample(spec.format, &expected[l as usize - 1], s, s)?;
        expected.push(next);
    }
    let res = texture(screen, spec.format, spec.size_px, spec.last)?;
    for l in 0..=spec.base {
        upload(&mut ctx, &res, l, &expected[l as usize], spec.size_px)?;
    }
    let outside_before: Vec<Vec<u8>> = (0..=spec.base)
        .map(|l| ctx.read_level(&res, l, 0))
        .collect::<sgx_pipe::Result<_>>()?;
    ctx.flush()?;
    dev.wait_idle(WAIT)?;

    let sentinel = bind_sentinel(&mut ctx, screen)?;
    let before = fingerprint(&ctx);
    let first_entry = dev.trace().entries.len();
    blitter.admission = Admission::only(vec![AdmissionEntry {
        device: kind,
        format: spec.format.name().into(),
        sizes_px: vec![spec.size_px],
        base_levels: vec![spec.base],
        source: "sgx535 qualify: the case under test".into(),
        evidence: None,
    }]);
    let report = blitter.generate_mipmap(&mut ctx, &res, spec.base, spec.last)?;
    blitter.wait_mipmap(&res, &report, WAIT)?;
    if let Route::Cpu { reason } = &report.route {
        anyhow::bail!("the GPU route refused the case: {reason}");
    }
    if fingerprint(&ctx) != before {
        out.failures
            .push("the caller's state was not restored".into());
    }
    if !ctx.active_query_state() {
        out.failures.push("queries were left paused".into());
    }
    ctx.end_query(&sentinel.query)?;
    match ctx.get_query_result(&sentinel.query, true)? {
        Some(0) => {}
        other => out.failures.push(format!(
            "the active occlusion query counted the internal draws: {other:?}"
        )),
    }
    dev.wait_idle(WAIT)
        .map_err(|e| anyhow::anyhow!("the engine is still busy after the passes: {e}"))?;
    check_trace(&dev.trace(), first_entry, &report, &res, spec, out);

    for (l, want) in outside_before.iter().enumerate() {
        if &ctx.read_level(&res, l as u32, 0)? != want {
            out.failures
                .push(format!("level {l}, outside the window, changed"));
        }
    }
    // Each pass is held to the CPU filter of the level the device generated before it (so
    // rounding differences do not compound into a tolerance breach); the chain as a whole is
    // compared with the CPU chain too. The reference texture holds the per-pass references,
    // for the sampled comparison.
    let reference = texture(screen, spec.format, spec.size_px, spec.last)?;
    let mut prev = ctx.read_level(&res, spec.base, 0)?;
    for l in spec.base + 1..=spec.last {
        let got = ctx.read_level(&res, l, 0)?;
        let ps = (spec.size_px >> (l - 1)).max(1);
        let want = sgx_layout::mipgen::downsample(spec.format, &prev, ps, ps)?;
        let direct = texels::diff(spec.format, &got, &want);
        let chain = texels::diff(spec.format, &got, &expected[l as usize]);
        upload(&mut ctx, &reference, l, &want, spec.size_px)?;
        let s_got = sampled(&mut ctx, &blitter, screen, &res, l)?;
        let s_want = sampled(&mut ctx, &blitter, screen, &reference, l)?;
        let samp = texels::diff(spec.format, &s_got, &s_want);
        out.direct.add(direct);
        out.sampled.add(samp);
        out.chain.add(chain);
        let extent_px = (spec.size_px >> l).max(1);
        let images = (extent_px <= images_max_px).then(|| {
            [
                texels::to_rgba8(spec.format, &want),
                texels::to_rgba8(spec.format, &got),
                texels::diff_rgba8(spec.format, &got, &want, 32),
            ]
        });
        out.levels.push(Level {
            level: l,
            extent_px,
            direct,
            sampled: samp,
            chain,
            images,
        });
        prev = got;
    }
    Ok(())
}

/// One native submission per generated level, in order, each writing the texture's buffer and
/// running after the pass before it, none faulted.
fn check_trace(
    trace: &sgx_winsys::Trace,
    first: usize,
    report: &sgx_blitter::MipgenReport,
    res: &Arc<Resource>,
    spec: Spec,
    out: &mut Outcome,
) {
    let bo = res.bo().id();
    let levels: Vec<u32> = report.passes.iter().map(|p| p.level).collect();
    let want: Vec<u32> = (spec.base + 1..=spec.last).collect();
    if levels != want {
        out.failures
            .push(format!("passes for levels {levels:?}, expected {want:?}"));
    }
    let entries = &trace.entries[first.min(trace.entries.len())..];
    // The passes' own entries (the sentinel's and the sampling blits come later or elsewhere).
    let mut last_sub = None;
    let mut last_end: Option<u64> = None;
    for p in &report.passes {
        let Some(e) = entries.iter().find(|e| e.fence == Some(p.fence.id())) else {
            out.failures.push(format!(
                "level {}: its submission is not in the trace",
                p.level
            ));
            continue;
        };
        out.submissions.push(e.submission);
        if last_sub.is_some_and(|s| e.submission <= s) {
            out.failures
                .push(format!("level {}: submitted out of order", p.level));
        }
        last_sub = Some(e.submission);
        // Each pass reads the level the pass before wrote: on the GPU's clock it must start
        // after that pass ended (the reservation ordered it).
        if let (Some(prev_end), Some(start)) = (last_end, e.start_cycles) {
            if start < prev_end {
                out.failures.push(format!(
                    "level {}: started at cycle {start}, before the previous pass ended ({prev_end})",
                    p.level
                ));
            }
        }
        last_end = e.end_cycles;
        if e.result != sgx_winsys::TraceResult::Done {
            out.failures
                .push(format!("level {}: the job ended {:?}", p.level, e.result));
        }
        if e.kind != "render" {
            out.failures
                .push(format!("level {}: a {} job, not a render", p.level, e.kind));
        }
        let writes = e
            .bos
            .iter()
            .any(|b| b.bo == bo && matches!(b.access, Access::Write | Access::ReadWrite));
        if !writes {
            out.failures.push(format!(
                "level {}: the job does not write the texture's buffer {bo}",
                p.level
            ));
        }
    }
    // Nothing else was submitted between the first pass and the last.
    if let (Some(a), Some(b)) = (out.submissions.first(), out.submissions.last()) {
        let between = entries
            .iter()
            .filter(|e| e.submission >= *a && e.submission <= *b)
            .count();
        if between != out.submissions.len() {
            out.failures.push(format!(
                "{} submissions between the first pass and the last, expected {}",
                between,
                out.submissions.len()
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sgx_winsys::{SimDevice, TraceResult};

    fn spec() -> Spec {
        Spec {
            format: Format::B8G8R8A8_UNORM,
            size_px: 32,
            base: 0,
            last: 5,
            pattern: Pattern::Exact,
        }
    }

    #[test]
    fn a_passing_case_fails_when_a_check_is_broken() {
        let dev: Arc<dyn sgx_winsys::Device> = Arc::new(SimDevice::new().unwrap());
        let screen = Screen::with_shader_cache(dev.clone(), sgx_pipe::ShaderCache::in_memory());
        let o = run(&screen, spec(), 8);
        assert_eq!(o.status, "pass", "{:?}", o.failures);
        assert_eq!(o.submissions.len(), 5);
        assert!(o
            .levels
            .iter()
            .all(|l| l.images.is_some() == (l.extent_px <= 8)));

        // The same generation again, to break its trace in each way the check looks for.
        let mut ctx = screen.context_create();
        let blitter = Blitter::with_admission(&ctx, Admission::builtin()).unwrap();
        let res = texture(&screen, Format::B8G8R8A8_UNORM, 32, 5).unwrap();
        let l0 = texels::level0(Format::B8G8R8A8_UNORM, Pattern::Exact, 32);
        upload(&mut ctx, &res, 0, &l0, 32).unwrap();
        let first = dev.trace().entries.len();
        let rep = blitter.generate_mipmap(&mut ctx, &res, 0, 5).unwrap();
        blitter.wait_mipmap(&res, &rep, WAIT).unwrap();
        dev.wait_idle(WAIT).unwrap();
        let trace = dev.trace();
        let check = |t: &sgx_winsys::Trace| {
            let mut o = run(&screen, spec(), 0);
            o.failures.clear();
            o.submissions.clear();
            check_trace(t, first, &rep, &res, spec(), &mut o);
            o.failures
        };
        assert!(check(&trace).is_empty(), "{:?}", check(&trace));
        let mut t = trace.clone();
        let i = t.entries.len() - 1;
        t.entries[i].result = TraceResult::Error(sgx_winsys::JobError::DeviceLost);
        assert!(check(&t)
            .iter()
            .any(|f| f.contains("level 5: the job ended")));
        let mut t = trace.clone();
        t.entries[first + 1].start_cycles = Some(0);
        assert!(check(&t)
            .iter()
            .any(|f| f.contains("before the previous pass ended")));
        let mut t = trace.clone();
        t.entries[first + 2].bos.retain(|b| b.bo != res.bo().id());
        assert!(check(&t)
            .iter()
            .any(|f| f.contains("level 3: the job does not write")));
        let mut t = trace.clone();
        let mut extra = t.entries[first].clone();
        extra.fence = None;
        extra.submission = t.entries[first].submission + 1;
        for e in &mut t.entries[first + 1..] {
            e.submission += 1;
        }
        t.entries.insert(first + 1, extra);
        assert!(check(&t)
            .iter()
            .any(|f| f.contains("6 submissions between the first pass and the last")));
    }

    #[test]
    fn unrenderable_formats_name_their_hwdocs_entry() {
        let dev: Arc<dyn sgx_winsys::Device> = Arc::new(SimDevice::new().unwrap());
        let screen = Screen::with_shader_cache(dev, sgx_pipe::ShaderCache::in_memory());
        let o = run(
            &screen,
            Spec {
                format: Format::A8_UNORM,
                ..spec()
            },
            0,
        );
        assert_eq!(o.status, "not renderable");
        assert!(o.failures[0].starts_with("hwdocs/defs/formats.json A8_UNORM: renderable false"));
        assert!(not_renderable(Format::B5G6R5_UNORM).is_none());
    }
}
