//! A shaded tile on its way from the thread that shaded it to the thread that stores it
//! ([`tiles`](super::tiles)), in the form the store reads: the colours already encoded in the
//! target's format when the fast encoder takes it (a quarter of the float colours for a
//! 4-byte format), depth and stencil only when the tile stores them. The shading thread
//! keeps its own tile, hot in its cache from tile to tile; only this form crosses between
//! cores. (Shading straight into tile buffers the storing thread then read made every tile's
//! 5 KiB change cores twice: the fill of a tile's buffers, the encoding and the copies took
//! 2.4 times their one-thread CPU time on two threads, and the quad on two threads ran at
//! 95-105 Mpix/s in the fastest half of eight rounds, against 109-118 with this form.)

use super::{Tile, TILE_PX2};
use crate::pbe::ENCODED_TILE_B;

/// A shaded tile's colours as the PBE stores them (`Job3d::colour`).
pub(super) enum Colour<'t> {
    /// Every pixel is the background (`Tile::bg_only`).
    Bg,
    /// Encoded in the target's format (`Target::encode`).
    Encoded(&'t [u8; ENCODED_TILE_B]),
    /// Floats, for the reference encoder.
    Floats(&'t [[f32; 4]; TILE_PX2]),
}

/// Which colours a handed-over tile stores.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Stored {
    Bg,
    Encoded,
    Floats,
}

impl Stored {
    pub(super) fn of(c: &Colour) -> Stored {
        match c {
            Colour::Bg => Stored::Bg,
            Colour::Encoded(_) => Stored::Encoded,
            Colour::Floats(_) => Stored::Floats,
        }
    }
}

/// Depth and stencil of a tile, as the ZLS stores them.
pub(super) type DepthStencil<'t> = (&'t [f32; TILE_PX2], &'t [u8; TILE_PX2]);

/// A shaded tile as its store takes it (buffers kept from tile to tile).
pub(super) struct Handover {
    colour: Option<Stored>,
    bytes: Box<[u8; ENCODED_TILE_B]>,
    /// Float colours (no fast encoder), and depth and stencil (a depth store): made when
    /// first needed, so that a ring of handovers for 4-byte targets without depth holds
    /// 1 KiB a tile, not 6.
    tile: Option<Box<Tile>>,
    depth: bool,
}

impl Handover {
    pub(super) fn new() -> Handover {
        Handover {
            colour: None,
            bytes: Box::new([0; ENCODED_TILE_B]),
            tile: None,
            depth: false,
        }
    }

    /// Where `Job3d::colour` encodes the tile's colours.
    pub(super) fn bytes_mut(&mut self) -> &mut [u8; ENCODED_TILE_B] {
        &mut self.bytes
    }

    /// Takes what the store of `tile` reads: its colours as `colour` says (encoded already
    /// into `bytes_mut`; None: not stored), its depth and stencil when `depth`.
    pub(super) fn fill(&mut self, tile: &Tile, colour: Option<Stored>, depth: bool) {
        self.colour = colour;
        if colour == Some(Stored::Floats) {
            self.tile.get_or_insert_with(Tile::boxed).colour = tile.colour;
        }
        self.depth = depth;
        if depth {
            let t = self.tile.get_or_insert_with(Tile::boxed);
            t.depth = tile.depth;
            t.stencil = tile.stencil;
        }
    }

    /// What `fill` took, for `Job3d::store_parts`.
    pub(super) fn parts(&self) -> (Option<Colour<'_>>, Option<DepthStencil<'_>>) {
        let spare = || {
            let t = self.tile.as_deref();
            t.expect("the spare tile is made by the fill that needs it (invariant)")
        };
        let colour = self.colour.map(|c| match c {
            Stored::Bg => Colour::Bg,
            Stored::Encoded => Colour::Encoded(&self.bytes),
            Stored::Floats => Colour::Floats(&spare().colour),
        });
        let depth = self.depth.then(|| (&spare().depth, &spare().stencil));
        (colour, depth)
    }
}
