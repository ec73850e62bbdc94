//! The tiled kernel's strips: where one side of a conversion is a short dim (2 to
//! [`STRIP_MAX`] colour channels) that square tiles cannot take ([`tiled_strip`]).

use super::tuning::STRIP_MAX;
use super::{IndexMath, Misfit, Plan, Strip};

/// The tiled kernel's strips for a conversion between an interleaved `[L, n]` and a planar
/// `[n, L]` layout of each batch (colour channels): the short dim `n` (2 to
/// [`STRIP_MAX`]) is the columns, back to back in the source ([`Strip::Cols`]), or the
/// rows, back to back in the destination ([`Strip::Rows`]); `L` divides into quads of 4,
/// and every offset and stride keeps a quad one access on the planar side and the
/// interleaved side's tile in whole words. One binding, 32-bit index math.
pub fn tiled_strip(plan: &Plan) -> Result<Strip, Misfit> {
    let Some((_, r, c)) = plan.batch_rows_cols() else {
        return Err(Misfit::InnermostStays);
    };
    if plan.conversion.is_none() || plan.view.is_some() {
        return Err(Misfit::ViewLayout);
    }
    if plan.index != IndexMath::U32 {
        return Err(Misfit::Index64);
    }
    let (a, last) = (plan.row_dim().unwrap_or(0), plan.dims.len() - 1);
    let ins = plan.in_strides();
    let outs = plan.out_strides_by_input_dim();
    let (ss, ds) = (plan.unit as u64, plan.dst_unit() as u64);
    // Elements per word on each side (a word holds one to four elements).
    let (spw, dpw) = (4 / ss, 4 / ds);
    let short = |n: u64| (2..=STRIP_MAX as u64).contains(&n);
    let batch = plan.batch_dims();
    let strip = if short(c) && ins[a] == c && r.is_multiple_of(4) {
        // Interleaved source (whole words per tile), planar destination (quads).
        let words = |s: u64| s.is_multiple_of(spw);
        let quads = |s: u64| s.is_multiple_of(4);
        (words(plan.src_start() / ss) && batch.iter().all(|&d| words(ins[d])))
            .then_some(())
            .filter(|()| {
                plan.dst_offset.is_multiple_of(4 * ds)
                    && quads(outs[last])
                    && batch.iter().all(|&d| quads(outs[d]))
            })
            .map(|()| Strip::Cols(c as u32))
    } else if short(r) && outs[last] == r && c.is_multiple_of(4) {
        // Planar source (quads), interleaved destination (whole words per tile).
        let words = |s: u64| s.is_multiple_of(dpw);
        let quads = |s: u64| s.is_multiple_of(4);
        (plan.src_start().is_multiple_of(4 * ss)
            && quads(ins[a])
            && batch.iter().all(|&d| quads(ins[d])))
        .then_some(())
        .filter(|()| words(plan.dst_offset / ds) && batch.iter().all(|&d| words(outs[d])))
        .map(|()| Strip::Rows(r as u32))
    } else {
        None
    };
    strip.ok_or(Misfit::Strips)
}

impl Plan {
    /// The tiled kernel's strip for this plan ([`tiled_strip`]).
    pub(crate) fn strip(&self) -> Result<Strip, Misfit> {
        tiled_strip(self)
    }
}
