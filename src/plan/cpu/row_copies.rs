//! Row copies: a permute or view whose rows stay whole moves each output row as a buffer
//! copy ([`Plan::row_copies`]), where both buffers allow copies.

use crate::PermuteError;
use crate::plan::tuning::{ROW_COPY_MAX, ROW_COPY_MIN_BYTES};
use crate::plan::{DeviceCaps, Kernel, Options, Plan};

/// Whether the plan's rows move as buffer copies: on a CPU device, rows of
/// [`ROW_COPY_MIN_BYTES`] or more that copies can move ([`Plan::row_copy_rows`]); a buffer
/// copy there runs at memory-copy speed, past binding windows too. GPUs keep their kernels:
/// how their copies of many rows compare is not measured. A forced kernel runs as forced
/// (tests and benchmarks compare kernels) unless row copies are forced too.
pub(in crate::plan) fn choose(
    plan: &Plan,
    caps: &DeviceCaps,
    opts: &Options,
) -> Result<bool, PermuteError> {
    let rows = plan.row_copy_rows();
    match opts.row_copies {
        Some(true) if rows.is_none() => Err(PermuteError::ForcedChoice {
            what: "row copies",
            why: "they need a permute or view without bounds or a conversion whose rows stay whole, in whole 32-bit words, at most 65,536 of them",
        }),
        Some(on) => Ok(on),
        None => Ok(caps.cpu
            && opts.kernel.is_none()
            && rows.is_some_and(|(_, bytes)| bytes >= ROW_COPY_MIN_BYTES)),
    }
}

#[doc(hidden)]
impl Plan {
    /// `(rows, bytes per row)` where buffer copies can move this plan: a shader kernel's
    /// permute or view without bounds or a conversion whose innermost dim stays innermost
    /// and contiguous on both sides, each row whole 32-bit words at offsets of whole words,
    /// at most [`ROW_COPY_MAX`] rows.
    pub fn row_copy_rows(&self) -> Option<(u64, u64)> {
        let last = self.dims.len().checked_sub(1)?;
        let unit = self.unit as u64;
        let kernel = matches!(self.kernel, Kernel::Generic | Kernel::Tiled | Kernel::Micro);
        if !kernel || self.conversion.is_some() || self.row_dim().is_some() {
            return None;
        }
        let (ins, outs) = (self.in_strides(), self.out_strides_by_input_dim());
        // A view's strides are its signed ones as `u64`: casting back is exact.
        let ins: Vec<i64> = ins.iter().map(|&s| s as i64).collect();
        let contiguous = ins[last] == 1 && outs[last] == 1;
        let bounded = self.view.as_ref().is_some_and(|v| !v.bounds.is_empty());
        let bytes = self.dims[last] * unit;
        let words = |stride: u64| (stride * unit).is_multiple_of(4);
        let aligned = bytes.is_multiple_of(4)
            && self.src_start().is_multiple_of(4)
            && self.dst_offset.is_multiple_of(4)
            && (0..last).all(|d| words(ins[d].unsigned_abs()) && words(outs[d]));
        let rows = self.units() / self.dims[last];
        (contiguous && !bounded && aligned && rows <= ROW_COPY_MAX).then_some((rows, bytes))
    }

    /// [`Plan::row_copy_rows`] where the plan moves its rows as copies ([`Plan::row_copies`]).
    pub fn copied_rows(&self) -> Option<(u64, u64)> {
        self.row_copy_rows().filter(|_| self.cpu.row_copies)
    }

    /// The row copies, in output order: `(source offset, destination offset)` in bytes of
    /// each row, and the bytes of one. Empty unless [`Plan::row_copies`].
    pub fn row_copy_steps(&self) -> (Vec<(u64, u64)>, u64) {
        let Some((rows, bytes)) = self.copied_rows() else {
            return (Vec::new(), 0);
        };
        let (ins, outs, unit) = (
            self.in_strides(),
            self.out_strides_by_input_dim(),
            self.unit as i64,
        );
        let last = self.dims.len() - 1;
        // Output order, innermost last, without the rows' own dim.
        let order: Vec<usize> = self
            .dims_perm
            .iter()
            .copied()
            .filter(|&d| d != last)
            .collect();
        let mut index = vec![0u64; self.dims.len()];
        let mut steps = Vec::with_capacity(rows as usize);
        for _ in 0..rows {
            let src = (0..last)
                .map(|d| index[d] as i64 * ins[d] as i64 * unit)
                .sum::<i64>();
            let dst = (0..last)
                .map(|d| index[d] * outs[d] * unit as u64)
                .sum::<u64>();
            steps.push((
                self.src_start().wrapping_add_signed(src),
                self.dst_offset + dst,
            ));
            for &d in order.iter().rev() {
                index[d] += 1;
                if index[d] < self.dims[d] {
                    break;
                }
                index[d] = 0;
            }
        }
        (steps, bytes)
    }
}
