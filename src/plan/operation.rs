//! An operation ([`Relayout`]) as the planner sees it: each of its parts a request (the
//! permute a permute is, else each view with its destination region), and the plans of
//! them all for a device.

use super::{DeviceCaps, Learned, Plan, Request, ViewRequest};
use crate::PermuteError;
use crate::relayout::Relayout;

impl Relayout {
    /// A planner's permute request as an operation: its shape, permutation, element size,
    /// offsets, forced options and conversion, every field of it. Not API: for tests.
    #[doc(hidden)]
    pub fn from_request(req: &Request) -> Result<Self, PermuteError> {
        let op = Self::permute(req.shape, req.perm, req.elem_size)?
            .with_offsets(req.src_offset, req.dst_offset)
            .with_options(req.options);
        match req.conversion {
            Some(c) => op.with_conversion(c.clone()),
            None => Ok(op),
        }
    }

    /// Plans every part for a device with `caps`, as a permuter on it would before it has
    /// learnt anything (no wgpu involved): for tools and tests. A permute (or a view that is
    /// one) may plan as several parts (`super::with_edges`: odd sides' edges, a flat strip's
    /// tail). [`Permuter::prepare`] plans on a device.
    ///
    /// [`Permuter::prepare`]: crate::Permuter::prepare
    pub fn plan(&self, caps: &DeviceCaps) -> Result<Vec<Plan>, PermuteError> {
        super::plan_op(self, caps, &Learned::default())
    }

    /// What the planner is asked for each part: the permute a permute is, else each view
    /// with its destination region from its first element on.
    pub(crate) fn requests(&self) -> Result<Vec<PartRequest<'_>>, PermuteError> {
        if let Some((shape, perm)) = &self.permute {
            let req = Request {
                conversion: self.conversion.as_deref(),
                ..Request::new(shape, perm, self.elem_size)
                    .with_offsets(self.src_offset, self.dst_offset)
                    .with_options(self.options)
            };
            return Ok(vec![PartRequest::Permute(req)]);
        }
        self.parts
            .iter()
            .map(|(view, first)| {
                // Where the part starts in the destination, in its elements' bytes.
                let part = first
                    .checked_mul(self.dst_elem_size())
                    .ok_or(PermuteError::SizeOverflow)? as u64;
                if !part.is_multiple_of(4) {
                    return Err(PermuteError::InvalidView(format!(
                        "a part of the output starts at element {first}, inside a 32-bit word: \
                         8/16-bit parts must start on whole words"
                    )));
                }
                Ok(PartRequest::View(ViewRequest {
                    view,
                    elem_size: self.elem_size,
                    src_offset: self.src_offset,
                    dst_offset: self
                        .dst_offset
                        .checked_add(part)
                        .ok_or(PermuteError::SizeOverflow)?,
                    src_len: self.src_len,
                    dst_len: self.dst_len.saturating_sub(*first),
                    fill: &self.fill,
                    options: self.options,
                    conversion: self.conversion.as_deref(),
                }))
            })
            .collect()
    }
}

/// What the planner is asked for one part of a [`Relayout`].
pub(crate) enum PartRequest<'a> {
    /// A permute of a contiguous tensor.
    Permute(Request<'a>),
    /// A view, written from a part's first destination element on.
    View(ViewRequest<'a>),
}
