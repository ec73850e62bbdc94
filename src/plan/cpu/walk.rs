//! The generic kernel's walk (CPU devices' runs): over the output's dims, gathering, in
//! tiles of them ([`Plan::walk_tiles`]), or over the source's, scattering
//! ([`Plan::scatter`]), and the choice between them.

use crate::PermuteError;
use crate::plan::tuning::{
    GENERIC_RUN, GENERIC_WORKGROUP, LANE_GROUP, PAGE_BYTES, WALK_TILE_MIN_ROW_RUNS,
    WALK_TILE_ROW_BYTES, WALK_TILE_TRANSPOSE_WORKGROUPS,
};
use crate::plan::{
    DeviceCaps, GenericLayout, IndexMath, Kernel, MAX_RANK, Options, Plan, WalkTiles,
};

#[doc(hidden)]
impl Plan {
    /// What the generic kernel's items walk: the dims they enumerate (outermost first) and
    /// each dim's stride on the side they decode. A gather walks the output's dims with
    /// their source strides, or their tiles ([`Plan::walk_tile_dims`]); a scatter
    /// ([`Plan::scatter`]) the source's dims with their output strides. Over boxes of one
    /// shape, one box's ([`Plan::walked_dims`], [`Plan::walk_tile_dims`]).
    pub fn walk(&self) -> (Vec<u64>, Vec<u64>) {
        match self.walk_tile_dims() {
            Some(walk) => (
                walk.iter().map(|d| d[0]).collect(),
                walk.iter().map(|d| d[1]).collect(),
            ),
            None => self.walk_of(self.cpu.scatter),
        }
    }

    /// The dims of a walk in tiles ([`Plan::walk_tiles`]), outermost first, each as its
    /// extent, source stride and output stride (in units): the output's dims outside the
    /// innermost (a transpose's innermost split into runs first: the runs' count is then
    /// the rows' dim), with the two tiled ones counting tiles, then the positions within a
    /// tile (the source-adjacent dim's, then the rows'), then the innermost dim (or run).
    /// Dims of one position are left out. Over boxes of one shape, a box's walk: what each
    /// dispatch walks (the shape's constants, `shaders::constants`).
    pub fn walk_tile_dims(&self) -> Option<Vec<[u64; 3]>> {
        match (
            self.boxed() && self.boxes_of_one_shape(),
            self.chunks.first(),
        ) {
            (true, Some(c)) => self.walk_tile_dims_of(&c.extents()),
            _ => self.walk_tile_dims_of(&self.dims),
        }
    }

    /// [`Plan::walk_tile_dims`] of a box of these extents (input order; a binding window's,
    /// cut in whole tiles: `windows::Cut`): its tiles and positions, with the whole tensor's
    /// strides, and the same dims as the whole tensor's walk (one of one position is kept
    /// where the whole tensor's has more), so that every box runs one shader.
    pub fn walk_tile_dims_of(&self, extents: &[u64]) -> Option<Vec<[u64; 3]>> {
        let tiles = self.cpu.walk_tiles?;
        let (out, src) = tile_out_dims(self, tiles.row_runs);
        let whole = tile_dims(&out, &out, &src, tiles);
        let boxed: Vec<u64> = self.dims_perm.iter().map(|&d| extents[d]).collect();
        let (boxed, _) = split_runs(self, boxed, Vec::new(), tiles.row_runs);
        let walk = tile_dims(&boxed, &out, &src, tiles);
        Some(
            walk.into_iter()
                .zip(whole)
                .filter(|(_, w)| w[0] > 1)
                .map(|(b, _)| b)
                .collect(),
        )
    }

    /// Whether the generic kernel's runs are lane-major: each SIMD group of [`LANE_GROUP`]
    /// invocations moves `LANE_GROUP * GENERIC_RUN` neighbouring units of one output row,
    /// [`LANE_GROUP`] neighbours at each step, rather than each invocation its own
    /// [`GENERIC_RUN`] (whose lanes' accesses are then a run apart: 8 lines per access of
    /// 16-byte units). Gathered runs, tiled or not, of unconverted units without wide
    /// stores, where the walk's innermost dim (the output's, unless a transpose walks in
    /// runs) holds whole groups' runs. On lavapipe (AMD EPYC; the shader copy of the same
    /// bytes about 9.7 ms) the `[8192,4096]` slice `::2` took 16.5-16.8 ms in runs of its own
    /// per invocation and 12.2-13.0 lane-major, the flip of dim 0 16.7-16.8 and 12.8.
    pub fn lane_major_runs(&self) -> bool {
        let whole_groups = (LANE_GROUP * GENERIC_RUN) as u64;
        self.cpu.runs
            && self.kernel == Kernel::Generic
            && !self.cpu.scatter
            && !self.cpu.wide_stores
            && self.conversion.is_none()
            && !self.cpu.walk_tiles.is_some_and(|t| t.row_runs)
            && self
                .out_dims()
                .last()
                .is_some_and(|d| d.is_multiple_of(whole_groups))
    }

    /// Whether the output's rows hold whole runs ([`Plan::run_units`]): every order of runs
    /// but a stack needs them, each run being a stretch of one row.
    pub fn rows_hold_whole_runs(&self) -> bool {
        self.out_dims()
            .last()
            .is_some_and(|d| d.is_multiple_of(self.run_units()))
    }

    /// Whether runs are stacked: a SIMD group's lanes move neighbouring units of an output
    /// row and each step takes the next row of a stack of [`GENERIC_RUN`], rather than
    /// moving on along the row, so that a workgroup streams its rows a page or more apart
    /// on each side, as the shader copy streams its items a workgroup (4 KiB) apart.
    /// On lavapipe (AMD EPYC) a 64 MiB copy whose SIMD groups each moved 512 bytes in order
    /// took 10.9-11.6 ms, with their steps 4 or 16 KiB apart 9.65-10.07 (256 B to 2 KiB
    /// apart, where neighbouring groups interleave within a page, 18-30). The gain needs
    /// the row and step as constants (a shape compiled for, `plan::specialize`): on
    /// uniforms the views below took about what they took lane-major (11.8-13.1 ms against
    /// 12.5-13.0); compiled for their shape the `[8192,4096]` slice `::2` went from 12.7 to
    /// 10.1 ms and the flips of `[4096,4096]` from 12.7-14.0 to 10.3-11.0
    /// (docs/history/10-cpu-round-20.md). Gathered runs of unconverted units in the plain
    /// layout (one binding, or boxes that are stretches of a whole output) without wide
    /// stores, where the rows stack ([`Plan::rows_stack`]). The rows need not hold whole
    /// runs, nor whole groups' (a stack's lanes take any row's columns): on lavapipe (AMD
    /// EPYC) `[64,64,56,56] (1,0,2,3)` f32, whose rows of 784 units hold whole runs but not
    /// whole groups, took 13.2-13.9 ms walked in tiles and 7.8-12.3 stacked (median 8.7; the
    /// shader copy of its bytes 7.2-8.1 ms; docs/history/14-cpu-round-24.md).
    pub fn stacked_runs(&self) -> bool {
        self.cpu.runs
            && self.kernel == Kernel::Generic
            && !self.cpu.scatter
            && !self.cpu.wide_stores
            && self.conversion.is_none()
            && self.generic_layout() == GenericLayout::Plain
            && self.rows_stack()
    }

    /// Whether the walked output rows stack (see [`Plan::stacked_runs`]): rows of a page or
    /// more that are rows of the source too (forwards or backwards: a transpose's lanes
    /// would read a row apart each, which walks in tiles avoid), the stacked dim (the
    /// output's second innermost) in whole runs, its rows a page or more apart in the source
    /// too, or the same row (a broadcast).
    pub fn rows_stack(&self) -> bool {
        let (dims, strides) = self.walk_of(false);
        let (&[.., rows, row], &[.., step, along]) = (&dims[..], &strides[..]) else {
            return false;
        };
        let unit = self.unit as u64;
        // Two's complement: a view's rows may run backwards.
        let apart = (step as i64).unsigned_abs().saturating_mul(unit);
        (along as i64).unsigned_abs() == 1
            && rows.is_multiple_of(GENERIC_RUN as u64)
            && row.saturating_mul(unit) >= PAGE_BYTES
            && (apart == 0 || apart >= PAGE_BYTES)
    }

    /// [`Plan::walk`] as a scatter (`true`) or a gather would walk, whichever the plan chose.
    pub fn walk_of(&self, scatter: bool) -> (Vec<u64>, Vec<u64>) {
        if scatter {
            return (self.dims.clone(), self.out_strides_by_input_dim());
        }
        let (in_strides, dims) = (self.in_strides(), self.walked_dims());
        let strides = self.dims_perm.iter().map(|&d| in_strides[d]).collect();
        (self.dims_perm.iter().map(|&d| dims[d]).collect(), strides)
    }
}

/// The output's dims and their source strides as a walk in tiles splits them: the innermost
/// in runs (`[extent / run, run]`) where `row_runs`.
fn tile_out_dims(plan: &Plan, row_runs: bool) -> (Vec<u64>, Vec<u64>) {
    let (out, src) = plan.walk_of(false);
    split_runs(plan, out, src, row_runs)
}

/// Output extents `out` (and their source strides `src`, where given) with the innermost
/// split into runs (`[extent / run, run]`) where `row_runs`.
fn split_runs(
    plan: &Plan,
    mut out: Vec<u64>,
    mut src: Vec<u64>,
    row_runs: bool,
) -> (Vec<u64>, Vec<u64>) {
    if row_runs {
        let run = plan.run_units();
        let n = out.pop().unwrap_or(1);
        out.extend([n / run, run]);
        // Two's complement: a flipped view's strides are negative.
        if let Some(s) = src.pop() {
            src.extend([s.wrapping_mul(run), s]);
        }
    }
    (out, src)
}

/// The dims of a walk in tiles (unfiltered: dims of one position included) of a box whose
/// output extents are `out`, in a tensor whose output extents are `whole` (its strides),
/// with source strides `src`.
fn tile_dims(out: &[u64], whole: &[u64], src: &[u64], t: WalkTiles) -> Vec<[u64; 3]> {
    let last = out.len() - 1;
    let mut dst = vec![1u64; out.len()];
    for k in (0..last).rev() {
        dst[k] = dst[k + 1] * whole[k + 1];
    }
    let (a, b) = (t.dim, last - 1);
    let mut walk: Vec<[u64; 3]> = (0..last)
        .map(|k| match k {
            // Source strides in two's complement (a flipped view's are negative).
            _ if k == a => [
                out[a] / t.across,
                src[a].wrapping_mul(t.across),
                dst[a] * t.across,
            ],
            _ if k == b => [
                out[b] / t.rows,
                src[b].wrapping_mul(t.rows),
                dst[b] * t.rows,
            ],
            _ => [out[k], src[k], dst[k]],
        })
        .collect();
    walk.push([t.across, src[a], dst[a]]);
    walk.push([t.rows, src[b], dst[b]]);
    walk.push([out[last], src[last], 1]);
    walk
}

/// Whether a CPU device moves this transpose of 16-byte units on the generic kernel's
/// walk in tiles rather than micro blocks (2x2 blocks of 16-byte units: a SIMD group's
/// lanes each read 32 bytes of 2 rows, 16 rows a group): a plain permute whose innermost
/// dim moves, in whole runs, with a SIMD group's lanes across the dim nearest in the
/// source, in one binding or in boxes of whole tiles that fit its windows (the narrower
/// ones of [`narrow_tiles`] where the usual do not). On lavapipe (AMD EPYC, three
/// alternating suite runs; the shader copy of the same bytes about 10 ms) `[2048,2048]
/// (1,0)` took 21.2 ms on micro blocks, 11.6 so.
pub(in crate::plan) fn transpose_walks_tiles(
    plan: &Plan,
    caps: &DeviceCaps,
    opts: &Options,
    limit: u64,
) -> bool {
    let fits = |tiles: Option<WalkTiles>| {
        let mut walked = Plan {
            kernel: Kernel::Generic,
            ..plan.clone()
        };
        (walked.cpu.runs, walked.cpu.walk_tiles) = (true, tiles);
        tiles.is_some_and(|t| t.row_runs)
            && crate::plan::select::windows_fit(&walked, Kernel::Generic, caps, limit).is_ok()
    };
    plan.unit == 16
        && plan.view.is_none()
        && plan.conversion.is_none()
        && plan.index == IndexMath::U32
        && opts.walk_tiles != Some(false)
        && opts.scatter != Some(true)
        && opts.column_runs != Some(true)
        && (fits(tiles_of(plan)) || fits(narrow_tiles(plan)))
}

/// Whether the generic kernel's runs gather in tiles ([`Plan::walk_tiles`]): runs (CPU
/// devices) of a plain permute, without wide stores, where the output dim nearest in the
/// source is not the one just outside the innermost ([`tiles_of`]); past one binding
/// (`one_binding` false) in boxes of whole tiles, chosen before the windows.
pub(in crate::plan) fn choose_walk_tiles(
    plan: &Plan,
    opts: &Options,
    one_binding: bool,
) -> Result<Option<WalkTiles>, PermuteError> {
    // Past one binding it is chosen before the windows (`plan::finish`), which then cut
    // whole tiles.
    let applies = plan.cpu.runs
        && plan.kernel == Kernel::Generic
        && !plan.cpu.wide_stores
        && plan.view.is_none()
        && plan.conversion.is_none()
        && !plan.boxed()
        && plan.rows_hold_whole_runs()
        && opts.scatter != Some(true);
    let tiles = tiles_of(plan).filter(|_| applies);
    match (opts.walk_tiles, tiles) {
        (Some(true), None) => Err(PermuteError::ForcedChoice {
            what: "a walk in tiles",
            why: "it walks the generic kernel's runs (CPU devices) of a plain permute (not a view), without wide stores or a scatter, whose output dim nearest in the source is not the one outside the innermost (a transpose's in whole runs)",
        }),
        (Some(false), _) => Ok(None),
        // Stacked runs first, where they apply: on lavapipe (AMD EPYC) 64 MiB permutes of
        // rows of 4 or 8 KiB (`[64,256,1024] (1,0,2)`, `[8,64,32,1024] (0,2,1,3)`) took
        // 12.2-13.1 ms walked in tiles and 9.6-10.3 stacked, as long as their copy
        // (docs/history/10-cpu-round-20.md).
        // Past one binding the walk is chosen before the windows (whose boxes may then run
        // plain and stacked: `Plan::plain_boxes`), so there it is taken where it applies.
        (None, Some(_)) if one_binding && plan.stacked_runs() => Ok(None),
        (_, tiles) => Ok(tiles),
    }
}

/// The tiles of a gather's walk where they change its order and its rows hold at least
/// [`WALK_TILE_MIN_ROW_RUNS`] runs: the source-adjacent output dim
/// `across` positions at a time, the output's rows (the dim outside the innermost) as many
/// at a time as fill [`WALK_TILE_ROW_BYTES`], and a tile as many runs as a workgroup moves
/// (a transpose's: [`WALK_TILE_TRANSPOSE_WORKGROUPS`] workgroups'; each extent the largest
/// divisor of the dim's that fits). Walking the output's rows in order, a gather whose
/// neighbouring rows come from far apart in the source reads a new page per row, and the
/// pages it comes back to are long gone; in tiles, a workgroup reads `rows` stretches of
/// `across` source rows each and writes `across` stretches of output.
///
/// Where the innermost dim moves (a transpose), its runs are the rows, one per tile: a
/// workgroup's lanes take neighbouring positions of the dim nearest in the source (at
/// least a SIMD group's, [`LANE_GROUP`]), each a run down its output row, so that each step
/// of a SIMD group reads neighbouring units of one source row; a tile holds the runs of
/// [`WALK_TILE_TRANSPOSE_WORKGROUPS`] workgroups.
fn tiles_of(plan: &Plan) -> Option<WalkTiles> {
    tiles_of_width(plan, WALK_TILE_TRANSPOSE_WORKGROUPS)
}

/// The tiles a walk takes past one binding where a box of [`tiles_of`]'s does not fit a
/// window: a transpose's of one workgroup's runs (walks whose innermost dim stays have no
/// other tiles). The windows cut whole tiles, and 16-byte transposes whose rows are long
/// would otherwise leave the walk for micro blocks, about twice as slow.
pub(in crate::plan) fn narrow_tiles(plan: &Plan) -> Option<WalkTiles> {
    tiles_of_width(plan, 1)
}

/// [`tiles_of`] with a transpose's tile holding `workgroups` workgroups' runs.
fn tiles_of_width(plan: &Plan, workgroups: u64) -> Option<WalkTiles> {
    let last = plan.dims.len().checked_sub(1)?;
    let row_runs = plan.dims_perm[last] != last;
    if row_runs && !plan.out_dims()[last].is_multiple_of(plan.run_units()) {
        return None;
    }
    let (out, src) = tile_out_dims(plan, row_runs);
    let last = out.len() - 1;
    let short = !row_runs && out[last] < WALK_TILE_MIN_ROW_RUNS * plan.run_units();
    if last < 2 || short {
        return None;
    }
    let b = last - 1;
    let a = (0..last).min_by_key(|&k| src[k])?;
    let row_bytes = out[last] * plan.unit as u64;
    let rows = match row_runs {
        true => 1,
        false => divisor_at_most(out[b], (WALK_TILE_ROW_BYTES / row_bytes).max(1)),
    };
    let workgroups = if row_runs { workgroups } else { 1 };
    let tile_units = workgroups * GENERIC_WORKGROUP as u64 * plan.run_units();
    let across = divisor_at_most(out[a], (tile_units / (rows * out[last])).max(1));
    // Whole dims next to each other walk as the output does. A transpose's lanes take
    // whole SIMD groups across, or its runs stay in output order (erring towards the order
    // measured: fewer neighbours read a source row's line in parts, unmeasured).
    let same = a + 1 == b && across == out[a] && rows == out[b];
    if row_runs && across < LANE_GROUP as u64 {
        return None;
    }
    let tiles = WalkTiles {
        dim: a,
        across,
        rows,
        row_runs,
    };
    // The walk has up to two dims more than the output: within the kernels' rank.
    let dims = tile_dims(&out, &out, &src, tiles);
    let fits = dims.iter().filter(|d| d[0] > 1).count() <= MAX_RANK;
    (a != b && across > 1 && !same && fits).then_some(tiles)
}

/// The largest divisor of `n` that is at most `most` (1 at least).
fn divisor_at_most(n: u64, most: u64) -> u64 {
    (1..=most.min(n))
        .rev()
        .find(|&d| n.is_multiple_of(d))
        .unwrap_or(1)
}

/// Whether the generic kernel's runs scatter ([`Plan::scatter`]): runs (CPU devices) of a
/// plain permute whose innermost dim stays innermost, without wide stores, or a
/// conversion's runs of quads, where one workgroup's runs walked in source order write at
/// most half as many pages ([`PAGE_BYTES`]) as gathering them reads. A CPU's prefetchers
/// stop at a page: gathering `[8,512,16,64] (0,2,1,3)` f32 reads 128 rows 4 KiB apart per
/// workgroup (3.9 ms on lavapipe, the shader copy of its bytes 2.8), scattering writes 16
/// pages' worth of sequential rows (3.3 ms); where both sides' rows are as far apart
/// (`[512,512,64] (1,0,2)`), neither order wins.
pub(in crate::plan) fn choose_scatter(plan: &Plan, opts: &Options) -> Result<bool, PermuteError> {
    let last = plan.dims.len() - 1;
    let applies = plan.cpu.runs
        && plan.kernel == Kernel::Generic
        && !plan.cpu.wide_stores
        && plan.view.is_none()
        && (plan.conversion.is_none() || plan.quads)
        && plan.chunks.len() == 1
        && plan.rows_hold_whole_runs()
        && last > 0
        && plan.dims_perm[last] == last;
    match opts.scatter {
        Some(true) if !applies => Err(PermuteError::ForcedChoice {
            what: "scatter",
            why: "it walks the generic kernel's runs (CPU devices) of a plain permute (not a view) whose innermost dim stays innermost, without wide stores, or a conversion's runs of quads",
        }),
        Some(on) => Ok(on),
        None if !applies => Ok(false),
        None => {
            let gather = run_pages(plan, &plan.walk_of(false), plan.unit);
            let scattered = run_pages(plan, &plan.walk_of(true), plan.dst_unit());
            Ok(2 * scattered <= gather)
        }
    }
}

/// Pages ([`PAGE_BYTES`]) the generic kernel's first workgroup of runs touches on the side
/// it decodes, for its `walk` (dims, and their strides there, in units of `unit` bytes).
fn run_pages(plan: &Plan, (dims, strides): &(Vec<u64>, Vec<u64>), unit: u32) -> usize {
    let total: u64 = dims.iter().product();
    let run = plan.run_units();
    let step = strides.last().copied().unwrap_or(1);
    let mut pages: Vec<u64> = (0..GENERIC_WORKGROUP as u64)
        .map(|r| r * run)
        .take_while(|&first| first < total)
        .flat_map(|first| {
            let (mut rem, mut at) = (first, 0u64);
            for (d, s) in dims.iter().zip(strides).rev() {
                at += rem % d * s;
                rem /= d;
            }
            (0..run).map(move |k| (at + k * step) * unit as u64 / PAGE_BYTES)
        })
        .collect();
    pages.sort_unstable();
    pages.dedup();
    pages.len()
}
