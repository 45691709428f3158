//! `sgx535 bench draws`: draws per second for 10,000 small draws, each its own draw_vbo call,
//! into one 256x256 target on the device model, with and without state changes between draws;
//! with the context's counters, which show how much state each pattern re-emits; then the same
//! draws of zero-area triangles (culled by the TA, as piglit's drawoverhead draws), whose cost
//! is the driver's and the TA's alone.

use crate::out::outln;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context as _;
use sgx_pipe::state::*;
use sgx_pipe::{
    bind, clear_flags, Context, ContextStats, DrawInfo, Format, PrimMode, Resource,
    ResourceTemplate, Screen, ShaderStage, ShaderState,
};
use sgx_winsys::{Device, SimDevice};

/// Draws per measured run.
const DRAWS: u32 = 10_000;
/// Runs per pattern; the fastest is reported.
const RUNS: u32 = 3;
/// Side of the target, in pixels.
const SIZE_PX: u32 = 256;

const VS: &str = "VERT
DCL IN[0]
DCL OUT[0], POSITION
  0: MOV OUT[0], IN[0]
  1: END
";

const FS: &str = "FRAG
DCL OUT[0], COLOR
DCL CONST[0][0]
  0: MOV OUT[0], CONST[0][0]
  1: END
";

/// A second fragment program of the same colour, for program changes between draws.
const FS_VIA_TEMP: &str = "FRAG
DCL OUT[0], COLOR
DCL CONST[0][0]
DCL TEMP[0]
  0: MOV TEMP[0], CONST[0][0]
  1: MOV OUT[0], TEMP[0]
  2: END
";

/// What changes between consecutive draws.
#[derive(Clone, Copy)]
enum Change {
    /// Nothing: one state block serves every draw.
    None,
    /// The same blend state object rebound before every draw (redundant: nothing re-emitted).
    RebindSame,
    /// The fragment constant (the colour) alternates between two buffers.
    Constants,
    /// Two blend states alternate (opaque, additive).
    Blend,
    /// Two vertex layouts alternate: one attribute, then two (drawoverhead's intermixed
    /// glCallList test).
    Layout,
    /// Two fragment programs alternate (drawoverhead's program change).
    Program,
    /// Nothing, but each draw is indexed (16-bit indices from a buffer resource).
    Indexed,
}

impl Change {
    fn name(self) -> &'static str {
        match self {
            Change::None => "no state change",
            Change::RebindSame => "same blend state rebound",
            Change::Constants => "alternating constants",
            Change::Blend => "alternating blend states",
            Change::Layout => "alternating vertex layouts",
            Change::Program => "alternating programs",
            Change::Indexed => "indexed, no state change",
        }
    }
}

/// One small triangle per draw, 10,000 of them in a 100x100 grid of 2.56-pixel cells, in NDC.
fn triangles() -> Vec<u8> {
    let cell = 2.0 / 100.0;
    let mut v = Vec::with_capacity(DRAWS as usize * 3 * 16);
    for i in 0..DRAWS {
        let x = -1.0 + (i % 100) as f32 * cell;
        let y = -1.0 + (i / 100) as f32 * cell;
        for (dx, dy) in [(0.0, 0.0), (cell, 0.0), (0.0, cell)] {
            for f in [x + dx, y + dy, 0.0, 1.0] {
                v.extend_from_slice(&f32::to_le_bytes(f));
            }
        }
    }
    v
}

struct Bench {
    dev: Arc<dyn Device>,
    ctx: Context,
    vbuf: VertexBuffer,
    /// Every vertex at the origin: zero-area triangles the TA culls, as drawoverhead's.
    vbuf_culled: VertexBuffer,
    blend: [Arc<BlendState>; 2],
    colours: [ConstantBuffer; 2],
    /// One attribute, two attributes.
    layouts: [Arc<Vec<VertexElement>>; 2],
    fs: [Arc<ShaderState>; 2],
    /// Indices 0, 1, 2, ... of every draw's vertices.
    indices: Arc<Resource>,
}

struct Row {
    /// Buffer entries in the submitted job's list.
    job_bos: usize,
    record: Duration,
    total: Duration,
    stats: ContextStats,
}

fn delta(a: ContextStats, b: ContextStats) -> ContextStats {
    ContextStats {
        draws: b.draws - a.draws,
        draws_skipped: b.draws_skipped - a.draws_skipped,
        state_blocks_emitted: b.state_blocks_emitted - a.state_blocks_emitted,
        state_words_emitted: b.state_words_emitted - a.state_words_emitted,
        state_parts_packed: b.state_parts_packed - a.state_parts_packed,
        submissions: b.submissions - a.submissions,
        pb_splits: b.pb_splits - a.pb_splits,
        held_flushes: b.held_flushes - a.held_flushes,
        jobs_failed: b.jobs_failed - a.jobs_failed,
    }
}

impl Bench {
    fn new() -> anyhow::Result<Bench> {
        let dev: Arc<dyn Device> = Arc::new(SimDevice::new()?);
        let screen = Screen::new(dev.clone());
        let mut ctx = screen.context_create();
        let colour = screen.resource_create(&ResourceTemplate::texture_2d(
            Format::B8G8R8A8_UNORM,
            SIZE_PX,
            SIZE_PX,
            0,
            bind::RENDER_TARGET,
        ))?;
        ctx.set_framebuffer_state(&FramebufferState::colour(
            Surface::new(&colour, 0, 0),
            SIZE_PX,
            SIZE_PX,
        ))?;
        ctx.set_viewport_state(&ViewportState::rect(
            0.0,
            0.0,
            SIZE_PX as f32,
            SIZE_PX as f32,
        ))?;
        let vs = ctx.create_vs_state(VS)?;
        let fs = ctx.create_fs_state(FS)?;
        let fs_via_temp = ctx.create_fs_state(FS_VIA_TEMP)?;
        ctx.bind_vs_state(Some(&vs))?;
        ctx.bind_fs_state(Some(&fs))?;
        let velems = ctx.create_vertex_elements_state(&VertexElement::packed(&[
            VertexFormat::R32G32B32A32_FLOAT,
        ]))?;
        // The second attribute reads the position again: the program ignores it, the TA
        // fetches it.
        let mut two = VertexElement::packed(&[VertexFormat::R32G32B32A32_FLOAT]);
        two.push(two[0]);
        let velems2 = ctx.create_vertex_elements_state(&two)?;
        ctx.bind_vertex_elements_state(Some(&velems));
        let index_data: Vec<u8> = (0..3 * DRAWS)
            .flat_map(|i| {
                u16::try_from(i)
                    .expect("30,000 indices fit 16 bits")
                    .to_le_bytes()
            })
            .collect();
        let indices = screen.resource_create(&ResourceTemplate::buffer(
            u32::try_from(index_data.len())?,
            bind::INDEX_BUFFER,
        ))?;
        ctx.buffer_subdata(&indices, 0, &index_data)?;
        let data = triangles();
        let vb = screen.resource_create(&ResourceTemplate::buffer(
            u32::try_from(data.len())?,
            bind::VERTEX_BUFFER,
        ))?;
        ctx.buffer_subdata(&vb, 0, &data)?;
        let vbuf = VertexBuffer {
            stride: 16,
            buffer_offset: 0,
            buffer: BufferSource::Resource(vb),
        };
        let zeros = screen.resource_create(&ResourceTemplate::buffer(
            u32::try_from(data.len())?,
            bind::VERTEX_BUFFER,
        ))?;
        ctx.buffer_subdata(&zeros, 0, &vec![0; data.len()])?;
        let vbuf_culled = VertexBuffer {
            stride: 16,
            buffer_offset: 0,
            buffer: BufferSource::Resource(zeros),
        };
        let opaque = ctx.create_blend_state(&BlendState::default());
        let additive = ctx.create_blend_state(&BlendState {
            blend_enable: true,
            rgb_dst_factor: BlendFactor::ONE,
            alpha_dst_factor: BlendFactor::ONE,
            ..Default::default()
        });
        let colour = |c: [f32; 4]| ConstantBuffer {
            data: c.iter().map(|f| f.to_bits()).collect(),
        };
        Ok(Bench {
            dev,
            ctx,
            vbuf,
            vbuf_culled,
            blend: [opaque, additive],
            colours: [colour([0.9, 0.5, 0.1, 1.0]), colour([0.1, 0.4, 0.9, 1.0])],
            layouts: [velems, velems2],
            fs: [fs, fs_via_temp],
            indices,
        })
    }

    /// Binds the baseline state and clears.
    fn reset(&mut self, culled: bool) -> anyhow::Result<()> {
        self.ctx.bind_blend_state(Some(&self.blend[0]));
        self.ctx.bind_vertex_elements_state(Some(&self.layouts[0]));
        self.ctx.bind_fs_state(Some(&self.fs[0]))?;
        self.ctx
            .set_constant_buffer(ShaderStage::Fragment, 0, Some(self.colours[0].clone()))?;
        let vbuf = if culled {
            &self.vbuf_culled
        } else {
            &self.vbuf
        };
        self.ctx.set_vertex_buffers(0, &[Some(vbuf.clone())])?;
        self.ctx
            .clear(clear_flags::COLOR0, [0.0, 0.0, 0.0, 1.0], 1.0, 0)?;
        Ok(())
    }

    /// `draws` draws with `change` between them, then a flush and a wait for the fence.
    fn run(&mut self, change: Change, draws: u32, culled: bool) -> anyhow::Result<Row> {
        self.reset(culled)?;
        let before = self.ctx.stats();
        let t0 = Instant::now();
        for i in 0..draws {
            let k = (i % 2) as usize;
            match change {
                Change::None => {}
                Change::RebindSame => self.ctx.bind_blend_state(Some(&self.blend[0])),
                Change::Constants => self.ctx.set_constant_buffer(
                    ShaderStage::Fragment,
                    0,
                    Some(self.colours[k].clone()),
                )?,
                Change::Blend => self.ctx.bind_blend_state(Some(&self.blend[k])),
                Change::Layout => self.ctx.bind_vertex_elements_state(Some(&self.layouts[k])),
                Change::Program => self.ctx.bind_fs_state(Some(&self.fs[k]))?,
                Change::Indexed => {}
            }
            let draw = DrawInfo::arrays(PrimMode::TRIANGLES, 3 * i, 3);
            if matches!(change, Change::Indexed) {
                self.ctx.draw_vbo(&DrawInfo {
                    index_size: 2,
                    index: Some(BufferSource::Resource(self.indices.clone())),
                    ..draw
                })?;
            } else {
                self.ctx.draw_vbo(&draw)?;
            }
        }
        let record = t0.elapsed();
        let fence = self.ctx.flush()?.context("the run submitted nothing")?;
        fence.wait(sgx_pipe::DEFAULT_TIMEOUT)?;
        let total = t0.elapsed();
        let trace = self.dev.trace();
        let job = trace.entries.iter().find(|e| e.fence == Some(fence.id()));
        Ok(Row {
            job_bos: job.map_or(0, |e| e.bos.len()),
            record,
            total,
            stats: delta(before, self.ctx.stats()),
        })
    }
}

/// One row per kind of change between draws.
fn table(b: &mut Bench, culled: bool) -> anyhow::Result<()> {
    outln!(
        "{:<26} {:>10} {:>12} {:>10} {:>12} {:>12} {:>8} {:>6} {:>8}",
        "between draws",
        "record ms",
        "record d/s",
        "total ms",
        "draws/s",
        "state blks",
        "words",
        "subms",
        "job BOs"
    );
    for change in [
        Change::None,
        Change::RebindSame,
        Change::Constants,
        Change::Blend,
        Change::Layout,
        Change::Program,
        Change::Indexed,
    ] {
        // Best of three: the machine is shared, and the fastest run is the least disturbed.
        let mut r = b.run(change, DRAWS, culled)?;
        for _ in 1..RUNS {
            let again = b.run(change, DRAWS, culled)?;
            if again.total < r.total {
                r = again;
            }
        }
        let per_s = |d: Duration| f64::from(DRAWS) / d.as_secs_f64();
        outln!(
            "{:<26} {:>10.1} {:>12.0} {:>10.1} {:>12.0} {:>12} {:>8} {:>6} {:>8}",
            change.name(),
            r.record.as_secs_f64() * 1e3,
            per_s(r.record),
            r.total.as_secs_f64() * 1e3,
            per_s(r.total),
            r.stats.state_blocks_emitted,
            r.stats.state_words_emitted,
            r.stats.submissions,
            r.job_bos
        );
        if r.stats.draws != u64::from(DRAWS) {
            anyhow::bail!("{} of {DRAWS} draws drew", r.stats.draws);
        }
    }
    Ok(())
}

pub fn run() -> anyhow::Result<()> {
    let mut b = Bench::new()?;
    // Warm up: compile, link and upload the program, so no run pays for it.
    b.run(Change::None, 1, false)?;
    b.dev.wait_idle(sgx_pipe::DEFAULT_TIMEOUT)?;
    for culled in [false, true] {
        if culled {
            outln!("the same draws with every vertex at the origin (zero-area triangles the TA culls, as piglit's drawoverhead draws): the CPU cost per draw without pixels");
        } else {
            outln!("{DRAWS} draws of one small triangle each into {SIZE_PX}x{SIZE_PX} B8G8R8A8_UNORM (device model), flush and wait at the end; best of {RUNS} runs");
        }
        table(&mut b, culled)?;
    }
    Ok(())
}
