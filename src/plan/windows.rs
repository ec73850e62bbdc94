//! Dispatch geometry: splitting a tensor larger than one storage binding into boxes whose
//! buffer windows fit, and folding workgroup counts into the device's grid limits.

use super::lower::gcd;
use super::tuning::PAGE_BYTES;
use super::{
    ChannelAt, Chunk, DeviceCaps, GENERIC_ITEMS, GENERIC_WORKGROUP, GenericLayout, Kernel,
    MAX_CHUNKS, Misfit, Plan, Strip, TILED_STRIP_WORKGROUP, Tile,
};
use crate::PermuteError;

/// How a kernel's boxes are cut: each dim's extent in multiples of `grain` (but for the
/// last piece of a dim), so that no tile or block straddles a box edge, and each window
/// starting on `align` bytes, so that the kernel's accesses stay whole in it.
pub(super) struct Cut {
    grain: Vec<u64>,
    align: u64,
}

impl Cut {
    /// The cut of the plan's kernel on a device: elements for the generic kernel (with the
    /// CPU family's runs and walks whole, `Plan::run_grain`); whole tiles (the strips' quad
    /// tiles, the micro kernel's runs of blocks, `Plan::block_grain`) along the row and
    /// column dims, window starts on 16 bytes (the widest access), for the others.
    pub(super) fn of(plan: &Plan, kernel: Kernel, caps: &DeviceCaps) -> Result<Cut, Misfit> {
        let rank = plan.dims.len();
        let mut grain = vec![1u64; rank];
        let align = caps.storage_offset_alignment.max(4) as u64;
        let (a, last) = match (kernel, plan.row_dim()) {
            (Kernel::Tiled | Kernel::Micro, Some(a)) => (a, rank - 1),
            _ => {
                // A padded view's packed output rows in whole words.
                if let Some(&inner) = plan.dims_perm.last()
                    && plan.generic_padded()
                {
                    grain[inner] = plan.pack() as u64;
                }
                // The CPU family's runs and walks in tiles: boxes of whole ones.
                plan.run_grain(&mut grain);
                return Ok(Cut { grain, align });
            }
        };
        let (rows, cols) = match kernel {
            Kernel::Tiled if plan.conversion.is_some() => {
                let quads = 4 * TILED_STRIP_WORKGROUP as u64;
                match super::tiled_strip(plan)? {
                    Strip::Cols(n) => (quads, n as u64),
                    Strip::Rows(n) => (n as u64, quads),
                }
            }
            Kernel::Tiled => {
                let extent = Tile::for_unit(plan.unit).extent();
                (extent, extent)
            }
            // The micro kernel's runs of blocks (a flat strip's: whole images, set here).
            _ => match plan.block_grain(&mut grain)? {
                Some(rows_cols) => rows_cols,
                None => {
                    return Ok(Cut {
                        grain,
                        align: align.max(16),
                    });
                }
            },
        };
        (grain[a], grain[last]) = (rows, cols);
        // Boxes start on whole channel steps (their tables rotate to their first channel).
        if let Some(ch) = plan.channels() {
            let d = match ch.at {
                ChannelAt::Rows => a,
                ChannelAt::Cols => last,
                ChannelAt::Batch => return Err(Misfit::Windowed),
            };
            grain[d] = lcm(grain[d], ch.step);
        }
        Ok(Cut {
            grain,
            align: align.max(16),
        })
    }

    /// Whether the smallest box this cut makes (one grain of each dim) fits windows of
    /// `limit` bytes on both sides: then every tensor of the plan's layout splits.
    pub(super) fn fits(&self, plan: &Plan, limit: u64) -> bool {
        let hi: Vec<u64> = (0..plan.dims.len())
            .map(|d| self.grain[d].min(plan.dims[d]))
            .collect();
        let lo = vec![0u64; hi.len()];
        let room = |unit: u64| limit.saturating_sub(self.align + 4) / unit;
        let fits = |strides: &[u64], unit: u32| {
            span(&lo, &hi, strides).is_some_and(|(len, _)| len <= room(unit as u64))
        };
        fits(&plan.in_strides(), plan.unit)
            && fits(&plan.out_strides_by_input_dim(), plan.dst_unit())
    }
}

#[doc(hidden)]
impl Plan {
    /// Workgroups of the generic kernel over a box of these extents: its runs (of units, or
    /// of elements when converting), or, of unpacked unconverted units, items a workgroup
    /// apart.
    pub(super) fn generic_box_workgroups(&self, extents: &[u64]) -> u64 {
        let per = if self.cpu.runs {
            self.run_units()
        } else {
            GENERIC_ITEMS as u64
        };
        extents
            .iter()
            .product::<u64>()
            .div_ceil(GENERIC_WORKGROUP as u64 * per)
    }
}

#[doc(hidden)]
impl Plan {
    /// The extents (input order) one dispatch walks in the generic kernel's plain layout: a
    /// plain box's ([`Plan::plain_boxes`]), else the whole tensor's.
    pub fn walked_dims(&self) -> Vec<u64> {
        match (self.plain_boxes, self.chunks.first()) {
            (true, Some(c)) => c.extents(),
            _ => self.dims.clone(),
        }
    }

    /// Whether every dispatch's box has the same extents (one box has).
    pub fn boxes_of_one_shape(&self) -> bool {
        of_one_shape(&self.chunks)
    }
}

/// Whether every box has the same extents.
fn of_one_shape(chunks: &[Chunk]) -> bool {
    chunks.windows(2).all(|w| w[0].extents() == w[1].extents())
}

/// Whether the generic kernel's boxes run in its plain layout ([`Plan::plain_boxes`]):
/// unpacked, unconverted units of a permute or a view gathering into a whole output, not
/// walked in tiles, in boxes of one shape that are each a contiguous stretch of the output
/// (cut along one output dim, every dim inside it whole). Each box's dispatch walks its
/// extents from its corner as a whole tensor's does, so that stacked runs and the shape's
/// constants apply past one binding too.
pub(super) fn plain_boxes(plan: &Plan) -> bool {
    plain_layout(plan) && !plan.cpu.scatter && plain_boxes_of(plan, &plan.chunks)
}

/// Whether `chunks` are several boxes of one shape, each a contiguous stretch of the output.
fn plain_boxes_of(plan: &Plan, chunks: &[Chunk]) -> bool {
    let out_strides = plan.out_strides_by_input_dim();
    let contiguous = |c: &Chunk| {
        let units: u64 = c.extents().iter().product();
        span(&c.lo, &c.hi, &out_strides).is_some_and(|(len, _)| len == units)
    };
    chunks.len() > 1 && of_one_shape(chunks) && chunks.iter().all(contiguous)
}

/// Whether the generic kernel's plain layout could run the plan's boxes, whatever their
/// shapes: unpacked, unconverted units of a permute or a view gathering into a whole
/// output, not walked in tiles.
fn plain_layout(plan: &Plan) -> bool {
    let whole = plan
        .view
        .as_ref()
        .is_none_or(|v| v.bounds.is_empty() && v.dst_contiguous);
    plan.kernel == Kernel::Generic
        && whole
        && plan.pack() == 1
        && plan.conversion.is_none()
        && plan.cpu.walk_tiles.is_none()
}

/// Whether the generic kernel walks the plan's boxes in tiles ([`GenericLayout::Walk`]).
/// Each box's walk has the whole tensor's rank of dims, its extents its own
/// (`Plan::walk_tile_dims_of`), so boxes of one shape share the shape's constants.
pub(super) fn walk_layout(plan: &Plan) -> bool {
    plan.kernel == Kernel::Generic && plan.generic_layout() == GenericLayout::Walk
}

/// The least common multiple of two positive numbers (saturating).
pub(super) fn lcm(a: u64, b: u64) -> u64 {
    (a / gcd(a, b).max(1)).saturating_mul(b)
}

/// Units a box `lo..hi` spans with these strides (two's complement where negative), and
/// the offset of its first unit from index 0 (negative where strides are); `None` past
/// 64 bits (a padded view's box may span far more than its buffer).
fn span(lo: &[u64], hi: &[u64], strides: &[u64]) -> Option<(u64, i64)> {
    let mut len = 1u64;
    let mut first = 0i64;
    for d in 0..lo.len() {
        let s = strides[d] as i64;
        len = len.checked_add((hi[d] - lo[d] - 1).checked_mul(s.unsigned_abs())?)?;
        let at = if s < 0 { hi[d] - 1 } else { lo[d] };
        first = first.checked_add(s.checked_mul(i64::try_from(at).ok()?)?)?;
    }
    Some((len, first))
}

/// Splits the index space into boxes whose source and destination windows each fit in
/// `limit` bytes (after aligning the window's start), one dispatch per box, cut as the
/// plan's kernel needs ([`Cut`]).
///
/// A box that is too large on the source side is cut along the input dim with the largest
/// stride (the outermost one it spans, that is still above its grain); too large on the
/// destination side, along the input dim with the largest output stride; each cut as
/// coarse as the remaining dims allow. This ends: a box of single grains fits (checked by
/// [`Cut::fits`] where a grain is more than one element: tiles, blocks, runs; a box of one
/// element always fits), or no dim is left to cut and the plan is refused (a padded view of
/// packed data whose words' lanes lie far apart in the source).
///
/// Boxes of one shape are sought (see [`even_piece`]) for micro plans, walks in tiles and
/// those the generic kernel's plain layout could run (each then runs compiled for its box's
/// shape where the plan is specialised); where their finer pieces would need more windows
/// than a plan may have, or the plain layout's boxes are not contiguous stretches of the
/// output (so run boxed, on uniforms), the fewest pieces are taken instead.
pub(super) fn split_into_chunks(
    plan: &Plan,
    caps: &DeviceCaps,
    limit: u64,
) -> Result<Vec<Chunk>, PermuteError> {
    let one_shape = plan.kernel == Kernel::Micro || plain_layout(plan) || walk_layout(plan);
    let fewest = || split_with(plan, caps, limit, false);
    match split_with(plan, caps, limit, one_shape) {
        Err(PermuteError::DeviceLimit { .. }) if one_shape => fewest(),
        // Equal pieces pay in the plain layout only where the boxes are contiguous stretches
        // of the output; other boxes take the fewest pieces, as many dispatches as needed.
        Ok(chunks) if plain_layout(plan) && !plain_boxes_of(plan, &chunks) => {
            fewest().or(Ok(chunks))
        }
        chunks => chunks,
    }
}

/// [`split_into_chunks`], seeking boxes of one shape where `one_shape`.
fn split_with(
    plan: &Plan,
    caps: &DeviceCaps,
    limit: u64,
    one_shape: bool,
) -> Result<Vec<Chunk>, PermuteError> {
    // The kernel was chosen where its cut fits (`select::windows_fit`).
    let cut = Cut::of(plan, plan.kernel, caps).map_err(|m| {
        PermuteError::Internal(format!(
            "no cut for the {} kernel: {}",
            plan.kernel.name(),
            m.why()
        ))
    })?;
    let (grain, align) = (&cut.grain, cut.align);
    // A conversion's two sides have elements of their own sizes.
    let (unit, dst_unit) = (plan.unit as u64, plan.dst_unit() as u64);
    let too_small = || PermuteError::DeviceLimit {
        what: "a binding window of one row",
        limit: "max_storage_buffer_binding_size",
        need: align + 4 + unit.max(dst_unit),
        have: limit,
    };
    // Window spans (in each side's units) this box may have, leaving room for aligning
    // its start.
    let room = limit.checked_sub(align + 4).ok_or_else(too_small)?;
    let (max_src, max_dst) = (room / unit, room / dst_unit);
    if max_src == 0 || max_dst == 0 {
        return Err(too_small());
    }
    let too_many = || PermuteError::DeviceLimit {
        what: "splitting the tensor into at most 65536 binding windows",
        limit: "max_storage_buffer_binding_size",
        need: plan.src_extent().max(plan.dst_extent()),
        have: limit,
    };
    let in_strides = plan.in_strides();
    let out_strides = plan.out_strides_by_input_dim();

    let mut todo = vec![(vec![0u64; plan.dims.len()], plan.dims.clone())];
    let mut boxes = Vec::new();
    while let Some((lo, hi)) = todo.pop() {
        let mut piece: Vec<u64> = (0..lo.len()).map(|d| hi[d] - lo[d]).collect();
        let mut fits = true;
        for (strides, max_span) in [(&in_strides, max_src), (&out_strides, max_dst)] {
            let whole = span(&lo, &hi, strides).map_or(u64::MAX, |(len, _)| len);
            if whole <= max_span {
                continue;
            }
            fits = false;
            let size = |d: usize| (strides[d] as i64).unsigned_abs();
            let d = (0..lo.len())
                .filter(|&d| hi[d] - lo[d] > grain[d])
                .max_by_key(|&d| size(d))
                .ok_or_else(too_small)?;
            let others = whole.saturating_sub((hi[d] - lo[d] - 1).saturating_mul(size(d)));
            let p = if others >= max_span {
                1
            } else {
                (max_span - others) / size(d).max(1) + 1
            };
            // As many pieces as that needs, balanced (no thin last piece), in whole grains.
            let extent = hi[d] - lo[d];
            let p = (p / grain[d] * grain[d]).max(grain[d]);
            // Boxes of one shape (micro boxes and walks in tiles run compiled for it, the
            // generic kernel's may run plain: `plain_boxes`); pieces of the output's rows
            // no shorter than a page, unless the fewest pieces make them so: each dispatch
            // writes its own pages. Otherwise the fewest pieces.
            let least = match (one_shape, plan.dims_perm.last() == Some(&d)) {
                (true, true) => PAGE_BYTES.div_ceil(dst_unit),
                (true, false) => 0,
                (false, _) => u64::MAX,
            };
            piece[d] = piece[d].min(even_piece(extent, p, grain[d], least));
        }
        if fits {
            boxes.push((lo, hi));
            continue;
        }
        // Push every sub-box of the cut dims, unless that many could never be dispatched.
        let count = (0..lo.len()).try_fold(1u64, |n, d| {
            n.checked_mul((hi[d] - lo[d]).div_ceil(piece[d]))
        });
        if count
            .is_none_or(|c| c.saturating_add((boxes.len() + todo.len()) as u64) > MAX_CHUNKS as u64)
        {
            return Err(too_many());
        }
        let mut corner = lo.clone();
        loop {
            let sub_hi: Vec<u64> = (0..lo.len())
                .map(|d| corner[d].saturating_add(piece[d]).min(hi[d]))
                .collect();
            todo.push((corner.clone(), sub_hi));
            let mut d = lo.len();
            loop {
                if d == 0 {
                    break;
                }
                d -= 1;
                corner[d] = corner[d].saturating_add(piece[d]);
                if corner[d] < hi[d] {
                    break;
                }
                corner[d] = lo[d];
            }
            if corner == lo {
                break;
            }
        }
    }
    boxes.sort();

    // The window of a box: from its lowest unit (index 0 is at `start` bytes), aligned;
    // within `region` where one is given: a padded view's reads (its box may span padding
    // positions, outside the buffer).
    let window = |start: u64,
                  lo: &[u64],
                  hi: &[u64],
                  strides: &[u64],
                  unit: u64,
                  region: Option<(u64, u64)>| {
        // A box that fits a window spans fewer units than the window's bytes.
        let (len, first) = span(lo, hi, strides).unwrap_or((1, 0));
        let from = start.wrapping_add((first as u64).wrapping_mul(unit));
        let (from, end) = match region {
            Some((low, high)) => {
                let from = from as i64 as i128;
                let end = from + (len * unit) as i128;
                // At least one unit (a binding of `vec2`/`vec4` units holds one whole).
                let least = unit.max(4);
                let low_end = high.saturating_sub(least).max(low) as i128;
                let from = from.clamp(low as i128, low_end) as u64;
                (from, (end.clamp(0, high as i128) as u64).max(from + least))
            }
            None => (from, from + len * unit),
        };
        let binding = from - from % align;
        (binding, end.next_multiple_of(4) - binding)
    };
    let padded = plan.view.as_ref().is_some_and(|v| !v.bounds.is_empty());
    let reads = padded.then(|| (plan.src_offset, plan.src_extent()));
    boxes
        .into_iter()
        .map(|(lo, hi)| {
            let dst_window = window(plan.dst_offset, &lo, &hi, &out_strides, dst_unit, None);
            let extents: Vec<u64> = (0..lo.len()).map(|d| hi[d] - lo[d]).collect();
            let total = match plan.kernel {
                Kernel::Tiled | Kernel::Micro => plan.box_workgroups(&extents),
                // A padded view's words (`Cut` keeps them whole).
                _ if padded || plan.generic_padded() => {
                    let words = extents.iter().product::<u64>() / plan.pack() as u64;
                    words.div_ceil((GENERIC_WORKGROUP * GENERIC_ITEMS) as u64)
                }
                // Runs or items of the box's units.
                _ if plan.pack() == 1 && plan.conversion.is_none() => {
                    plan.generic_box_workgroups(&extents)
                }
                // Packed data, conversions: words of its window.
                _ => (dst_window.1 / 4).div_ceil((GENERIC_WORKGROUP * GENERIC_ITEMS) as u64),
            };
            Ok(Chunk {
                src_window: window(plan.src_start(), &lo, &hi, &in_strides, unit, reads),
                dst_window,
                lo,
                hi,
                total_workgroups: total,
                workgroups: fold_grid(total, caps.max_workgroups_per_dim)?,
            })
        })
        .collect()
}

/// A piece of at most `max` (a multiple of `grain`) of a dim of `extent`: equal pieces of
/// whole grains where up to twice the fewest pieces make them (more than the fewest only
/// where the pieces keep `least` positions), so that every box has one shape (a micro
/// plan's boxes, or a walk's, then share one pipeline compiled for it, `plan::specialize`;
/// the generic kernel's may run plain); else the fewest pieces, balanced (no thin last
/// one).
///
/// On lavapipe (AMD EPYC) the 256 MiB transpose `[16384,4096] (1,0)` took 43.5-44.8 ms in
/// 3 x 3 boxes and 38.8-39.7 in 4 x 4 of one shape, compiled for it; the 4-D reversal
/// `[256,64,64,64] (3,2,1,0)`, whose output rows of 256 units were cut into 88 or 64 (4 x 4
/// boxes, not 3 x 4), 0.32-0.34 of the shader copy and 0.28-0.30 (round 22).
fn even_piece(extent: u64, max: u64, grain: u64, least: u64) -> u64 {
    let fewest = extent.div_ceil(max);
    // More than a dispatch's worth of boxes fails anyway (`MAX_CHUNKS`): no search.
    let most = match fewest <= MAX_CHUNKS as u64 {
        true => 2 * fewest,
        false => 0,
    };
    (fewest..=most)
        .filter(|&k| extent.is_multiple_of(k))
        .map(|k| extent / k)
        .find(|&piece| {
            let kept = piece >= least || piece * fewest == extent;
            piece >= grain && piece.is_multiple_of(grain) && kept
        })
        .unwrap_or_else(|| extent.div_ceil(fewest).next_multiple_of(grain))
        .min(max)
}

/// Folds a workgroup count into a 1-D, 2-D or 3-D grid with no side above `max_per_dim`.
/// The grid may cover a few more workgroups than asked; the shaders skip the extra ones.
pub fn fold_grid(total: u64, max_per_dim: u32) -> Result<[u32; 3], PermuteError> {
    let max = max_per_dim.max(1) as u64;
    if total == 0 {
        return Ok([0, 0, 0]);
    }
    let x = total.min(max);
    let y = total.div_ceil(x).min(max);
    let z = total.div_ceil(x * y);
    if z > max {
        return Err(PermuteError::DeviceLimit {
            what: "the dispatch",
            limit: "max_compute_workgroups_per_dimension",
            need: total,
            have: max * max * max,
        });
    }
    Ok([x as u32, y as u32, z as u32])
}
