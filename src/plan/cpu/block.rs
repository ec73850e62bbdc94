//! The micro kernel's register block ([`Block`]): its geometry and what is read off it.

use crate::plan::Strip;
use crate::plan::tuning::*;

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
    /// block: along its columns): 1 or one of [`MICRO_RUNS`](super::tuning::MICRO_RUNS).
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
    /// the source: [`flat_pairs`](super::flat_pairs)). A block that ends one image and
    /// starts the next reads element by element.
    pub flat_pairs: bool,
    /// The run's blocks are [`LANE_GROUP`](super::tuning::LANE_GROUP) apart
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

impl Block {
    /// The wide block of a movement size: 16 bytes a side, 2x2 for 16-byte units.
    pub fn wide(unit: u32) -> Option<Block> {
        (unit <= 16).then_some(Block {
            side: (WIDE_ACCESS_BYTES / unit).max(2),
            access_bytes: WIDE_ACCESS_BYTES,
            run: 1,
            strip: None,
            flat: false,
            flat_pairs: false,
            lane_major: false,
            column_runs: false,
            batch_before_columns: false,
        })
    }

    /// The wide block of a movement size as a strip.
    pub fn wide_strip(unit: u32, strip: Strip) -> Option<Block> {
        Block::wide(unit).map(|b| Block {
            strip: Some(strip),
            ..b
        })
    }

    /// The wide strip of a movement size as a flat strip: its span side (the input's for
    /// [`Strip::Cols`], the output's for [`Strip::Rows`]) in 16-byte accesses, flat over the
    /// batch; the other side one element per access (4-byte elements written, or elements
    /// of up to 4 bytes read from their words).
    pub fn flat_strip(unit: u32, strip: Strip) -> Option<Block> {
        Block::wide_strip(unit, strip).map(|b| Block { flat: true, ..b })
    }

    /// The narrow block of a movement size, if it has one (units up to 4 bytes).
    pub fn narrow(unit: u32) -> Option<Block> {
        (unit <= 4).then_some(Block {
            side: MICRO_SIDE,
            access_bytes: 4,
            run: 1,
            strip: None,
            flat: false,
            flat_pairs: false,
            lane_major: false,
            column_runs: false,
            batch_before_columns: false,
        })
    }

    /// Elements per access.
    pub fn per_access(&self, unit: u32) -> u32 {
        (self.access_bytes / unit).max(1)
    }

    /// Whether the input side moves element by element: a flat strip's planes, read.
    pub fn elements_in(&self) -> bool {
        self.flat && matches!(self.strip, Some(Strip::Rows(_)))
    }

    /// Whether the output side moves element by element: a flat strip's planes, written.
    pub fn elements_out(&self) -> bool {
        self.flat && matches!(self.strip, Some(Strip::Cols(_)))
    }

    /// Elements per input access: one where the input moves element by element.
    pub fn per_in(&self, unit: u32) -> u32 {
        match self.elements_in() {
            true => 1,
            false => self.per_access(unit),
        }
    }

    /// Elements per output access: one where the output moves element by element.
    pub fn per_out(&self, unit: u32) -> u32 {
        match self.elements_out() {
            true => 1,
            false => self.per_access(unit),
        }
    }

    /// Elements along the rows (the dim that becomes the output's innermost).
    pub fn rows(&self) -> u32 {
        match self.strip {
            Some(Strip::Rows(n)) => n,
            _ => self.side,
        }
    }

    /// Elements along the columns (the input's innermost dim).
    pub fn cols(&self) -> u32 {
        match self.strip {
            Some(Strip::Cols(n)) => n,
            _ => self.side,
        }
    }

    /// Elements per block.
    pub fn elements(&self) -> u64 {
        (self.rows() * self.cols()) as u64
    }

    /// The same block, `run` of them per invocation.
    pub fn with_run(self, run: u32) -> Block {
        Block { run, ..self }
    }

    /// The run of this square block's column runs over `c` columns: the first of
    /// [`MICRO_RUNS`](super::tuning::MICRO_RUNS) that divides its column blocks, if any
    /// (none for strips).
    pub fn column_run(&self, c: u64) -> Option<u32> {
        let blocks = c / self.cols() as u64;
        (self.strip.is_none() && !self.flat)
            .then(|| {
                super::tuning::MICRO_RUNS
                    .into_iter()
                    .find(|&run| blocks.is_multiple_of(run as u64))
            })
            .flatten()
    }

    /// The same block, `run` of them per invocation along its columns.
    pub fn column_runs(self, run: u32) -> Block {
        Block {
            run,
            column_runs: true,
            ..self
        }
    }

    /// The same column runs, the batch's innermost dim decoded before them.
    pub fn batch_before_columns(self) -> Block {
        Block {
            batch_before_columns: true,
            ..self
        }
    }

    /// The same block, `run` of them per invocation, lane-major.
    pub fn lane_major(self, run: u32) -> Block {
        Block {
            run,
            lane_major: true,
            ..self
        }
    }
}
