//! Choices, each returned with the reason it was made ([`super::reasons`]): the kernel,
//! the index width, whether the generic kernel is compiled for the shape, runs, wide stores
//! and 64-bit accesses, and the micro kernel's block (whether runs scatter: `super::walk`).

use super::tuning::*;
use super::{ChannelAt, DeviceCaps, IndexMath, Kernel, Options, Plan, Tile, windows};
use crate::PermuteError;
use crate::plan::{
    Figures, IndexReason, KernelReason, Learned, Measured, Misfit, Modelling, Tuning,
};

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
            Kernel::Micro => misfit("micro kernel", plan.micro_fits(caps, limit)),
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
        Kernel::Micro => plan.micro_fits(caps, limit).is_ok(),
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
    if caps.cpu_family() {
        plan.cpu_kernel(caps, opts, limit)
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
        Some(Kernel::Micro) => plan
            .micro_fits(caps, limit)
            .map(|()| (Kernel::Micro, KernelReason::Forced))
            .map_err(|m| refuse("micro kernel", m.why())),
        Some(Kernel::Tiled) => strips_fit(plan, caps, limit)
            .map(|()| (Kernel::Tiled, KernelReason::Forced))
            .map_err(|m| refuse("tiled kernel", m.why())),
        Some(_) => Err(refuse(
            "kernel",
            "conversions run on the generic, tiled and micro kernels",
        )),
        None if caps.cpu_family() && plan.micro_fits(caps, limit).is_ok() => {
            Ok((Kernel::Micro, KernelReason::CpuMicro))
        }
        None if !caps.cpu_family() && strips_fit(plan, caps, limit).is_ok() => {
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
        Some(Kernel::Micro) => plan
            .micro_fits(caps, limit)
            .map(|()| (Kernel::Micro, KernelReason::Forced))
            .map_err(|m| refuse("micro kernel", m.why())),
        Some(k) => Err(refuse(
            k.name(),
            "a strided view that is not a permute runs on the generic, tiled or micro kernel (or a copy)",
        )),
        None => Ok(match plan.batch_rows_cols() {
            Some((_, rows, cols)) if view_fits(plan, caps.cpu_family()).is_ok() => {
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
pub(super) fn view_fits(plan: &Plan, micro: bool) -> Result<(), Misfit> {
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

/// Whether the tiled kernel's strips can run this conversion (see [`super::tiled_strip`]), in
/// binding windows of `limit` bytes.
fn strips_fit(plan: &Plan, caps: &DeviceCaps, limit: u64) -> Result<(), Misfit> {
    super::tiled_strip(plan)?;
    windows_fit(plan, Kernel::Tiled, caps, limit)
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
