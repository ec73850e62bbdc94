//! The CPU reference: the obviously correct permute every kernel is checked against.

use crate::PermuteError;
use crate::Relayout;
use crate::view::{ELEM_SIZES, View, check_perm, element_count};

/// What [`crate::Permuter::run`] returns for `op` on `src` (the source region's bytes): the
/// destination region, zero where no part writes. A permute goes through the typed
/// [`permute_slice`] (far faster on big tensors), anything else walks every position; a
/// conversion then converts each element ([`crate::convert::Conversion::apply`]) but the
/// fill, which is a destination element already.
pub fn run(op: &Relayout, src: &[u8]) -> Result<Vec<u8>, PermuteError> {
    let moved = run_move(op, src)?;
    let Some(c) = op.conversion() else {
        return Ok(moved);
    };
    let mut out = c.apply(op.out_shape(), &moved)?;
    let to = c.to().size();
    for k in fill_positions(op, src.len())? {
        out[k * to..][..to].copy_from_slice(op.fill());
    }
    Ok(out)
}

/// The output elements a conversion's padded view fills: where a move of a source of ones
/// with a fill of zeros gives zero (none without bounds).
fn fill_positions(op: &Relayout, src_bytes: usize) -> Result<Vec<usize>, PermuteError> {
    if op.views().iter().all(|(v, _)| v.bounds.is_empty()) {
        return Ok(Vec::new());
    }
    let elem = op.elem_size();
    let ones = materialize_parts(
        &vec![0xFF; src_bytes],
        op.views(),
        elem,
        &vec![0; elem],
        op.dst_len(),
    )?;
    Ok((0..op.dst_len())
        .filter(|&k| ones[k * elem..][..elem].iter().all(|&b| b == 0))
        .collect())
}

#[doc(hidden)]
/// Whether `got`, what the GPU gave for `op` on `src`, is the reference's result: equal
/// bytes, or for a conversion the same elements (NaN as NaN; with an affine, within
/// [`crate::convert::within_bound`]). Returns the first differing element, if any.
pub fn first_mismatch(
    op: &Relayout,
    src: &[u8],
    got: &[u8],
) -> Result<Option<usize>, PermuteError> {
    let moved = run_move(op, src)?;
    match op.conversion() {
        Some(c) => {
            // The fill is compared as bytes; elsewhere, the elements as the numbers say.
            let to = c.to().size();
            let want = c.apply(op.out_shape(), &moved)?;
            let mut others = got.to_vec();
            for k in fill_positions(op, src.len())? {
                let at = k * to..(k + 1) * to;
                if got.get(at.clone()) != Some(op.fill()) {
                    return Ok(Some(k));
                }
                others[at.clone()].copy_from_slice(&want[at]);
            }
            c.first_mismatch(op.out_shape(), &moved, &others)
        }
        None => Ok((moved != got).then(|| {
            let at = moved.iter().zip(got).position(|(a, b)| a != b);
            at.unwrap_or(moved.len().min(got.len())) / op.elem_size()
        })),
    }
}

/// [`run`] without the conversion: the elements moved, in the source type.
fn run_move(op: &Relayout, src: &[u8]) -> Result<Vec<u8>, PermuteError> {
    let elem = op.elem_size();
    if op.src_len().checked_mul(elem) != Some(src.len()) {
        return Err(PermuteError::DataLength {
            need: op.src_len(),
            have: src.len() / elem,
        });
    }
    let permute = match op.views() {
        [(view, 0)] => view.as_permute(),
        _ => None,
    };
    if let Some((shape, perm)) =
        permute.filter(|(shape, _)| element_count(shape).ok() == Some(op.src_len()))
    {
        fn typed<T: bytemuck::Pod>(src: &[u8], shape: &[usize], perm: &[usize]) -> Vec<u8> {
            let elems: Vec<T> = bytemuck::pod_collect_to_vec(src);
            let out = permute_slice(&elems, shape, perm).expect("a checked permute");
            bytemuck::cast_slice(&out).to_vec()
        }
        return Ok(match elem {
            1 => typed::<u8>(src, &shape, &perm),
            2 => typed::<u16>(src, &shape, &perm),
            4 => typed::<u32>(src, &shape, &perm),
            8 => typed::<u64>(src, &shape, &perm),
            _ => typed::<u128>(src, &shape, &perm),
        });
    }
    // A conversion's fill is a destination element: the positions it fills are moved as
    // zeros here, and filled after the conversion.
    let fill = match op.conversion() {
        Some(_) if !op.fill().is_empty() => vec![0; elem],
        _ => op.fill().to_vec(),
    };
    materialize_parts(src, op.views(), elem, &fill, op.dst_len())
}

/// Permutes `src` (contiguous, row-major, `shape`) into a new vector where output dimension
/// `i` is input dimension `perm[i]` (the numpy / PyTorch convention).
///
/// Works on any element type; it walks the output in order and gathers from the input with
/// plain strides, so it is slow but has no cleverness to get wrong.
pub fn permute_slice<T: Copy>(
    src: &[T],
    shape: &[usize],
    perm: &[usize],
) -> Result<Vec<T>, PermuteError> {
    let mut out = Vec::with_capacity(src.len());
    gather(src.len(), shape, perm, |i| out.push(src[i]))?;
    Ok(out)
}

#[doc(hidden)]
/// [`permute_slice`] on raw bytes with elements of `elem_size` bytes, for callers that hold
/// a tensor as bytes (for example a `.npy` payload). Holds one copy: the result.
pub fn permute_bytes(
    src: &[u8],
    shape: &[usize],
    perm: &[usize],
    elem_size: usize,
) -> Result<Vec<u8>, PermuteError> {
    if elem_size == 0 {
        return Err(PermuteError::ElemSize(elem_size));
    }
    let n = element_count(shape)?;
    if src.len() != n.checked_mul(elem_size).ok_or(PermuteError::SizeOverflow)? {
        return Err(PermuteError::DataLength {
            need: n,
            have: src.len() / elem_size,
        });
    }
    let mut out = Vec::with_capacity(src.len());
    gather(n, shape, perm, |i| {
        out.extend_from_slice(&src[i * elem_size..][..elem_size])
    })?;
    Ok(out)
}

/// Calls `take` with the input element index of every output element, in output order,
/// after checking `perm` and that `len` is the shape's element count.
fn gather(
    len: usize,
    shape: &[usize],
    perm: &[usize],
    mut take: impl FnMut(usize),
) -> Result<(), PermuteError> {
    check_perm(shape.len(), perm)?;
    let n = element_count(shape)?;
    if len != n {
        return Err(PermuteError::DataLength { need: n, have: len });
    }
    if n == 0 {
        return Ok(());
    }
    let rank = shape.len();
    let mut in_strides = vec![1usize; rank];
    for d in (0..rank.saturating_sub(1)).rev() {
        in_strides[d] = in_strides[d + 1] * shape[d + 1];
    }
    let out_shape: Vec<usize> = perm.iter().map(|&p| shape[p]).collect();
    let strides: Vec<usize> = perm.iter().map(|&p| in_strides[p]).collect();
    let mut index = vec![0usize; rank];
    for _ in 0..n {
        take(index.iter().zip(&strides).map(|(i, s)| i * s).sum());
        // Odometer increment over the output shape, last dim fastest.
        for d in (0..rank).rev() {
            index[d] += 1;
            if index[d] < out_shape[d] {
                break;
            }
            index[d] = 0;
        }
    }
    Ok(())
}

#[doc(hidden)]
/// Materialises a view of `src` (elements of `elem_size` bytes) into a new destination of
/// `dst_len` elements: each position of the view is written at its destination element,
/// from its source element where it exists and from `fill` (one element's bytes) where a
/// bound says it does not. Elements no position writes stay zero. Checks the view first
/// ([`View::check`]). Walks every position with plain index arithmetic: slow, obvious.
pub fn materialize_bytes(
    src: &[u8],
    view: &View,
    elem_size: usize,
    fill: &[u8],
    dst_len: usize,
) -> Result<Vec<u8>, PermuteError> {
    materialize_parts(src, &[(view.clone(), 0)], elem_size, fill, dst_len)
}

#[doc(hidden)]
/// Views of `src` that write disjoint parts of one output of `dst_len` elements, each from
/// its first destination element (as `Permuter::materialize_parts` takes them).
pub fn materialize_parts(
    src: &[u8],
    parts: &[(View, usize)],
    elem_size: usize,
    fill: &[u8],
    dst_len: usize,
) -> Result<Vec<u8>, PermuteError> {
    if !ELEM_SIZES.contains(&elem_size) {
        return Err(PermuteError::ElemSize(elem_size));
    }
    crate::view::parts::check_parts(parts, src.len() / elem_size, dst_len)?;
    let bytes = dst_len
        .checked_mul(elem_size)
        .ok_or(PermuteError::SizeOverflow)?;
    let mut out = vec![0u8; bytes];
    for (view, first) in parts {
        // In range: `check_parts` bounded each part by the output.
        let at = first.saturating_mul(elem_size).min(out.len());
        materialize_into(&mut out[at..], src, view, elem_size, fill)?;
    }
    Ok(out)
}

/// Writes each position of a view into `out` (elements from its start), after checking it.
fn materialize_into(
    out: &mut [u8],
    src: &[u8],
    view: &View,
    elem_size: usize,
    fill: &[u8],
) -> Result<(), PermuteError> {
    if !view.bounds.is_empty() && fill.len() != elem_size {
        return Err(PermuteError::FillSize {
            fill: fill.len(),
            elem: elem_size,
        });
    }
    view.check(src.len() / elem_size, out.len() / elem_size)?;
    let mut at = vec![0usize; view.shape.len()];
    for _ in 0..view.len() {
        let d = view.destination(&at) * elem_size;
        let bytes = if view.exists(&at) {
            let s = view.source(&at) as usize * elem_size;
            &src[s..s + elem_size]
        } else {
            fill
        };
        out[d..d + elem_size].copy_from_slice(bytes);
        // Next position, row-major.
        for k in (0..at.len()).rev() {
            at[k] += 1;
            if at[k] < view.shape[k] {
                break;
            }
            at[k] = 0;
        }
    }
    Ok(())
}
