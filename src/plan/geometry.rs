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

/// Geometry of the micro kernel's register block for one plan: `side x side` elements (a
/// strip: `side` by a whole short dim),
/// each block row moved as accesses of `access_bytes`. Wide blocks are as many elements as
/// fill 16 bytes (16 of 8 bits, 8 of 16, 4 of 32, 2 of 64), every row one `vec4<u32>`, or
/// 2x2 of 16 bytes (every row two): on a CPU adapter each access costs a loop over the
/// SIMD lanes whatever its width, so wide accesses move four times the bytes per loop. Narrow blocks (4x4, 32-bit accesses) take
/// the 1, 2 and 4-byte layouts that wide ones cannot: sides not divisible by the wide side,
/// or offsets and strides not in whole 16 bytes. Strips are wide blocks one of whose sides
/// is a whole short dim ([`Strip`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Block {
    /// Elements along each side (the side that is not a strip's whole dim).
    pub side: u32,
    /// Bytes of one global-memory access: 16 (wide) or 4 (narrow).
    pub access_bytes: u32,
    /// Blocks each invocation moves, neighbours along the output's rows (a [`Strip::Rows`]
    /// block: along its columns): 1 or one of [`MICRO_RUNS`](crate::plan::tuning::MICRO_RUNS).
    pub run: u32,
    /// One side is a whole dim too short, or of an extent not divisible by the side, for
    /// square blocks (`[H*W, 3] -> [3, H*W]`, an RGB image to planes).
    pub strip: Option<Strip>,
    /// A flat strip: the strip's span side runs on across the batch, one sequence of blocks
    /// over every batch and pixel (a block may end one image and start the next), and the
    /// other side moves element by element, so that no side, stride or offset there need
    /// be whole accesses (`[32, 299*299, 3]`). See [`Block::flat_strip`].
    pub flat: bool,
    /// A flat strip reads its planes' 4-byte elements two at a time, as `u64`s: a SIMD
    /// group pays per access, and a plane's block of words, at any word offset, lies in
    /// `side / 2 + 1` of them (CPU devices with 64-bit accesses, where every pair lies in
    /// the source: [`flat_pairs`](crate::plan::flat_pairs)). A block that ends one image and
    /// starts the next reads element by element.
    pub flat_pairs: bool,
    /// The run's blocks are [`LANE_GROUP`](crate::plan::tuning::LANE_GROUP) apart
    /// along the run instead of neighbours: at each step of the run a SIMD group's
    /// neighbouring invocations move neighbouring blocks, so that its accesses are one span
    /// on each side, and its steps move on through neighbouring blocks (aligned strips on
    /// CPU devices; `select::micro_block`).
    pub lane_major: bool,
    /// The run's blocks are neighbours along the columns (the input's rows), and
    /// neighbouring invocations take neighbouring row blocks: each invocation reads a
    /// stretch of each of its input rows (a whole 64-byte line in runs of 4 where the rows
    /// start on lines) and a SIMD group writes one stretch of each of its output rows,
    /// where a band's rows would be too far apart to stay cached until it comes back to
    /// them, the output's rows are shorter than a run and apart, or the output's rows lie
    /// far apart and the input's close (square blocks on CPU devices;
    /// `column_runs::choose`).
    pub column_runs: bool,
    /// Column runs whose neighbouring invocations go along the row blocks, then along the
    /// batch's innermost dim, then along the column runs: where that dim continues the
    /// output's short rows ([`Plan::row_continuation`](crate::plan::Plan::row_continuation)),
    /// so that a SIMD group finishes the stretch of each output row it starts before it
    /// moves on to the next rows (4-byte units; `Plan::batch_first`).
    pub batch_before_columns: bool,
}
