//! Where a conversion's affine finds an element's channel in the simplified dims: the
//! register-block kernel reads it off one index of its block (a row, a column, or the
//! batch) instead of dividing each element's output position.

use super::{ChannelAt, Kernel, Plan, Strip};

/// An affine's channels over the simplified dims: channel = `(index / step) % count` of
/// the index `at` names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Channels {
    /// Which index.
    pub at: ChannelAt,
    /// Steps of that index per channel.
    pub step: u64,
    /// Channels.
    pub count: u64,
}

#[doc(hidden)]
impl Plan {
    /// The affine's channels, when it has more than one value (else every element takes
    /// the first). Simplification keeps the channel axis inside one simplified dim `d`, the
    /// one whose output span holds the axis's output stride: there the channel is
    /// `(i_d / (stride / out_stride_d)) % channels` of `d`'s index `i_d`.
    pub fn channels(&self) -> Option<Channels> {
        let a = self.conversion.as_ref()?.affine()?;
        if a.scale.len() <= 1 {
            return None;
        }
        let out: Vec<u64> = self.perm.iter().map(|&p| self.shape[p] as u64).collect();
        let stride: u64 = out[a.axis + 1..].iter().product();
        let count = out[a.axis];
        let outs = self.out_strides_by_input_dim();
        let d = (0..self.dims.len()).find(|&d| {
            outs[d] <= stride && stride < outs[d] * self.dims[d] && stride.is_multiple_of(outs[d])
        })?;
        let step = stride / outs[d];
        let last = self.dims.len() - 1;
        if d == last {
            return Some(Channels {
                at: ChannelAt::Cols,
                step,
                count,
            });
        }
        if Some(d) == self.row_dim() {
            return Some(Channels {
                at: ChannelAt::Rows,
                step,
                count,
            });
        }
        // The batch index counts the batch dims in order, the last fastest.
        let batch = self.batch_dims();
        let k = batch.iter().position(|&b| b == d)?;
        let below: u64 = batch[k + 1..].iter().map(|&b| self.dims[b]).product();
        Some(Channels {
            at: ChannelAt::Batch,
            step: step * below,
            count,
        })
    }

    /// The channel positions of a strip whose whole short dim carries the affine's channels
    /// (3 colour channels of interleaved pixels or of planes): `Some(n)`, the strip's
    /// extent, where the plan's kernel moves such a strip. Its channels are then known before
    /// the dispatch, so its conversion words hold each position's scale and bias (step 1,
    /// `shaders::tiled::box_convert_block`) and the kernel reads them at constant words: a
    /// uniform table read at a computed word costs lavapipe a loop over the SIMD lanes, six
    /// of them 6% of the 224-pixel image conversion.
    pub fn channels_by_position(&self) -> Option<u32> {
        let at = self.channels()?.at;
        let strip = match self.kernel {
            Kernel::Micro => self.micro_block().ok()?.strip?,
            Kernel::Tiled if self.conversion.is_some() => super::tiled_strip(self).ok()?,
            _ => return None,
        };
        let (Strip::Cols(n) | Strip::Rows(n)) = strip;
        strip.carries(at).then_some(n)
    }
}

impl Strip {
    /// Whether the strip's short dim (taken whole) is the block index `at` names: then its
    /// channels sit at fixed positions (`Plan::channels_by_position`).
    pub fn carries(self, at: ChannelAt) -> bool {
        matches!(
            (self, at),
            (Strip::Cols(_), ChannelAt::Cols) | (Strip::Rows(_), ChannelAt::Rows)
        )
    }
}
