//! Faults through both paths: a texture and a render target mapped short of what the draw
//! reads or writes end the job with the same fault, events and counters.

use sgx_hwdocs::pbe::{MemLayout, PbeState};
use sgx_hwdocs::ta_stream::Topology;
use sgx_hwdocs::texture::{Filter, TexState};
use sgx_hwdocs::usse::Opcode;

use super::{all_done, check, target, textured, window_rect, TEX_FS};
use crate::kit::*;
use crate::{JobDesc, JobStatus, Perm};

#[test]
fn faults_agree() {
    // A texture whose level runs past its mapping: the fast path has no host pointer and
    // must fault at the same address as the reference.
    let r = check("texture fault", |s| {
        let (rd, fb) = target(s, 20, 20);
        let st = TexState {
            layout: MemLayout::LINEAR,
            width_m1: 63,
            height_m1: 63,
            min_filter: Filter::LINEAR,
            mag_filter: Filter::LINEAR,
            base_addr: s.put_bytes(&[7; 3 * 4096]),
            ..TexState::default()
        };
        let d = textured(
            Topology::TRIANGLES,
            &window_rect(20.0, 20.0),
            TEX_FS(Opcode::TEX),
            (20.0, 20.0),
            st,
        );
        (vec![build(s, &rd, &[d])], vec![fb])
    });
    assert!(
        matches!(r[0].status, JobStatus::Fault(_)),
        "{:?}",
        r[0].status
    );
    // A twiddled target larger than its buffer: bytes before the fault land alike.
    let r = check("target fault", |s| {
        // 64x64 BGRA8 is 16 KiB; the buffer maps two pages.
        let m = Mem::filled(5000, 0x11);
        let va = s.alloc_with(m.clone(), Perm::RW);
        let pbe = PbeState {
            base_addr: va,
            layout: MemLayout::TWIDDLED,
            log2_w: 6,
            log2_h: 6,
            extent_w_tl: 4,
            extent_h_tl: 4,
            clip_xmax: 63,
            clip_ymax: 63,
            ..PbeState::default()
        };
        let rd = RenderDesc {
            pbe,
            ..RenderDesc::linear(0, 64, 64, 256)
        };
        let d = DrawDesc::new(
            Topology::TRIANGLES,
            &window_rect(64.0, 64.0),
            words(&[emitpix(pa(0)), end()]),
            viewport(64.0, 64.0),
        );
        (vec![build(s, &rd, &[d])], vec![m])
    });
    assert!(
        matches!(r[0].status, JobStatus::Fault(_)),
        "{:?}",
        r[0].status
    );
    // A linear target whose rows run past its buffer, row 36 across the end of its two
    // pages: the tiles above store straight into memory, the third row of tiles row by row
    // through the MMU until the fault; bytes before it land alike.
    let r = check("linear target fault", |s| {
        let m = Mem::filled(5000, 0x22);
        let va = s.alloc_with(m.clone(), Perm::RW);
        let rd = RenderDesc::linear(va, 48, 48, 224);
        let d = DrawDesc::new(
            Topology::TRIANGLES,
            &window_rect(48.0, 48.0),
            words(&[emitpix(pa(0)), end()]),
            viewport(48.0, 48.0),
        );
        (vec![build(s, &rd, &[d])], vec![m])
    });
    assert!(
        matches!(r[0].status, JobStatus::Fault(_)),
        "{:?}",
        r[0].status
    );
}

/// The control stream read a window at a time (`ta/stream.rs`) against object by object: a
/// stream of 200 draws copied to cross a page boundary (objects straddling it), whole, and
/// cut 8 bytes into its last PRIM so that it runs into the unmapped page after its buffer:
/// the same renders, and the same fault at the same address.
#[test]
fn a_control_stream_across_pages_and_past_its_buffer_agrees() {
    for cut in [false, true] {
        let name = format!("control stream, cut {cut}");
        let r = check(&name, |s| {
            let (rd, fb) = target(s, 20, 20);
            let mut rng = Rng(0x5eed_0005);
            let draws: Vec<DrawDesc> = (0..5)
                .map(|_| {
                    let v: Vec<_> = (0..3)
                        .map(|_| {
                            let p = clip_xy(rng.f(0.0, 20.0), rng.f(0.0, 20.0), 20.0, 20.0, 0.5);
                            (p, [rng.f(0.0, 1.0), rng.f(0.0, 1.0), 0.5, 1.0])
                        })
                        .collect();
                    DrawDesc::new(
                        Topology::TRIANGLES,
                        &v,
                        words(&[emitpix(pa(0)), end()]),
                        viewport(20.0, 20.0),
                    )
                })
                .collect();
            let order: Vec<usize> = (0..200).map(|k| k * 7 % 5).collect();
            let mut job = build_ordered(s, &rd, &draws, &order);
            let JobDesc::Render { ta_regs, .. } = &mut job else {
                unreachable!("build makes a render");
            };
            let base = ta_regs
                .iter_mut()
                .find(|(reg, _)| *reg == sgx_hwdocs::regs::VDM_CTRL_STREAM_BASE)
                .expect("the stream's register");
            // Each draw is a STATE (8 bytes) and a PRIM (16), then a TERMINATE (4).
            let len_B = 24 * order.len() + 4;
            let mut stream = vec![0u8; len_B];
            s.gpu
                .mmu
                .read(crate::Unit::Vdm, base.1, &mut stream)
                .expect("the stream is mapped");
            if cut {
                stream.truncate(len_B - 4 - 8);
            }
            let m = Mem::new(2 * 4096);
            m.write(2 * 4096 - stream.len(), &stream);
            base.1 = s.alloc_with(m, Perm::RW) + (2 * 4096 - stream.len()) as u32;
            (vec![job], vec![fb])
        });
        if cut {
            assert!(
                matches!(r[0].status, JobStatus::Fault(_)),
                "{:?}",
                r[0].status
            );
        } else {
            all_done(&name, &r);
        }
    }
}
