//! Faults through both paths: a texture and a render target mapped short of what the draw
//! reads or writes end the job with the same fault, events and counters.

use sgx_hwdocs::pbe::{MemLayout, PbeState};
use sgx_hwdocs::ta_stream::Topology;
use sgx_hwdocs::texture::{Filter, TexState};
use sgx_hwdocs::usse::Opcode;

use super::{check, target, textured, window_rect, TEX_FS};
use crate::kit::*;
use crate::{JobStatus, Perm};

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
}
