//! Vertex texture fetch: a vertex program's unit u reads texture table entry
//! ProgramState.vs_tex_base + u (the pixel program's unit u reads entry u); a unit past the
//! table is an illegal program, not a read of whatever follows the table.

use sgx_hwdocs::ta_stream::Topology;
use sgx_hwdocs::texture::Filter;
use sgx_hwdocs::usse::Opcode;

use super::*;

/// BGRA bytes of the one texel of each table entry.
const TEXELS: [[u8; 4]; 3] = [
    [0x10, 0x20, 0x30, 0xff],
    [0xc0, 0x80, 0x40, 0xff],
    [1, 2, 3, 4],
];

/// An 8x4 target covered by one quad whose vertex program samples its unit 0 with TEXL (LOD 0)
/// into varying 0, which the pixel program writes: the framebuffer bytes, on both paths.
fn run(vs_tex_base: u32, reference: bool) -> (JobStatus, Vec<u8>) {
    let mut s = Scene::new();
    let fb = Mem::filled(128, 0x5a);
    let va = s.alloc_with(fb.clone(), Perm::RW);
    let rd = RenderDesc::linear(va, 8, 4, 32);
    let textures = TEXELS
        .iter()
        .map(|t| {
            let m = Mem::new(4);
            m.write(0, t);
            TexState {
                base_addr: s.alloc_with(m, Perm::RO),
                ..plain(1, 1, Filter::NEAREST)
            }
        })
        .collect();
    let c = [0.5, 0.5, 0.0, 0.0];
    let p = |x: f32, y: f32| (clip_xy(x, y, 8.0, 4.0, 0.5), c);
    let verts = [
        p(0.0, 0.0),
        p(8.0, 0.0),
        p(0.0, 4.0),
        p(8.0, 0.0),
        p(8.0, 4.0),
        p(0.0, 4.0),
    ];
    let fs = words(&[emitpix(pa(0)), end()]);
    let mut d = DrawDesc::new(Topology::TRIANGLES, &verts, fs, viewport(8.0, 4.0));
    d.vs = words(&[
        mov(dout(0), pa(0)),
        tex_full(Opcode::TEXL, dr(0), pa(1), 0, 0),
        mov(dout(1), r(0)),
        emitvtx(),
        end(),
    ]);
    d.textures = textures;
    d.vs_tex_base = vs_tex_base;
    let job = build(&mut s, &rd, &[d]);
    s.gpu.set_reference_paths(reference);
    let res = s.gpu.run(&job);
    (res.status, fb.bytes())
}

#[test]
fn a_vertex_program_samples_the_table_from_vs_tex_base() {
    for base in [0, 1, 2] {
        for reference in [false, true] {
            let (status, fb) = run(base, reference);
            assert_eq!(status, JobStatus::Done, "base {base}");
            let want: Vec<u8> = TEXELS[base as usize].repeat(32);
            assert_eq!(fb, want, "base {base}, reference paths {reference}");
        }
    }
}

#[test]
fn a_vertex_unit_past_the_table_is_an_illegal_program() {
    let (status, fb) = run(3, false);
    assert!(
        matches!(status, JobStatus::IllegalInstruction { pc: 1, .. }),
        "{status:?}"
    );
    assert_eq!(fb, vec![0x5a; 128], "nothing drawn");
}
