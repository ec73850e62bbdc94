//! The shapes the GPU path's kernels work in: the tiled kernel's tile, and the strip of a
//! short dim (the tiled kernel's strips, and the micro kernel's, `cpu::Block`).

/// Geometry of the tiled kernel for one movement size.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Tile {
    /// Tile width in 32-bit words (or vector units): threads along x.
    pub words: u32,
    /// Threads along y; each walks the tile's rows with this stride.
    pub rows: u32,
    /// Elements per storage word: 4 for 8-bit, 2 for 16-bit ("half2"), else 1.
    pub pack: u32,
}

impl Tile {
    /// Tile geometry per movement size. A tile covers `words * pack` rows and columns of
    /// elements: 32x32 for 4/8-byte units, 64x64 for 16-bit pairs (as in OneFlow's half2
    /// kernel), 64x64 for 8-bit quads and 16x16 for 16-byte units (whose padded tile would
    /// otherwise exceed the 16 KiB default workgroup memory).
    pub fn for_unit(unit: u32) -> Tile {
        match unit {
            1 => Tile {
                words: 16,
                rows: 16,
                pack: 4,
            },
            2 => Tile {
                words: 32,
                rows: 8,
                pack: 2,
            },
            16 => Tile {
                words: 16,
                rows: 16,
                pack: 1,
            },
            _ => Tile {
                words: 32,
                rows: 8,
                pack: 1,
            },
        }
    }

    /// Elements along each side of the tile.
    pub fn extent(&self) -> u64 {
        (self.words * self.pack) as u64
    }

    /// Storage units of workgroup memory the tile needs: `pack` planes of `words` rows,
    /// each padded by one unit so that reading a column hits different banks.
    pub fn storage_units(&self) -> u64 {
        (self.pack * self.words * (self.words + 1)) as u64
    }

    /// Workgroup memory the tile needs, in bytes (see [`Tile::storage_units`]).
    pub fn storage_bytes(&self, unit: u32) -> u64 {
        self.storage_units() * unit.max(4) as u64
    }
}

/// A wide block whose one side is a whole dim of `n` elements (`2..=``STRIP_MAX`, not a
/// multiple of the block's side), contiguous on one side of the move: `side x n` elements,
/// `n` 16-byte accesses each way. One of its sides is then a single contiguous span of `n`
/// accesses, whose elements the kernel picks apart at compile-time positions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Strip {
    /// `side` input rows of all `n` columns, which lie back to back in the source: read as
    /// one span, written as `n` output rows of one access each.
    Cols(u32),
    /// All `n` rows by `side` columns, whose output rows lie back to back in the
    /// destination: read as `n` input rows of one access each, written as one span.
    Rows(u32),
}

impl Strip {
    /// Whether the strip's short dim (taken whole) is the block index `at` names: then its
    /// channels sit at fixed positions (`Plan::channels_by_position`).
    pub fn carries(self, at: super::ChannelAt) -> bool {
        use super::ChannelAt;
        matches!(
            (self, at),
            (Strip::Cols(_), ChannelAt::Cols) | (Strip::Rows(_), ChannelAt::Rows)
        )
    }
}
