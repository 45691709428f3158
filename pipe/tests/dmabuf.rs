//! Sharing textures between screens as dma-bufs (sim backend: memfds): what one screen wrote,
//! GPU and CPU, another screen reads after importing; bad handles are errors.

mod common;

use std::os::fd::AsFd;
use std::sync::Arc;
use std::time::Duration;

use common::*;
use sgx_pipe::*;
use sgx_winsys::{Device, SimDevice, WinsysError};

const LONG: Duration = Duration::from_secs(60);

fn other_screen() -> Screen {
    let dev: Arc<dyn Device> = Arc::new(SimDevice::new().unwrap());
    Screen::with_shader_cache(dev, ShaderCache::in_memory())
}

/// A 16x8 render target cleared red by the GPU, then its right half written by the CPU.
fn painted(r: &mut Rig) -> Arc<Resource> {
    let tex = target(r, Format::B8G8R8A8_UNORM, 16, 8);
    r.ctx.set_framebuffer_state(&fb(&tex, None)).unwrap();
    r.ctx
        .clear(clear_flags::COLOR0, [1.0, 0.0, 0.0, 1.0], 1.0, 0)
        .unwrap();
    let data: Vec<u8> = (0..8 * 8 * 4).map(|i| (i * 7 % 251) as u8).collect();
    r.ctx
        .texture_subdata(&tex, 0, 0, PipeBox::new(8, 0, 8, 8), &data, 8 * 4, 0)
        .unwrap();
    let fence = r.ctx.flush().unwrap().expect("the clear was submitted");
    assert!(r.screen.fence_finish(&fence, LONG).unwrap());
    tex
}

#[test]
fn a_texture_exported_from_one_screen_shows_the_same_pixels_in_another() {
    let mut a = rig();
    let tex = painted(&mut a);
    let want = a.ctx.read_level(&tex, 0, 0).unwrap();
    // The clear reached the bytes: red in the left half, the gradient on the right.
    assert_eq!(&want[..4], &[0, 0, 255, 255]);
    assert_eq!(&want[8 * 4..8 * 4 + 2], &[0, 7]);
    let (fd, info) = a.screen.resource_get_handle(&tex).unwrap();
    assert_eq!(info.offset_B, 0);
    assert_eq!(info.size_B, tex.layout().unwrap().size_B);
    let b = other_screen();
    let imported = b
        .resource_from_handle(tex.template(), fd.as_fd(), Some(&info))
        .unwrap();
    drop(fd);
    let mut bctx = b.context_create();
    assert_eq!(bctx.read_level(&imported, 0, 0).unwrap(), want);
    // And back: a GPU clear on the importing screen shows on the exporting one.
    bctx.set_framebuffer_state(&fb(&imported, None)).unwrap();
    bctx.clear(clear_flags::COLOR0, [0.0, 1.0, 0.0, 1.0], 1.0, 0)
        .unwrap();
    let f = bctx.flush().unwrap().unwrap();
    assert!(b.fence_finish(&f, LONG).unwrap());
    let now = a.ctx.read_level(&tex, 0, 0).unwrap();
    assert!(now.chunks(4).all(|p| p == [0, 255, 0, 255]));
}

#[test]
fn buffers_round_trip_too() {
    let mut a = rig();
    let buf = a
        .screen
        .resource_create(&ResourceTemplate::buffer(100, bind::VERTEX_BUFFER))
        .unwrap();
    let bytes: Vec<u8> = (0..100).collect();
    a.ctx.buffer_subdata(&buf, 0, &bytes).unwrap();
    let (fd, info) = a.screen.resource_get_handle(&buf).unwrap();
    assert_eq!((info.stride_B, info.size_B, info.tiling), (100, 100, None));
    let b = other_screen();
    let imported = b
        .resource_from_handle(buf.template(), fd.as_fd(), Some(&info))
        .unwrap();
    assert_eq!(imported.bo().read_all(LONG).unwrap()[..100], bytes[..]);
}

#[test]
fn bad_handles_are_errors() {
    let mut a = rig();
    let tex = painted(&mut a);
    let (fd, info) = a.screen.resource_get_handle(&tex).unwrap();
    let b = other_screen();
    // A layout larger than the file (a 64x64 texture needs more than the 16x8 one's pages).
    let big = ResourceTemplate::texture_2d(
        Format::B8G8R8A8_UNORM,
        64,
        64,
        0,
        bind::RENDER_TARGET | bind::SAMPLER_VIEW,
    );
    assert!(matches!(
        b.resource_from_handle(&big, fd.as_fd(), None),
        Err(PipeError::Winsys(WinsysError::InvalidArgument(_)))
    ));
    // An exporter's layout this template does not produce (16x8 is twiddled: no rows).
    assert_eq!((info.stride_B, info.size_B), (0, 512));
    let other_stride = HandleLayout {
        stride_B: 64,
        ..info
    };
    assert!(matches!(
        b.resource_from_handle(tex.template(), fd.as_fd(), Some(&other_stride)),
        Err(PipeError::InvalidArgument(_))
    ));
    // Not a buffer at all.
    let (r, _w) = std::io::pipe().unwrap();
    assert!(matches!(
        b.resource_from_handle(tex.template(), r.as_fd(), None),
        Err(PipeError::Winsys(WinsysError::Os { .. }))
    ));
    // A bad template is refused before the fd is touched.
    let empty = ResourceTemplate::texture_2d(Format::B8G8R8A8_UNORM, 0, 8, 0, 0);
    assert!(matches!(
        b.resource_from_handle(&empty, fd.as_fd(), None),
        Err(PipeError::InvalidArgument(_))
    ));
    // A resource of another screen's device cannot be exported by this one.
    assert!(matches!(
        b.resource_get_handle(&tex),
        Err(PipeError::Winsys(WinsysError::ForeignObject(_)))
    ));
}
