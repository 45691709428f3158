//! Revisited DrawState blocks: the fast path decodes each of the last few blocks a job's
//! STATE objects point at once (`ta::Decoded`), the reference one at every STATE object. A
//! stream that goes back and forth between more blocks than are kept (so some are decoded
//! again after being dropped), each block with its own program constants, attribute layout,
//! topology and cull mode, must draw the same bytes both ways.

use sgx_hwdocs::isp::CullMode;
use sgx_hwdocs::render::AttrType;
use sgx_hwdocs::ta_stream::Topology;

use super::{all_done, check, target};
use crate::kit::*;

const W: f32 = 29.0;
const H: f32 = 23.0;

/// o0 = pa0, o1 = pa1 * c0 + c1: each block's constants give its primitives their colour.
fn vs() -> Vec<u32> {
    use sgx_hwdocs::usse::Opcode::*;
    words(&[
        mov(dout(0), pa(0)),
        alu(FMUL, dr(0), pa(1), sa(0)),
        alu(FADD, dout(1), r(0), sa(1)),
        emitvtx(),
        end(),
    ])
}

fn fs() -> Vec<u32> {
    words(&[emitpix(pa(0)), end()])
}

/// Draw `k` of a scene: its own colour constants; odd ones read a third attribute (another
/// layout); every third culls back faces.
fn block(rng: &mut Rng, k: usize) -> DrawDesc {
    let topology = [
        Topology::TRIANGLES,
        Topology::TRIANGLE_STRIP,
        Topology::TRIANGLE_FAN,
    ][k % 3];
    let v: Vec<([f32; 4], [f32; 4])> = (0..6)
        .map(|_| {
            let p = clip_xy(
                rng.f(-4.0, W + 4.0),
                rng.f(-4.0, H + 4.0),
                W,
                H,
                rng.f(0.0, 1.0),
            );
            (p, [rng.f(0.0, 1.0), rng.f(0.0, 1.0), rng.f(0.0, 1.0), 1.0])
        })
        .collect();
    let mut d = DrawDesc::new(topology, &v, fs(), viewport(W, H));
    d.vs = vs();
    let c = k as f32 / 10.0;
    d.vs_consts = vec![fv([c, 1.0 - c, 0.5, 1.0]), fv([0.1 * c, 0.0, c, 0.0])];
    if k % 2 == 1 {
        let extra = d.attrs[0].clone();
        d.attrs.push(extra);
    }
    if k.is_multiple_of(3) {
        d.isp.cull = CullMode::BACK;
    }
    assert_eq!(d.attrs[0].0, AttrType::FLOAT32);
    d
}

#[test]
fn revisited_state_blocks_draw_as_decoded_afresh() {
    let r = check("revisited state blocks", |s| {
        let (rd, fb) = target(s, W as u32, H as u32);
        let mut rng = Rng(0x5eed_0b10);
        let draws: Vec<DrawDesc> = (0..10).map(|k| block(&mut rng, k)).collect();
        // Back and forth between two, then all ten (more than the fast path keeps), then
        // blocks dropped since and ones still kept.
        let mut order = vec![0, 1, 0, 1, 1, 0];
        order.extend(0..10);
        order.extend([0, 9, 3, 3, 8, 1, 0, 2, 9]);
        (vec![build_ordered(s, &rd, &draws, &order)], vec![fb])
    });
    all_done("revisited state blocks", &r);
    assert!(r[0].counters.prims_binned > 0);
}
