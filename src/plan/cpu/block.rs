//! The micro kernel's register blocks (`plan::Block`): the kinds there are and what is
//! read off one.

use crate::plan::tuning::*;
use crate::plan::{Block, Strip};

impl Block {
    /// Whether the block's row blocks may go in bands (`Plan::micro_band`): a flat strip's,
    /// a lane-major run's and column runs' blocks run over the images in order, with no
    /// rows far apart (a strip's rows are one span).
    pub(crate) fn may_band(&self) -> bool {
        !(self.flat || self.lane_major || self.column_runs)
    }

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
