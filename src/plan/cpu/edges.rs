//! Edges: a permute that micro blocks would take but for sides they do not divide (4095
//! rows) runs in parts on a CPU device: its body in whole blocks on the micro kernel, its
//! two thin edges on the generic kernel, each part a view that writes its box of the output
//! in place. The generic kernel alone took 1.3-3x as long on lavapipe (Intel Xeon; three
//! alternating bench runs, medians): `[4095,4095] (1,0)` f32 96 ms against 44 in parts,
//! `[4097,4099]` 114 against 41, `[1001,1001]` 2.25 against 1.79, `[63,64,65,64]
//! (3,2,1,0)` 212 against 71. Only where the permute moves [`EDGE_SPLIT_BYTES`] or more:
//! below, the parts' dispatches cost more than they save.
//! Autotuning races the parts against each kernel alone ([`Measured::Parts`]).
//!
//! A flat strip's plan (`plan::flat_strip`) runs in parts too where the pixels of all its
//! images are not a whole number of runs of blocks: the blocks, then the last image's last
//! pixels ([`flat_tail`]) as a view on the generic kernel. One image of 299 pixels a side
//! ran element by element on the generic kernel alone, 4x slower
//! (docs/history/03-cpu-rounds-7-13.md, ninth round).

use crate::plan::{
    Block, EDGE_SPLIT_BYTES, KernelReason, Learned, MICRO_SIDE, Misfit, STRIP_MAX, flat_tail,
};
use crate::{DeviceCaps, Kernel, Options, PermuteError, Plan, View, ViewRequest, plan_view};

/// The parts of `plan` (a permute planned on the generic kernel only because micro blocks
/// do not divide its sides): the body in whole wide blocks of rows and columns (a side of
/// at most [`STRIP_MAX`] whole, as a strip takes it), then the edge rows (all columns) and
/// the body rows' edge columns, as views of the request's simplified dims, each with the
/// destination element where it starts. `None` where the plan is anything else, or there
/// is no body.
pub fn edge_parts(plan: &Plan) -> Option<Vec<(View, usize)>> {
    let generic_for_sides = plan.kernel == Kernel::Generic
        && plan.reasons.kernel == KernelReason::CpuNoMicro(Misfit::MicroSides);
    // Views are parts already; conversions that blocks refuse keep their own reason
    // (`select::choose_convert_kernel`); a wider unit than the element is not a view's
    // element.
    if !generic_for_sides
        || plan.view.is_some()
        || plan.conversion.is_some()
        || plan.unit as usize != plan.elem_size
    {
        return None;
    }
    let (rows, cols) = (plan.row_dim()?, plan.dims.len() - 1);
    // The wide side is a multiple of the narrow one: bodies fit either.
    let side = Block::wide(plan.unit).map_or(MICRO_SIDE, |b| b.side) as u64;
    let whole = |n: u64| match n <= STRIP_MAX as u64 {
        true => n,
        false => n / side * side,
    };
    let (r, c) = (plan.dims[rows], plan.dims[cols]);
    let (r_body, c_body) = (whole(r), whole(c));
    if plan.bytes < EDGE_SPLIT_BYTES {
        return None;
    }
    if r_body == 0 || c_body == 0 || (r_body == r && c_body == c) {
        return None;
    }
    let part = |lo: &[u64], hi: &[u64]| box_view(plan, lo, hi);
    let lo = vec![0u64; plan.dims.len()];
    let with = |mut v: Vec<u64>, d: usize, x: u64| {
        v[d] = x;
        v
    };
    let body_hi = with(with(plan.dims.clone(), rows, r_body), cols, c_body);
    let mut parts = vec![part(&lo, &body_hi)];
    if r_body < r {
        parts.push(part(&with(lo.clone(), rows, r_body), &plan.dims));
    }
    if c_body < c {
        let hi = with(plan.dims.clone(), rows, r_body);
        parts.push(part(&with(lo.clone(), cols, c_body), &hi));
    }
    Some(parts)
}

/// The box `lo..hi` (per simplified input dim) of a permute's plan as a view in output
/// order, with the destination element where it starts.
fn box_view(plan: &Plan, lo: &[u64], hi: &[u64]) -> (View, usize) {
    let (in_strides, out_strides) = (plan.in_strides(), plan.out_strides_by_input_dim());
    let at = |strides: &[u64]| (0..lo.len()).map(|d| lo[d] * strides[d]).sum::<u64>();
    let order = plan.dims_perm.iter();
    let view = View {
        shape: order.clone().map(|&d| (hi[d] - lo[d]) as usize).collect(),
        strides: order.clone().map(|&d| in_strides[d] as isize).collect(),
        offset: at(&in_strides) as isize, // below the element count, which fits
        bounds: Vec::new(),
        dst_strides: Some(order.map(|&d| out_strides[d] as usize).collect()),
    };
    (view, at(&out_strides) as usize)
}

/// The plans a permute planned as `plan` runs: its parts' (see [`edge_parts`]), the body's
/// first, where the body then runs on the micro kernel; a flat strip's, then its tail
/// ([`flat_tail`]); else `plan` alone.
pub fn with_edges(
    plan: Plan,
    options: Options,
    caps: &DeviceCaps,
    learned: &Learned,
) -> Result<Vec<Plan>, PermuteError> {
    if let Some((lo, hi, short)) = flat_tail(&plan) {
        let limit = options.binding_limit;
        let tail = tail_plan(&plan, (&lo, &hi), short, limit, caps, learned)?;
        return Ok(vec![plan, tail]);
    }
    let Some(parts) = edge_parts(&plan) else {
        return Ok(vec![plan]);
    };
    let mut plans = Vec::with_capacity(parts.len());
    for (view, first) in &parts {
        let req = part_request(&plan, view, *first).with_options(options);
        // A part the views refuse (an edge of packed data in part of a word, a device limit
        // that the whole permute's plan met otherwise, a forced option that a part cannot
        // take): the one plan. Nothing else may refuse one: the parts tile the output
        // (tests check them).
        match plan_view(&req, caps, learned) {
            Ok(part) => plans.push(part),
            Err(e) => {
                debug_assert!(
                    matches!(
                        e,
                        PermuteError::InvalidView(_)
                            | PermuteError::DeviceLimit { .. }
                            | PermuteError::ForcedChoice { .. }
                    ),
                    "{e}"
                );
                return Ok(vec![plan]);
            }
        }
    }
    Ok(match plans[0].kernel {
        Kernel::Micro => plans,
        _ => vec![plan],
    })
}

/// The plan of a flat strip's tail (the last pixels its blocks do not cover, the box
/// `lo..hi`): a view of the same request, as the view planner plans it (fewer pixels than
/// a run of blocks: the generic kernel, mostly), its affine (if any) over the short dim
/// `short`, with no forced choices (the request's were the blocks') but its binding limit.
fn tail_plan(
    plan: &Plan,
    (lo, hi): (&[u64], &[u64]),
    short: usize,
    binding_limit: Option<u64>,
    caps: &DeviceCaps,
    learned: &Learned,
) -> Result<Plan, PermuteError> {
    let (view, first) = box_view(plan, lo, hi);
    // The view's dims are in output order: the short dim's place there is its axis.
    let axis = plan.dims_perm.iter().take_while(|&&d| d != short).count();
    let conversion = match &plan.conversion {
        // `plan::flat_strip` took one value, or one per channel of the short dim.
        Some(c) => Some(match c.affine() {
            Some(a) => c.clone().with_affine(axis, &a.scale, &a.bias)?,
            None => c.clone(),
        }),
        None => None,
    };
    let req = ViewRequest {
        conversion: conversion.as_ref(),
        ..part_request(plan, &view, first)
    }
    .with_options(Options {
        binding_limit,
        ..Options::default()
    });
    plan_view(&req, caps, learned)
}

/// The request of a part of `plan` (`view`, from destination unit `first` on): a view of
/// the plan's units (wider than its elements where dims merged; elements, where
/// converting) over the request's regions, no fill, no conversion, default options.
fn part_request<'a>(plan: &Plan, view: &'a View, first: usize) -> ViewRequest<'a> {
    let (unit, dst_unit) = (plan.unit as usize, plan.dst_unit() as usize);
    let n = (plan.bytes / unit as u64) as usize;
    ViewRequest::new(view, unit, n, n - first)
        .with_offsets(plan.src_offset, plan.dst_offset + (first * dst_unit) as u64)
}

#[doc(hidden)]
impl Plan {
    /// Whether autotuning times this plan in parts too ([`super::with_edges`]: the body on
    /// micro blocks, the edges generic) against [`Plan::pending_race`]'s kernels alone.
    pub fn pending_parts(&self) -> bool {
        !self.pending_race().is_empty() && edge_parts(self).is_some()
    }
}
