//! Whether a plan's kernel is compiled for its shape (`Plan::specialized`).

use super::reasons::{Learned, SpecializeReason};
use super::tuning::{SPECIALIZE_MIN_BYTES, SPECIALIZE_PAYBACK_BYTES};
use super::{IndexMath, Kernel, Options, Plan, windows};

/// Whether to bake the shape into the generic or micro kernel: large tensors, while the
/// budget of specialised pipelines lasts (a shape that has its own pipeline keeps it). Not
/// for 64-bit index math, padded or strided views on the generic kernel, nor conversions
/// on the generic kernel; past one binding, for boxes of one shape only (micro boxes, walks
/// in tiles, and the generic kernel's plain boxes): their offsets stay uniforms, one
/// pipeline runs every box.
pub(super) fn choose_specialize(
    plan: &Plan,
    opts: &Options,
    learned: &Learned,
) -> Option<(bool, SpecializeReason)> {
    let converting = plan.conversion.is_some();
    // Micro blocks measured faster so (and listed, `shaders::all_variants`): lane-major
    // strips, and square blocks of plain permutes (in runs of any length: the 6-D permute's
    // runs of 2, before it took column runs, gained 15%, its four batch dims decoded by
    // constants).
    let listed = |b: super::Block| b.lane_major || (!converting && b.strip.is_none());
    match plan.kernel {
        Kernel::Micro if plan.micro_block().is_ok_and(listed) => {}
        Kernel::Generic if !converting => {}
        Kernel::Micro => return Some((false, SpecializeReason::NotApplicable)),
        _ if converting => return Some((false, SpecializeReason::NotApplicable)),
        _ => return None,
    }
    // Views on micro blocks too (bounds compiled in, and part of the shape's key): a padded
    // NCHW4c view's blocks moved 17% faster so, and 0.67-0.73 -> 0.44-0.49 ms with its
    // bounds folded. On the generic kernel, views that gather into a whole output as a
    // permute does (their strides, the shape key's, compiled in): the stacked runs of the
    // `[8192,4096]` slice `::2` and flips of `[4096,4096]` took 11.8-13.1 ms on uniforms
    // and 10.5-11.1 with their row and step constants; its padded and strided view layouts
    // have no such variants.
    let unlisted_view = plan.kernel != Kernel::Micro
        && plan
            .view
            .as_ref()
            .is_some_and(|v| plan.generic_padded() || !v.dst_contiguous);
    let own_box_shape = plan.kernel == Kernel::Micro || windows::walk_layout(plan);
    let one_shape = plan.plain_boxes || (own_box_shape && plan.boxes_of_one_shape());
    if plan.index != IndexMath::U32 || (plan.boxed() && !one_shape) || unlisted_view {
        return Some((false, SpecializeReason::NotApplicable));
    }
    let compiled = learned.specialized.contains(&plan.shape_key());
    let budget_left = learned.specialized.len() < learned.max_specialized;
    // The budget bounds forced specialisation too: it is what keeps memory bounded.
    Some(match opts.specialize {
        Some(false) => (false, SpecializeReason::Forced),
        _ if compiled => (true, SpecializeReason::Compiled),
        _ if !budget_left && opts.specialize == Some(true) => {
            (false, SpecializeReason::BudgetSpent)
        }
        Some(true) => (true, SpecializeReason::Forced),
        None if plan.bytes < SPECIALIZE_MIN_BYTES => (false, SpecializeReason::Small),
        None if !budget_left => (false, SpecializeReason::BudgetSpent),
        None if learned
            .uniform_bytes
            .get(&plan.shape_key())
            .map_or(0, |&b| b)
            .saturating_add(plan.bytes)
            <= SPECIALIZE_PAYBACK_BYTES =>
        {
            (false, SpecializeReason::Unpaid)
        }
        None => (true, SpecializeReason::Large),
    })
}

/// Whether autotuning times a contender for `plan`'s shape compiled for it: yes where the
/// shape is large enough to be compiled for once its compile pays back
/// ([`SPECIALIZE_MIN_BYTES`]), so that the race measures what serves the class from then
/// on (on lavapipe the micro kernel's column runs gained 19% from shape constants where
/// its usual order gained nothing, and lost 3% without them:
/// docs/history/19-cpu-round-29.md); the request's own choice where it forces one.
pub fn race_specialize(plan: &Plan, opts: &Options) -> Option<bool> {
    opts.specialize
        .or((plan.bytes >= SPECIALIZE_MIN_BYTES).then_some(true))
}

impl Learned {
    /// Counts a recorded plan's bytes towards its shape's own pipeline, when it is one
    /// that waits for them ([`SpecializeReason::Unpaid`]).
    pub fn count_uniform(&mut self, plan: &Plan) {
        if plan.reasons.specialize != Some(SpecializeReason::Unpaid) {
            return;
        }
        let key = plan.shape_key();
        if self.uniform_bytes.len() < crate::plan::tuning::MAX_COUNTED
            || self.uniform_bytes.contains_key(&key)
        {
            *self.uniform_bytes.entry(key).or_default() += plan.bytes;
        }
    }
}
