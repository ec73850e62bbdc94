//! The permutes that run the micro kernel's strip and column-run variants
//! (tests/variants.rs), and the blocks a case needs for a run.

use wgpu_permute::plan::tuning::{
    MICRO_LANE_MAJOR_MIN_WORKGROUPS, MICRO_LANE_MAJOR_RUN, MICRO_RUNS, MICRO_WORKGROUP, PAGE_BYTES,
};
use wgpu_permute::plan::{Block, MAX_RANK, Strip, Variant};

/// The permute that runs a strip variant: `(B.., R, C) -> (B.. reversed, C, R)` (batch dims
/// of 2 that cannot merge), the short side whole and the other in whole blocks (a multiple
/// of the run's blocks, or not, as the variant's run asks). `None` where the variant is not
/// run here, each a compile: every short extent at rank 3 (one batch dim; lane-major runs
/// and specialised ones, the same code for every extent, extent 3 alone), extent 3 with
/// 64-bit accesses of 4 to 16-byte units and at ranks 2 and `MAX_RANK`; tests/shaders.rs
/// validates them all. The
/// batch decode is the square blocks', the accesses' types those of any extent.
pub fn strip_case(variant: Variant) -> Option<(Vec<usize>, Vec<usize>)> {
    let block = variant.block()?;
    let (strip, rank) = (block.strip?, variant.rank());
    let (Strip::Cols(n) | Strip::Rows(n)) = strip;
    // Packed units on 64-bit components build their stores by halves or pairs of 4x4-byte
    // transposes, which depend on the extent: every extent of those too.
    let packed = variant.unit() < 4;
    let every =
        rank == 3 && (!variant.access64() || packed) && !variant.specialized() && !block.lane_major;
    let sampled = n == 3 && [2, 3, MAX_RANK].contains(&rank) && (rank == 3 || !variant.access64());
    if !every && !sampled {
        return None;
    }
    // Lane-major runs: the fewest blocks the planner runs lane-major, and a few more, so that
    // the last workgroup's runs end part way.
    let batch = 1 << (rank - 2);
    let lane_major = (MICRO_LANE_MAJOR_MIN_WORKGROUPS as usize
        * (MICRO_LANE_MAJOR_RUN * MICRO_WORKGROUP) as usize)
        .div_ceil(batch)
        + 3;
    let blocks = match block.lane_major {
        true => lane_major,
        false => blocks_for_run(block.run, false, true),
    };
    let long = block.side as usize * blocks;
    let (rows, cols) = match strip {
        Strip::Cols(n) => (long, n as usize),
        Strip::Rows(n) => (n as usize, long),
    };
    let mut shape = vec![2; rank - 2];
    shape.extend([rows, cols]);
    let mut perm: Vec<usize> = (0..rank - 2).rev().collect();
    perm.extend([rank - 1, rank - 2]);
    Some((shape, perm))
}

/// Row blocks (a row strip's column blocks) of a case whose plan moves `run` blocks per
/// invocation: the fewest (at least 2 while `small`) whose count, with the `run` blocks of
/// rows that a padded case adds (`check_padded_micro`), the planner's first fitting entry
/// of `MICRO_RUNS` is `run` (1: none fits).
pub fn blocks_for_run(run: u32, padded: bool, small: bool) -> usize {
    let extra = if padded { run as usize } else { 0 };
    let planned = |blocks: usize| {
        MICRO_RUNS
            .into_iter()
            .find(|&r| blocks.is_multiple_of(r as usize))
            .unwrap_or(1)
    };
    (1 + small as usize..)
        .find(|&n| planned(n + extra) == run)
        .expect("some count of blocks plans each run")
}

/// The fewest column blocks, two runs or more, whose column runs are `run` blocks long
/// (the first of `MICRO_RUNS` that divides them).
pub fn column_blocks_for_run(run: u32) -> usize {
    let planned = |n: usize| {
        MICRO_RUNS
            .into_iter()
            .find(|&r| n.is_multiple_of(r as usize))
    };
    (2..)
        .map(|k| k * run as usize)
        .find(|&n| planned(n) == Some(run))
        .expect("some count of blocks plans each run")
}

/// The permute that runs a column-runs block at `rank` (`unmergeable`'s reversal): columns
/// of two or more whole runs of blocks (the planner's run), an odd count of row blocks
/// (invocations along them wrap to the next run; one past rank 6, where not `small`). The
/// batch first (`Block::batch_before_columns`): the row continuation (dim 1) a page or
/// more from its neighbour. Plain column runs whose continuation would lie that far
/// (high ranks) have the innermost batch dim continue the rows instead (`(n-1, n-3, .., 1,
/// n-2, 0)`, which decodes it innermost anyway).
pub fn column_runs_case(
    b: Block,
    rank: usize,
    elem: usize,
    small: bool,
) -> (Vec<usize>, Vec<usize>) {
    let (mut shape, mut perm) = super::unmergeable(rank);
    let (side, last) = (b.side as usize, rank - 1);
    shape[0] = if small { 3 * side } else { side };
    shape[last] = side * column_blocks_for_run(b.run);
    let page = PAGE_BYTES as usize / elem;
    let rest: usize = shape[2..].iter().product();
    if b.batch_before_columns {
        shape[last - 1] *= page.div_ceil(rest);
    } else if rank >= 5 && rest >= page {
        perm = [last].into_iter().chain((1..last - 1).rev()).collect();
        perm.extend([last - 1, 0]);
    }
    (shape, perm)
}
