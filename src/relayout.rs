//! [`Relayout`]: one movement of a tensor's elements into a new layout, as a value. Every
//! kind of movement the crate does is built as one (a permute, a strided view, an einops
//! pattern with or without padding, a crop back, parts of one output), checked when it is
//! built, and then recorded into the caller's encoder ([`Permuter::record`]) or run as a
//! host round trip ([`Permuter::run`]). Pure: no wgpu types.
//!
//! Each is a list of views of the source, each writing the destination from its first
//! element on: one view for a permute, a slice or a padded rearrangement, several disjoint
//! ones for a crop or a concat. A view that is a permute plans exactly as the permute.
//!
//! [`Permuter::record`]: crate::Permuter::record
//! [`Permuter::run`]: crate::Permuter::run

use crate::PermuteError;
use crate::convert::Conversion;
use crate::options::Options;
use crate::rearrange::rearrange;
use crate::view::{ELEM_SIZES, View, element_count};

/// One movement of a tensor's elements into a new layout; see the [module docs](self).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Relayout {
    pub(crate) parts: Vec<(View, usize)>,
    /// The shape and permutation of a permute (or of an unpadded rearrangement), which is
    /// planned as the permute it is: its plan reports the caller's shape, and no view is
    /// planned first only to find that it is a permute.
    pub(crate) permute: Option<(Vec<usize>, Vec<usize>)>,
    pub(crate) out_shape: Vec<usize>,
    pub(crate) src_len: usize,
    pub(crate) dst_len: usize,
    pub(crate) elem_size: usize,
    pub(crate) fill: Vec<u8>,
    pub(crate) src_offset: u64,
    pub(crate) dst_offset: u64,
    pub(crate) options: Options,
    /// Boxed: most operations have none, and a `Relayout` travels by value.
    pub(crate) conversion: Option<Box<Conversion>>,
}

impl Relayout {
    /// Output dim `i` is input dim `perm[i]` of a contiguous tensor of `shape`.
    pub fn permute(
        shape: &[usize],
        perm: &[usize],
        elem_size: usize,
    ) -> Result<Self, PermuteError> {
        let n = element_count(shape)?;
        let view = View::permuted(shape, perm)?;
        let out_shape = view.shape.clone();
        let op = Self::new(vec![(view, 0)], out_shape, n, n, elem_size)?;
        Ok(Relayout {
            permute: Some((shape.to_vec(), perm.to_vec())),
            ..op
        })
    }

    /// `view` of a source of `src_len` elements, written contiguously (or through the view's
    /// destination strides); the output's shape is the view's.
    pub fn view(view: View, src_len: usize, elem_size: usize) -> Result<Self, PermuteError> {
        let dst_len = view.dst_span()?;
        let out_shape = match view.dst_strides {
            None => view.shape.clone(),
            Some(_) => vec![dst_len],
        };
        Self::new(vec![(view, 0)], out_shape, src_len, dst_len, elem_size)
    }

    /// `einops.rearrange(x, pattern, **axes)` of a contiguous tensor of `shape`: one permute
    /// of its elementary axes. Every split must divide; [`Relayout::rearrange_padded`] pads.
    pub fn rearrange(
        pattern: &str,
        shape: &[usize],
        axes: &[(&str, usize)],
        elem_size: usize,
    ) -> Result<Self, PermuteError> {
        let r = rearrange(pattern, shape, axes, false)?;
        let op = Self::permute(&r.split_shape, &r.perm, elem_size)?;
        Ok(Relayout {
            out_shape: r.out_shape,
            ..op
        })
    }

    /// [`Relayout::rearrange`] where a split that does not divide rounds its inferred axis
    /// up and the tail reads `fill` (one element's bytes): `n (cb c) h w -> n cb h w c` with
    /// `c = 4` on 6 channels gives `cb = 2`, channels 6 and 7 filled (NCHW -> NCHW4c).
    pub fn rearrange_padded(
        pattern: &str,
        shape: &[usize],
        axes: &[(&str, usize)],
        elem_size: usize,
        fill: &[u8],
    ) -> Result<Self, PermuteError> {
        let r = rearrange(pattern, shape, axes, true)?;
        let view = r.view(&contiguous(shape)?)?;
        let len = view.len();
        Self::new(
            vec![(view, 0)],
            r.out_shape,
            element_count(shape)?,
            len,
            elem_size,
        )
        .map(|op| op.with_fill(fill))
    }

    /// [`Relayout::rearrange`] with its output cropped to `crop` (the first `crop[j]`
    /// indices of output dim `j`): the way back from a padded layout, `n cb h w c -> n (cb
    /// c) h w` cropped to `[n, 6, h, w]`. Several disjoint views, one pass.
    pub fn rearrange_cropped(
        pattern: &str,
        shape: &[usize],
        axes: &[(&str, usize)],
        elem_size: usize,
        crop: &[usize],
    ) -> Result<Self, PermuteError> {
        let r = rearrange(pattern, shape, axes, false)?;
        let parts = r.cropped_views(&contiguous(shape)?, crop)?;
        let (n, len) = (element_count(shape)?, element_count(crop)?);
        Self::new(parts, crop.to_vec(), n, len, elem_size)
    }

    /// Views of one source that write disjoint parts of one output of `dst_len` elements,
    /// each from its first destination element (a concat, or boxes of a tensor). Parts that
    /// share an element are refused.
    pub fn parts(
        parts: Vec<(View, usize)>,
        src_len: usize,
        dst_len: usize,
        elem_size: usize,
    ) -> Result<Self, PermuteError> {
        Self::new(parts, vec![dst_len], src_len, dst_len, elem_size)
    }

    /// The regions at these byte offsets of the buffers (multiples of 4) when recorded.
    pub fn with_offsets(self, src_offset: u64, dst_offset: u64) -> Self {
        Relayout {
            src_offset,
            dst_offset,
            ..self
        }
    }

    /// One element's bytes for the positions outside a padded view's bounds.
    pub fn with_fill(self, fill: &[u8]) -> Self {
        Relayout {
            fill: fill.to_vec(),
            ..self
        }
    }

    /// Choices forced instead of the heuristics.
    pub fn with_options(self, options: Options) -> Self {
        Relayout { options, ..self }
    }

    /// Each element converted on the way (see [`crate::convert`]): `conversion`'s source
    /// type must have the operation's element size, and its affine's axis (an output axis)
    /// and channel count must fit the output. Permutes, views (slices, flips, broadcasts,
    /// rearrangements, padding) and crops (per-channel values need one part), within one
    /// storage binding; a padded view's fill ([`Relayout::with_fill`]) is then one
    /// destination element, written as it is.
    pub fn with_conversion(self, conversion: Conversion) -> Result<Self, PermuteError> {
        let refuse = |why: String| Err(PermuteError::InvalidConversion(why));
        if self.parts.len() > 1 && conversion.affine().is_some_and(|a| a.scale.len() > 1) {
            return refuse(
                "per-channel values over an operation of several parts (a crop of merged axes) \
                 do not convert yet"
                    .into(),
            );
        }
        if conversion.from().size() != self.elem_size {
            return refuse(format!(
                "the source type {} has {} bytes but the elements have {}",
                conversion.from().name(),
                conversion.from().size(),
                self.elem_size
            ));
        }
        conversion.check(&self.out_shape)?;
        Ok(Relayout {
            conversion: Some(Box::new(conversion)),
            ..self
        })
    }

    /// The conversion, if any.
    pub fn conversion(&self) -> Option<&Conversion> {
        self.conversion.as_deref()
    }

    /// Bytes per destination element: the element size, or the conversion's destination
    /// type's.
    pub fn dst_elem_size(&self) -> usize {
        self.conversion
            .as_ref()
            .map_or(self.elem_size, |c| c.to().size())
    }

    /// The output's shape (one dim, the span, for strided outputs and parts).
    pub fn out_shape(&self) -> &[usize] {
        &self.out_shape
    }

    /// Bytes per element.
    pub fn elem_size(&self) -> usize {
        self.elem_size
    }

    /// Elements the source region holds.
    pub fn src_len(&self) -> usize {
        self.src_len
    }

    /// Elements the destination region holds.
    pub fn dst_len(&self) -> usize {
        self.dst_len
    }

    /// The views and the first destination element of each.
    pub fn views(&self) -> &[(View, usize)] {
        &self.parts
    }

    /// The fill value (empty without bounds).
    pub fn fill(&self) -> &[u8] {
        &self.fill
    }

    /// Byte offsets of the source and destination regions.
    pub fn offsets(&self) -> (u64, u64) {
        (self.src_offset, self.dst_offset)
    }

    /// The forced choices.
    pub fn options(&self) -> Options {
        self.options
    }

    /// Checks what can be checked without a device: the element size, the regions' bytes,
    /// and the parts together (each inside both regions, none sharing an element).
    fn new(
        parts: Vec<(View, usize)>,
        out_shape: Vec<usize>,
        src_len: usize,
        dst_len: usize,
        elem_size: usize,
    ) -> Result<Self, PermuteError> {
        if !ELEM_SIZES.contains(&elem_size) {
            return Err(PermuteError::ElemSize(elem_size));
        }
        for len in [src_len, dst_len] {
            len.checked_mul(elem_size)
                .ok_or(PermuteError::SizeOverflow)?;
        }
        crate::view::parts::check_parts(&parts, src_len, dst_len)?;
        Ok(Relayout {
            parts,
            permute: None,
            out_shape,
            src_len,
            dst_len,
            elem_size,
            fill: Vec::new(),
            src_offset: 0,
            dst_offset: 0,
            options: Options::default(),
            conversion: None,
        })
    }
}

/// Row-major element strides of a contiguous tensor of `shape`, checked.
fn contiguous(shape: &[usize]) -> Result<Vec<isize>, PermuteError> {
    element_count(shape)?;
    crate::view::row_major(shape)
        .into_iter()
        .map(|s| isize::try_from(s).map_err(|_| PermuteError::SizeOverflow))
        .collect()
}
