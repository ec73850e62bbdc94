//! Planning a view ([`ViewRequest`], [`plan_view`]): checked, then planned as the permute it
//! is where it is one, or lowered for the generic kernel.

use crate::plan::{
    Conversion, CpuChoices, KernelReason, Learned, Reasons, ViewLayout, binding_limit, finish,
    lower, pack_of, plan_with, select,
};
use crate::view::ELEM_SIZES;
use crate::{DeviceCaps, IndexMath, Kernel, Options, PermuteError, Plan, Request, View};

#[doc(hidden)]
/// A view to materialise (see [`View`]): its element size, where its regions start in the
/// two buffers, how many elements they hold, and the fill value of a padded view.
#[derive(Clone, Copy, Debug)]
pub struct ViewRequest<'a> {
    /// The view.
    pub view: &'a View,
    /// Bytes per element: 1, 2, 4, 8 or 16.
    pub elem_size: usize,
    /// Byte offset of the source region (multiple of 4); the view's offset counts from it.
    pub src_offset: u64,
    /// Byte offset of the destination region (multiple of 4).
    pub dst_offset: u64,
    /// Elements the source region holds (reads beyond are refused).
    pub src_len: usize,
    /// Elements the destination region holds.
    pub dst_len: usize,
    /// One element's bytes, read where a padded view has no source (ignored without bounds).
    pub fill: &'a [u8],
    /// Choices forced instead of the heuristics.
    pub options: Options,
    /// Elements converted on the way (`elem_size` is the source type's).
    pub conversion: Option<&'a Conversion>,
}

impl<'a> ViewRequest<'a> {
    /// `view` of a source region of `src_len` elements of `elem_size` bytes into a
    /// destination region of `dst_len`, both at the start of their buffers, no fill, default
    /// options.
    pub fn new(view: &'a View, elem_size: usize, src_len: usize, dst_len: usize) -> Self {
        ViewRequest {
            view,
            elem_size,
            src_offset: 0,
            dst_offset: 0,
            src_len,
            dst_len,
            fill: &[],
            options: Options::default(),
            conversion: None,
        }
    }

    /// The regions at these byte offsets of their buffers (multiples of 4).
    pub fn with_offsets(self, src_offset: u64, dst_offset: u64) -> Self {
        ViewRequest {
            src_offset,
            dst_offset,
            ..self
        }
    }

    /// One element's bytes for the positions outside the view's bounds.
    pub fn with_fill(self, fill: &'a [u8]) -> Self {
        ViewRequest { fill, ..self }
    }

    /// Choices forced instead of the heuristics.
    pub fn with_options(self, options: Options) -> Self {
        ViewRequest { options, ..self }
    }
}

#[doc(hidden)]
/// Plans the materialisation of a view. A view that is a permute of a contiguous tensor
/// plans exactly as that permute ([`plan_with`]); any other is lowered ([`lower::lower`])
/// and gathered by the generic kernel, which fills positions outside the view's bounds.
pub fn plan_view(
    req: &ViewRequest,
    caps: &DeviceCaps,
    learned: &Learned,
) -> Result<Plan, PermuteError> {
    let (view, elem) = (req.view, req.elem_size);
    if !ELEM_SIZES.contains(&elem) {
        return Err(PermuteError::ElemSize(elem));
    }
    for (which, offset) in [("source", req.src_offset), ("destination", req.dst_offset)] {
        if offset % 4 != 0 {
            return Err(PermuteError::UnalignedOffset { which, offset });
        }
    }
    // A conversion's fill is a destination element, written as it is.
    let dst_elem = req.conversion.map_or(elem, |c| c.to().size());
    if !view.bounds.is_empty() && req.fill.len() != dst_elem {
        return Err(PermuteError::FillSize {
            fill: req.fill.len(),
            elem: dst_elem,
        });
    }
    // The regions the caller claims, in bytes: a claim that does not fit is refused even
    // where the view reads or writes only part of it.
    for len in [req.src_len, req.dst_len] {
        len.checked_mul(elem).ok_or(PermuteError::SizeOverflow)?;
    }
    let read = view.check(req.src_len, req.dst_len)?;
    // The affine's channels over the view's output (its shape).
    if let Some(c) = req.conversion {
        c.check(&view.shape)?;
    }
    if let Some((shape, perm)) = view.as_permute() {
        let permute = Request {
            conversion: req.conversion,
            ..Request::new(&shape, &perm, elem)
                .with_offsets(req.src_offset, req.dst_offset)
                .with_options(req.options)
        };
        return plan_with(&permute, caps, learned);
    }
    let n = view.len() as u64;
    let bytes = n
        .checked_mul(elem as u64)
        .ok_or(PermuteError::SizeOverflow)?;
    let converting = req.conversion.is_some();
    let low = lower::lower_in(view, elem, req.src_offset, req.dst_offset, !converting);
    if !low.bounds.is_empty() && (low.unit as usize) < elem {
        return Err(PermuteError::InvalidView(
            "a padded view of 8/16-byte elements needs offsets aligned to the element size".into(),
        ));
    }
    let contiguous = {
        let out: Vec<u64> = low.perm.iter().map(|&d| low.dims[d]).collect();
        let want = crate::view::row_major(&out.iter().map(|&d| d as usize).collect::<Vec<_>>());
        low.perm
            .iter()
            .zip(want)
            .all(|(&d, w)| low.dims[d] == 1 || low.dst_strides[d] == w as u64)
    };
    // Packed words of a strided output are whole output rows' words: the innermost output
    // dim runs on in the destination for whole words, and every other dim starts on one
    // (of the destination type's, when converting).
    let pack = pack_of(if converting {
        dst_elem as u32
    } else {
        low.unit
    }) as u64;
    let inner = *low.perm.last().expect("a lowered view has a dim");
    let whole_words = low.dst_strides[inner] == 1
        && low.dims[inner].is_multiple_of(pack)
        && (0..low.dims.len()).all(|d| d == inner || low.dst_strides[d].is_multiple_of(pack));
    if !contiguous && pack > 1 && !whole_words {
        return Err(PermuteError::InvalidView(
            "a strided output of 8/16-bit data needs rows of whole 32-bit words".into(),
        ));
    }
    // The fill unit: the element repeated across 16 bytes.
    let mut fill = [0u8; 16];
    if !view.bounds.is_empty() {
        for (i, b) in fill.iter_mut().enumerate() {
            *b = req.fill[i % dst_elem];
        }
    }
    let fill = bytemuck::cast(fill);
    // Where the regions' bytes end; `check` bounded both spans in elements, the bytes
    // are checked too (a region near the top of the address space).
    let overflow = || PermuteError::SizeOverflow;
    let dst_reach = (view.dst_span()? as u64)
        .checked_mul(dst_elem as u64)
        .ok_or_else(overflow)?;
    let dst_end = req
        .dst_offset
        .checked_add(dst_reach)
        .and_then(|e| e.checked_next_multiple_of(4))
        .ok_or_else(overflow)?;
    let src_end = (read.end as u64)
        .checked_mul(elem as u64)
        .and_then(|e| e.checked_add(req.src_offset))
        .and_then(|e| e.checked_next_multiple_of(4))
        .ok_or_else(overflow)?;
    let mut plan = Plan {
        conversion: req.conversion.cloned(),
        shape: view.shape.clone(),
        perm: (0..view.shape.len()).collect(),
        elem_size: elem,
        src_offset: req.src_offset,
        dst_offset: req.dst_offset,
        dims: low.dims,
        dims_perm: low.perm,
        unit: low.unit,
        kernel: Kernel::Empty,
        index: IndexMath::U32,
        bytes,
        chunks: Vec::new(),
        tile: None,
        specialized: false,
        quads: false,
        cpu: CpuChoices::default(),
        plain_boxes: false,
        view: Some(ViewLayout {
            src_strides: low.src_strides,
            dst_strides: low.dst_strides,
            src_base: low.src_base,
            dst_contiguous: contiguous,
            bounds: low.bounds,
            fill,
            reversed: low.reversed,
            // A binding holds at least one unit, even where nothing is read.
            src_end: src_end.max(req.src_offset.saturating_add(low.unit.max(4) as u64)),
            dst_end,
        }),
        reasons: Reasons::empty(),
    };
    if n == 0 {
        return Ok(plan);
    }
    (plan.index, plan.reasons.index) = select::choose_index(&plan, caps, &req.options)?;
    if converting {
        let limit = binding_limit(caps, &req.options);
        (plan.kernel, plan.reasons.kernel) =
            select::choose_convert_kernel(&plan, caps, &req.options, limit)?;
        return finish(plan, caps, &req.options, learned);
    }
    let layout = plan.view.as_ref().expect("set above");
    let copy = plan.dims.len() == 1
        && layout.src_strides[0] == 1
        && layout.dst_strides[0] == 1
        && layout.bounds.is_empty()
        && plan.bytes.is_multiple_of(4)
        && plan.src_start().is_multiple_of(4);
    (plan.kernel, plan.reasons.kernel) = match req.options.kernel {
        None if copy => (Kernel::Copy, KernelReason::Identity),
        Some(Kernel::Copy) if copy => (Kernel::Copy, KernelReason::Forced),
        _ => select::choose_view_kernel(
            &plan,
            caps,
            &req.options,
            binding_limit(caps, &req.options),
        )?,
    };
    if plan.kernel == Kernel::Copy {
        return Ok(plan);
    }
    finish(plan, caps, &req.options, learned)
}
