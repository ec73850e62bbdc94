//! Choices, each returned with the reason it was made ([`super::reasons`]): the kernel,
//! the index width, whether the generic kernel is compiled for the shape, runs, wide stores
//! and 64-bit accesses, and the micro kernel's block (whether runs scatter: `super::walk`).

use super::reasons::*;
use super::runs::{short_rows_run, usual_run};
use super::tuning::*;
use super::{Block, ChannelAt, DeviceCaps, IndexMath, Kernel, Options, Plan, Strip, Tile, windows};
use crate::PermuteError;

/// 32-bit math when every offset in units (plus a workgroup's overshoot) fits in `u32`;
/// else native 64-bit where the device has it, else emulated pairs.
pub(super) fn choose_index(
    plan: &Plan,
    caps: &DeviceCaps,
    opts: &Options,
) -> Result<(IndexMath, IndexReason), PermuteError> {
    let unit = plan.unit as u64;
    let reach = (plan.src_extent().max(plan.dst_extent()) / unit)
        .saturating_add(super::GENERIC_WORKGROUP as u64 * super::GENERIC_ITEMS as u64);
    let fits32 = reach <= u32::MAX as u64;
    match opts.index {
        Some(IndexMath::U32) if !fits32 => Err(PermuteError::ForcedChoice {
            what: "u32 index math",
            why: "the tensor's offsets do not fit in 32 bits",
        }),
        Some(IndexMath::U64) if !caps.int64 => Err(PermuteError::ForcedChoice {
            what: "u64 index math",
            why: "the device lacks the SHADER_INT64 feature",
        }),
        Some(forced) => Ok((forced, IndexReason::Forced)),
        None if fits32 => Ok((IndexMath::U32, IndexReason::Fits32)),
        None if caps.int64 => Ok((IndexMath::U64, IndexReason::Native64)),
        None => Ok((IndexMath::U32Pair, IndexReason::Pair64)),
    }
}

/// The kernel and why, for binding windows of `limit` bytes (each kernel fits only where
/// its boxes do, see `windows::Cut`). Order: forced; identity -> copy (odd bytes: generic);
/// innermost stays -> generic; a measured winner; the modelled best (where the model is on: GPUs);
/// on a CPU device micro-tiles where they fit; on a GPU the tiled kernel where it fits and
/// both sides reach [`MIN_TILED_EXTENT`]; else generic.
pub(super) fn choose_kernel(
    plan: &Plan,
    caps: &DeviceCaps,
    opts: &Options,
    learned: &Learned,
    limit: u64,
) -> Result<(Kernel, KernelReason, Tuning, Modelling), PermuteError> {
    let identity = plan.dims_perm.len() == 1;
    let whole_words = plan.bytes.is_multiple_of(4);
    let one_binding = plan.src_extent() <= limit && plan.dst_extent() <= limit;
    if let Some(forced) = opts.kernel {
        let refuse = |what, why| PermuteError::ForcedChoice { what, why };
        let misfit = |what, m: Result<(), Misfit>| {
            m.map_err(|m| refuse(what, m.why()))
                .map(|()| (forced, KernelReason::Forced, Tuning::Off, Modelling::Off))
        };
        return match forced {
            Kernel::Empty => Err(refuse("empty kernel", "the tensor has elements")),
            Kernel::Copy if !(identity && whole_words) => Err(refuse(
                "copy kernel",
                "the permutation is not the identity, or its byte count is not a multiple of 4",
            )),
            Kernel::Tiled => misfit("tiled kernel", tiled_fits(plan, caps, limit)),
            Kernel::Micro => misfit("micro kernel", micro_fits(plan, caps, limit)),
            Kernel::Copy | Kernel::Generic => {
                Ok((forced, KernelReason::Forced, Tuning::Off, Modelling::Off))
            }
        };
    }
    let heuristic = |reason| (Kernel::Generic, reason, Tuning::Off, Modelling::Off);
    if identity {
        return Ok(if whole_words {
            (
                Kernel::Copy,
                KernelReason::Identity,
                Tuning::Off,
                Modelling::Off,
            )
        } else if one_binding {
            heuristic(KernelReason::IdentityOddBytes)
        } else {
            heuristic(KernelReason::Windowed { limit })
        });
    }
    let Some((_, rows, cols)) = plan.batch_rows_cols() else {
        return Ok(heuristic(KernelReason::InnermostStays));
    };

    let fits = |k| match k {
        Kernel::Tiled => tiled_fits(plan, caps, limit).is_ok(),
        Kernel::Micro => micro_fits(plan, caps, limit).is_ok(),
        _ => k == Kernel::Generic,
    };
    let candidates: Vec<Kernel> = [Kernel::Generic, Kernel::Tiled, Kernel::Micro]
        .into_iter()
        .filter(|&k| fits(k))
        .collect();
    let mut tuning = Tuning::Off;
    if learned.autotune {
        match learned.winners.get(&plan.shape_class()) {
            Some(Measured::Fastest(k)) if fits(*k) => {
                return Ok((*k, KernelReason::Measured, Tuning::Winner, Modelling::Off));
            }
            Some(Measured::Fastest(k)) => tuning = Tuning::WinnerMisfits(*k),
            Some(Measured::Parts) => tuning = Tuning::Parts,
            Some(Measured::Failed(why)) => tuning = Tuning::Failed(why.clone()),
            None if candidates.len() > 1 => tuning = Tuning::Pending(candidates.clone()),
            None => {}
        }
    }
    let mut model = Modelling::Off;
    if learned.model && candidates.len() > 1 {
        match learned.modelled.get(&plan.shape_key()) {
            Some(figures) => match modelled_best(figures, &candidates) {
                Some(k) => {
                    let model = Modelling::Figures(figures.clone());
                    return Ok((k, KernelReason::Modelled, tuning, model));
                }
                None => model = Modelling::Failed,
            },
            None if learned.modelled.len() >= MAX_MODELLED => model = Modelling::BudgetSpent,
            None => model = Modelling::Pending(candidates),
        }
    }

    let (kernel, reason) = by_device(plan, caps, opts, (rows, cols), limit);
    Ok((kernel, reason, tuning, model))
}

/// The kernel for a plan whose innermost dim moves (rows and columns of `rows` x `cols`
/// units), by the kind of device, where nothing was measured or modelled.
fn by_device(
    plan: &Plan,
    caps: &DeviceCaps,
    opts: &Options,
    (rows, cols): (u64, u64),
    limit: u64,
) -> (Kernel, KernelReason) {
    if prefer_micro(caps) && super::walk::transpose_walks_tiles(plan, caps, opts, limit) {
        (Kernel::Generic, KernelReason::CpuWalkTiles)
    } else if prefer_micro(caps) {
        match micro_fits(plan, caps, limit) {
            Ok(()) => (Kernel::Micro, KernelReason::CpuMicro),
            Err(m) => (Kernel::Generic, KernelReason::CpuNoMicro(m)),
        }
    } else if rows < MIN_TILED_EXTENT || cols < MIN_TILED_EXTENT {
        (Kernel::Generic, KernelReason::SmallTile { rows, cols })
    } else {
        match tiled_fits(plan, caps, limit) {
            Ok(()) => (Kernel::Tiled, KernelReason::GpuTiled),
            Err(m) => (Kernel::Generic, KernelReason::GpuNoTiled(m)),
        }
    }
}

/// The kernel of a conversion: register blocks on a CPU device where they fit (or where
/// forced), else the generic kernel, which converts element by element.
pub(super) fn choose_convert_kernel(
    plan: &Plan,
    caps: &DeviceCaps,
    opts: &Options,
    limit: u64,
) -> Result<(Kernel, KernelReason), PermuteError> {
    let refuse = |what, why| PermuteError::ForcedChoice { what, why };
    match opts.kernel {
        Some(Kernel::Generic) => Ok((Kernel::Generic, KernelReason::Forced)),
        Some(Kernel::Micro) => micro_fits(plan, caps, limit)
            .map(|()| (Kernel::Micro, KernelReason::Forced))
            .map_err(|m| refuse("micro kernel", m.why())),
        Some(Kernel::Tiled) => strips_fit(plan, caps, limit)
            .map(|()| (Kernel::Tiled, KernelReason::Forced))
            .map_err(|m| refuse("tiled kernel", m.why())),
        Some(_) => Err(refuse(
            "kernel",
            "conversions run on the generic, tiled and micro kernels",
        )),
        None if prefer_micro(caps) && micro_fits(plan, caps, limit).is_ok() => {
            Ok((Kernel::Micro, KernelReason::CpuMicro))
        }
        None if !prefer_micro(caps) && strips_fit(plan, caps, limit).is_ok() => {
            Ok((Kernel::Tiled, KernelReason::ConversionStrips))
        }
        None => Ok((Kernel::Generic, KernelReason::Conversion)),
    }
}

/// The kernel of a view that is not a permute (nor a copy): tiles where a column dim
/// contiguous in the source is not the output's innermost and the layout suits them (see
/// [`view_fits`]), as for a permute; else the generic kernel, which gathers by strides.
pub(super) fn choose_view_kernel(
    plan: &Plan,
    caps: &DeviceCaps,
    opts: &Options,
    limit: u64,
) -> Result<(Kernel, KernelReason), PermuteError> {
    let refuse = |what, why| PermuteError::ForcedChoice { what, why };
    match opts.kernel {
        Some(Kernel::Generic) => Ok((Kernel::Generic, KernelReason::Forced)),
        Some(Kernel::Tiled) => tiled_fits(plan, caps, limit)
            .map(|()| (Kernel::Tiled, KernelReason::Forced))
            .map_err(|m| refuse("tiled kernel", m.why())),
        Some(Kernel::Micro) => micro_fits(plan, caps, limit)
            .map(|()| (Kernel::Micro, KernelReason::Forced))
            .map_err(|m| refuse("micro kernel", m.why())),
        Some(k) => Err(refuse(
            k.name(),
            "a strided view that is not a permute runs on the generic, tiled or micro kernel (or a copy)",
        )),
        None => Ok(match plan.batch_rows_cols() {
            Some((_, rows, cols)) if view_fits(plan, prefer_micro(caps)).is_ok() => {
                by_device(plan, caps, opts, (rows, cols), limit)
            }
            _ => (Kernel::Generic, KernelReason::View),
        }),
    }
}

/// Whether a view's layout suits the tiled and micro kernels, which read rows of columns
/// and write rows of output rows: its columns (the innermost lowered dim) at stride 1 in
/// the source, its output rows at stride 1 in the destination, for packed data every other
/// stride and the start in whole words (for the `micro` kernel, whose blocks check their
/// accesses: forward strides), and unpadded but on the `micro` kernel (which fills whole
/// block rows: then no bound may span the columns). Plain permutes always suit.
fn view_fits(plan: &Plan, micro: bool) -> Result<(), Misfit> {
    let (Some(v), Some(a)) = (&plan.view, plan.row_dim()) else {
        return Ok(());
    };
    let last = plan.dims.len() - 1;
    let pack = plan.pack() as i64;
    let words = |s: i64| s.rem_euclid(pack) == 0;
    let packed_words = (0..=last).all(|d| {
        (d == last || (v.src_strides[d] >= 0 && words(v.src_strides[d])))
            && (d == a || words(v.dst_strides[d] as i64))
    }) && plan.src_start().is_multiple_of(4);
    // The micro kernel checks its own accesses (`micro_block`: whole ones, or a strip's
    // span over rows of odd bytes, as a crop of interleaved pixels has them).
    let packed_fits = match micro {
        true => v.src_strides.iter().all(|&s| s >= 0),
        false => packed_words,
    };
    let bounded_columns = v.bounds.iter().any(|(dims, _)| dims.contains(&last));
    if !v.bounds.is_empty() && (!micro || bounded_columns) {
        return Err(Misfit::Padded);
    }
    if v.src_strides[last] != 1 || v.dst_strides[a] != 1 || (pack > 1 && !packed_fits) {
        return Err(Misfit::ViewLayout);
    }
    Ok(())
}

/// The candidate with the best modelled ratio to a copy (to 1%), then the fewest bank
/// conflicts, then the earliest candidate (generic first: the simplest kernel wins ties).
pub fn modelled_best(figures: &[Figures], candidates: &[Kernel]) -> Option<Kernel> {
    let rank = |f: &Figures| {
        let order = candidates.iter().position(|&k| k == f.kernel);
        let ratio = (f.ratio_to_copy() * 100.0).round() as i64;
        (
            ratio,
            std::cmp::Reverse(f.bank_conflict_ways),
            order.map(std::cmp::Reverse),
        )
    };
    figures
        .iter()
        .filter(|f| candidates.contains(&f.kernel))
        .max_by_key(|f| rank(f))
        .map(|f| f.kernel)
}

/// Whether register micro-tiles, rather than workgroup-memory tiles, are the first choice:
/// on CPU devices, where they beat both other kernels on every case of the suite on
/// lavapipe (1.2-4x over the generic kernel), and where workgroup memory is ordinary memory
/// and the barrier splits the shader. Unmeasured on GPUs, so there the tiled kernel keeps
/// its place: errs towards the kernel built for GPUs on any device not known to be a CPU.
pub fn prefer_micro(caps: &DeviceCaps) -> bool {
    caps.cpu
}

/// Whether a conversion on the generic kernel moves quads (in one binding): its innermost
/// dim stays (so 4
/// consecutive output elements are 4 consecutive source elements), divides by 4, and both
/// offsets are whole quads of their side's elements. Each item is then one source access
/// of 4, 8 or 16 bytes and one destination access likewise: neighbouring threads' accesses
/// are contiguous on a GPU, and a CPU adapter pays one access per 4 elements instead of 8.
pub fn choose_quads(plan: &Plan, one_binding: bool) -> bool {
    let last = plan.dims.len() - 1;
    one_binding
        && plan.conversion.is_some()
        && plan.kernel == Kernel::Generic
        && plan.view.is_none()
        && plan.dims_perm.last() == Some(&last)
        && plan.dims[last].is_multiple_of(4)
        && plan.src_offset.is_multiple_of(4 * plan.unit as u64)
        && plan.dst_offset.is_multiple_of(4 * plan.dst_unit() as u64)
}

/// Whether invocations move runs of neighbours, on CPU devices only: the micro kernel's
/// blocks along the output's rows (on GPUs they would spread neighbouring lanes'
/// accesses), and the generic kernel's consecutive output units, for a tensor in one
/// binding (or, of unpacked units unconverted, in boxes over binding windows) written
/// contiguously (no bounds or destination strides) with 32-bit index math, whose innermost
/// output dim is whole runs of [`GENERIC_RUN`], so that a run never leaves its output row
/// and its source offsets step by one stride; or, in one binding, whose rows stack
/// ([`Plan::rows_stack`]), whatever their length: a stack's run steps down its column
/// ([`Plan::stacked_runs`], the only order such rows take). A CPU adapter gains nothing
/// from spacing a thread's items a workgroup apart (its lanes access memory one at a time)
/// and pays for each decode; on GPUs the spaced items are what coalesces.
pub fn choose_runs(plan: &Plan, caps: &DeviceCaps, one_binding: bool) -> bool {
    if plan.kernel == Kernel::Micro {
        return micro_runs(caps);
    }
    let whole = plan
        .view
        .as_ref()
        .is_none_or(|v| v.bounds.is_empty() && v.dst_contiguous);
    // Past one binding, runs go through boxes (`GenericLayout::Boxed`: each run's first
    // unit decodes both offsets), of unpacked, unconverted units.
    let boxes = plan.pack() == 1 && plan.conversion.is_none();
    // Converting runs fill whole destination words (a run's length is a multiple of any
    // packing); other runs move unpacked units; runs of quads, quads.
    caps.cpu
        && plan.kernel == Kernel::Generic
        && plan.index == IndexMath::U32
        && (one_binding || boxes)
        && (plan.pack() == 1 || plan.conversion.is_some())
        && whole
        && (plan.rows_hold_whole_runs()
            || (one_binding && plan.conversion.is_none() && plan.rows_stack()))
}

/// Whether the generic kernel's runs write 16 bytes at a time: runs of 4 or 8-byte units
/// into a destination that starts on 16 bytes (a run of [`GENERIC_RUN`] units starts on
/// whole 32 bytes of it). A CPU adapter loops over its lanes once per access whatever the
/// access's width, so one store of four words costs what one word did.
pub fn choose_wide_stores(plan: &Plan, opts: &Options) -> Result<bool, PermuteError> {
    let applies = plan.cpu.runs
        && plan.kernel == Kernel::Generic
        && matches!(plan.unit, 4 | 8)
        && plan.dst_offset.is_multiple_of(16)
        && plan.rows_hold_whole_runs()
        && !plan.boxed()
        && plan.cpu.walk_tiles.is_none();
    match opts.wide_stores {
        Some(true) if !applies => Err(PermuteError::ForcedChoice {
            what: "wide stores",
            why: "they write the generic kernel's runs (CPU devices) of 4/8-byte units into a destination that starts on 16 bytes",
        }),
        Some(on) => Ok(on),
        // A forced scatter walks the source: its runs have no output words to gather.
        None => Ok(applies && opts.scatter != Some(true)),
    }
}

/// Whether to access storage as 64-bit components: where the units are 8 or 16 bytes, the
/// stores wide or a conversion's quads 8 or 16 bytes on a side (the generic kernel), or the
/// micro kernel's block rows are 16-byte accesses, with 32-bit index math, on CPU devices
/// with `SHADER_INT64`. lavapipe loads and stores each component of an access in a loop
/// over its SIMD lanes, so a `vec2<u64>` costs about half a `vec4<u32>`: a shader copy
/// moved 64 MiB in 38.5 ms instead of 64 ms. GPUs keep 32-bit components.
pub fn choose_access64(
    plan: &Plan,
    caps: &DeviceCaps,
    opts: &Options,
) -> Result<bool, PermuteError> {
    let applies = plan.index == IndexMath::U32
        && match plan.kernel {
            Kernel::Generic => {
                plan.unit >= 8
                    || plan.cpu.wide_stores
                    || (plan.quads && plan.unit.max(plan.dst_unit()) >= 2)
            }
            Kernel::Micro => micro_block(plan).is_ok_and(|b| b.access_bytes == 16),
            _ => false,
        };
    let refuse = |why| PermuteError::ForcedChoice {
        what: "64-bit accesses",
        why,
    };
    match opts.access64 {
        Some(true) if !caps.int64 => Err(refuse("the device lacks SHADER_INT64")),
        Some(true) if !applies => Err(refuse(
            "they move the generic kernel's 8/16-byte units, a conversion's quads of 8 or 16 bytes and wide micro blocks, with 32-bit index math",
        )),
        Some(on) => Ok(on),
        None => Ok(applies && prefers_access64(caps)),
    }
}

/// Whether a device moves data fastest as 64-bit components: CPU devices with
/// `SHADER_INT64` where a copy was measured faster so (see [`choose_access64`] and
/// [`DeviceCaps::access64_faster`]). The bench's shader copy follows it too.
pub fn prefers_access64(caps: &DeviceCaps) -> bool {
    caps.cpu && caps.int64 && caps.access64_faster
}

/// Whether the tiled kernel's strips can run this conversion (see [`super::tiled_strip`]), in
/// binding windows of `limit` bytes.
fn strips_fit(plan: &Plan, caps: &DeviceCaps, limit: u64) -> Result<(), Misfit> {
    super::tiled_strip(plan)?;
    windows_fit(plan, Kernel::Tiled, caps, limit)
}

/// Whether the micro kernel moves runs of blocks ([`MICRO_RUNS`]): on CPU devices, which
/// pay each block's decode lane by lane; on GPUs runs would spread neighbouring lanes'
/// accesses.
fn micro_runs(caps: &DeviceCaps) -> bool {
    caps.cpu
}

/// Whether the micro-tile kernel can run this plan: the innermost dim moves, 32-bit index
/// math, binding windows of `limit` bytes (see [`micro_block`]).
fn micro_fits(plan: &Plan, caps: &DeviceCaps, limit: u64) -> Result<(), Misfit> {
    // As it will run: its windows are cut in whole runs of blocks.
    let plan = &{
        let mut plan = plan.clone();
        plan.cpu.runs = micro_runs(caps);
        plan
    };
    micro_block(plan)?;
    if plan.index != IndexMath::U32 {
        return Err(Misfit::Index64);
    }
    // A flat strip's boxes are whole images (`windows::Cut`).
    windows_fit(plan, Kernel::Micro, caps, limit)
}

/// Whether `kernel` can cut the plan into boxes of whole tiles whose windows fit `limit`
/// bytes, where the tensor does not fit one binding: its smallest box fits, and neither a
/// view's bounds nor the affine's channels over the batch would count from the whole
/// tensor's corner (the kernels' bounds and batch index are relative to their dispatch's
/// box; channels of rows or columns rotate their tables per box).
pub(super) fn windows_fit(
    plan: &Plan,
    kernel: Kernel,
    caps: &DeviceCaps,
    limit: u64,
) -> Result<(), Misfit> {
    if plan.src_extent() <= limit && plan.dst_extent() <= limit {
        return Ok(());
    }
    let padded = plan.view.as_ref().is_some_and(|v| !v.bounds.is_empty());
    let batch_channels = plan.channels().is_some_and(|c| c.at == ChannelAt::Batch);
    if padded || batch_channels {
        return Err(Misfit::Windowed);
    }
    match windows::Cut::of(plan, kernel, caps)?.fits(plan, limit) {
        true => Ok(()),
        false => Err(Misfit::Windowed),
    }
}

/// The micro kernel's block for a plan whose innermost dim moves: wide where both block
/// sides divide by its side and every offset and stride of rows and batches is in whole 16
/// bytes (so each block row is aligned `vec4<u32>`s: one, or two for 16-byte units); else a wide strip where one side is
/// a short contiguous dim and the other divides (see [`Strip`]); else narrow for units of
/// up to 4 bytes with both sides divisible by [`super::MICRO_SIDE`]; else a flat strip
/// ([`super::flat_strip`]). Blocks per invocation, where the plan has runs (CPU devices):
/// an aligned column strip's [`MICRO_LANE_MAJOR_RUN`] lane-major where that makes
/// [`MICRO_LANE_MAJOR_MIN_WORKGROUPS`]; else the first of [`MICRO_RUNS`] (for a flat
/// strip, [`MICRO_FLAT_RUN`] first) that divides the blocks along the run, else 1
/// ([`usual_run`]), unless short input rows shorten it ([`short_rows_run`]).
pub fn micro_block(plan: &Plan) -> Result<Block, Misfit> {
    let block = micro_block_shape(plan)?;
    let flat_pairs = super::flat_pairs(plan, &block);
    Ok(Block {
        flat_pairs,
        ..block
    })
}

/// The micro kernel's block for this plan, but whether a flat strip reads its planes in
/// pairs ([`Block::flat_pairs`]).
fn micro_block_shape(plan: &Plan) -> Result<Block, Misfit> {
    let Some((b, r, c)) = plan.batch_rows_cols() else {
        return Err(Misfit::InnermostStays);
    };
    view_fits(plan, true)?;
    // A converting view in blocks: strided and broadcast sources (a crop, say) into a
    // contiguous output, whose positions name the affine's channels; its fill would be
    // converted, and its reversed units are not elements.
    if plan.conversion.is_some()
        && plan
            .view
            .as_ref()
            .is_some_and(|v| !v.bounds.is_empty() || v.reversed || !v.dst_contiguous)
    {
        return Err(Misfit::ViewLayout);
    }
    let (a, last) = (plan.row_dim().unwrap_or(0), plan.dims.len() - 1);
    let ins = plan.in_strides();
    let outs = plan.out_strides_by_input_dim();
    let padded = plan.view.as_ref().is_some_and(|v| !v.bounds.is_empty());
    // A conversion's two sides have elements of different sizes: the block's side is the
    // elements of the smaller in one access, and each side counts its own accesses.
    let (src_unit, dst_unit) = (plan.unit, plan.dst_unit());
    let unit = src_unit.min(dst_unit);
    let fits = |b: &Block| {
        let (q, qd) = (b.per_access(src_unit) as i64, b.per_access(dst_unit) as i64);
        let whole = |s: i64| s.rem_euclid(q) == 0;
        let whole_out = |s: i64| s.rem_euclid(qd) == 0;
        // A strip's span side needs its rows back to back instead of in whole accesses.
        let (span_in, span_out) = match b.strip {
            None => (false, false),
            Some(Strip::Cols(n)) if ins[a] == n as u64 => (true, false),
            Some(Strip::Rows(n)) if outs[last] == n as u64 => (false, true),
            Some(_) => return false,
        };
        r % b.rows() as u64 == 0
            && c % b.cols() as u64 == 0
            && (b.strip.is_none() || !padded)
            && (0..last).all(|d| (d == a && span_in) || whole(ins[d] as i64))
            && (0..=last).all(|d| d == a || (d == last && span_out) || whole_out(outs[d] as i64))
            && plan.src_start().is_multiple_of(b.access_bytes as u64)
            && plan.dst_offset.is_multiple_of(b.access_bytes as u64)
            // The source binding holds one access (a padded view that reads nothing binds
            // one unit).
            && plan.src_extent() >= b.access_bytes as u64
    };
    // A strip of a whole dim of `n` elements that square blocks cannot take: the columns,
    // else the rows (the extents `shaders::all_variants` has).
    let whole_dim = |n: u64, strip: fn(u32) -> Strip| {
        let side = Block::wide(unit)?.side as u64;
        ((2..=STRIP_MAX as u64).contains(&n) && !n.is_multiple_of(side))
            .then(|| Block::wide_strip(unit, strip(n as u32)))
            .flatten()
    };
    let candidates = [
        Block::wide(unit),
        whole_dim(c, Strip::Cols),
        whole_dim(r, Strip::Rows),
        Block::narrow(src_unit.max(dst_unit)),
    ];
    let Some(block) = candidates
        .into_iter()
        .flatten()
        .find(fits)
        .or_else(|| super::flat_strip(plan))
    else {
        return Err(Misfit::MicroSides);
    };
    // Blocks along the run: row blocks, a row strip's column blocks (a flat strip's over
    // every image).
    let along = match (super::flat_blocks(plan, &block), block.strip) {
        (Some((blocks, _)), _) => blocks,
        (None, Some(Strip::Rows(_))) => c / block.cols() as u64,
        (None, _) => r / block.rows() as u64,
    };
    if plan.cpu.runs && lane_major(plan, &block, b.saturating_mul(along)) {
        return Ok(block.lane_major(MICRO_LANE_MAJOR_RUN));
    }
    // Runs along the columns (`column_runs::choose` checked that one divides them).
    if plan.cpu.column_runs
        && let Some(run) = block.column_run(c)
    {
        return Ok(plan.batch_first(block.column_runs(run)));
    }
    if !plan.cpu.runs {
        return Ok(block.with_run(1));
    }
    // A flat strip's blocks are whole runs of their own where they can be.
    let run = match block.flat {
        true if along.is_multiple_of(MICRO_FLAT_RUN as u64) => MICRO_FLAT_RUN,
        _ => short_rows_run(plan, &block).unwrap_or_else(|| usual_run(along)),
    };
    Ok(block.with_run(run))
}

/// Whether a block's runs are lane-major ([`MICRO_LANE_MAJOR_RUN`], `blocks` in all): a
/// strip of whole input rows (pixels to planes, not flat) over at most two batch dims (each
/// block finds its bases again; a centre crop has two) that makes
/// [`MICRO_LANE_MAJOR_MIN_WORKGROUPS`] whole workgroups. Errs towards neighbour runs: the
/// other strips measured slower (and the shader has lane-major column strips only).
fn lane_major(plan: &Plan, block: &Block, blocks: u64) -> bool {
    let workgroups = blocks / (MICRO_LANE_MAJOR_RUN * MICRO_WORKGROUP) as u64;
    matches!(block.strip, Some(Strip::Cols(_)))
        && !block.flat
        && plan.batch_dims().len() <= 2
        && workgroups >= MICRO_LANE_MAJOR_MIN_WORKGROUPS
}

/// Whether the tiled kernel can run this plan at all (size aside).
fn tiled_fits(plan: &Plan, caps: &DeviceCaps, limit: u64) -> Result<(), Misfit> {
    let Some((_, r, c)) = plan.batch_rows_cols() else {
        return Err(Misfit::InnermostStays);
    };
    let tile = Tile::for_unit(plan.unit);
    view_fits(plan, false)?;
    if r % tile.pack as u64 != 0 || c % tile.pack as u64 != 0 {
        Err(Misfit::PackedSides)
    } else if plan.index != IndexMath::U32 {
        Err(Misfit::Index64)
    } else if tile.storage_bytes(plan.unit) > caps.max_workgroup_storage as u64
        || tile.words * tile.rows > caps.max_invocations
    {
        Err(Misfit::WorkgroupLimits)
    } else {
        windows_fit(plan, Kernel::Tiled, caps, limit)
    }
}
