//! The generic kernel's walk (CPU devices' runs): over the output's dims, gathering, or
//! over the source's, scattering ([`Plan::scatter`]), and the choice between them.

use super::tuning::{GENERIC_WORKGROUP, PAGE_BYTES};
use super::{Kernel, Options, Plan};
use crate::PermuteError;

impl Plan {
    /// What the generic kernel's items walk: the dims they enumerate (outermost first) and
    /// each dim's stride on the side they decode. A gather walks the output's dims with
    /// their source strides; a scatter ([`Plan::scatter`]) the source's dims with their
    /// output strides.
    pub fn walk(&self) -> (Vec<u64>, Vec<u64>) {
        self.walk_of(self.scatter)
    }

    /// [`Plan::walk`] as a scatter (`true`) or a gather would walk, whichever the plan chose.
    pub fn walk_of(&self, scatter: bool) -> (Vec<u64>, Vec<u64>) {
        if scatter {
            return (self.dims.clone(), self.out_strides_by_input_dim());
        }
        let in_strides = self.in_strides();
        let strides = self.dims_perm.iter().map(|&d| in_strides[d]).collect();
        (self.out_dims(), strides)
    }
}

/// Whether the generic kernel's runs scatter ([`Plan::scatter`]): runs (CPU devices) of a
/// plain permute whose innermost dim stays innermost, without wide stores, or a
/// conversion's runs of quads, where one workgroup's runs walked in source order write at
/// most half as many pages ([`PAGE_BYTES`]) as gathering them reads. A CPU's prefetchers
/// stop at a page: gathering `[8,512,16,64] (0,2,1,3)` f32 reads 128 rows 4 KiB apart per
/// workgroup (3.9 ms on lavapipe, the shader copy of its bytes 2.8), scattering writes 16
/// pages' worth of sequential rows (3.3 ms); where both sides' rows are as far apart
/// (`[512,512,64] (1,0,2)`), neither order wins.
pub(super) fn choose_scatter(plan: &Plan, opts: &Options) -> Result<bool, PermuteError> {
    let last = plan.dims.len() - 1;
    let applies = plan.runs
        && plan.kernel == Kernel::Generic
        && !plan.wide_stores
        && plan.view.is_none()
        && (plan.conversion.is_none() || plan.quads)
        && plan.chunks.len() == 1
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
