//! The micro kernel's flat strips, for images whose pixel counts, batch strides or plane
//! offsets are not whole 16 bytes ([`flat_strip`]): the interleaved side's pixels of every
//! image as one run of 16-byte accesses, the planes moved element by element. The micro
//! kernel's aligned strips are chosen with its square blocks (`micro::micro_block`).

use crate::plan::lower::gcd;
use crate::plan::tuning::MICRO_FLAT_RUN;
use crate::plan::tuning::STRIP_MAX;
use crate::plan::{Block, ChannelAt, Plan, Strip};

/// Whether the micro kernel's flat strip of this kind is ever planned, for elements of
/// `src` and `dst` bytes at this rank: planes written as 4-byte elements (a packed element
/// would share its word with another invocation's), planes read as elements of up to 4
/// bytes, and for those at most one batch dim (more, in order on both sides, would have
/// merged). The variants' enumeration follows it.
pub fn flat_planned(strip: Strip, src: u32, dst: u32, rank: usize) -> bool {
    match strip {
        Strip::Cols(_) => dst == 4,
        Strip::Rows(_) => src <= 4 && rank <= 3,
    }
}

/// Whether a flat strip reads its planes' 4-byte words in pairs ([`Block::flat_pairs`]):
/// with 64-bit accesses (chosen after the block's shape), in one binding, where every pair
/// it reads lies inside the source: the source ends on whole 8 bytes, or the tail part
/// moves the last image's last pixels (the source's last word, alone in its pair, is one
/// of them: no view, so it is the last image's last pixel; a block that ends on the word
/// before it starts on an even word, as sides are even, so it reads no ninth pair).
pub fn flat_pairs(plan: &Plan, block: &Block) -> bool {
    let tail = |(blocks, pixels): (u64, u64)| {
        let images = plan.batch_rows_cols().map_or(0, |(b, ..)| b);
        (images * pixels).saturating_sub(blocks * block.side as u64)
    };
    block.elements_in()
        && plan.unit == 4
        && plan.cpu.access64
        && plan.chunks.len() <= 1
        && (plan.src_extent().is_multiple_of(8)
            || flat_blocks(plan, block).is_some_and(|f| tail(f) >= 1))
}

/// The micro kernel's flat strip ([`Block::flat_strip`]) for a permute (or conversion)
/// between interleaved pixels of `n` channels and `n` planes whose images the aligned
/// strips cannot take (`[32, 299*299, 3]`: neither the batch stride nor the planes' offsets
/// are whole 16 bytes). The interleaved side is one contiguous run of pixels over every
/// image, read (or written) in 16-byte accesses from a 16-byte aligned start; the planar
/// side is moved element by element, so it may be anywhere ([`flat_planned`] says which
/// element sizes). Pixels per image at least the block's side (a block meets at most two
/// images), no view, channels (if any) over the short dim. Where the pixels of all images
/// are not a whole number of blocks (one image of 299 * 299 pixels, or a batch of them that
/// 16 does not divide), the blocks cover the whole ones and the last few pixels run as a
/// part of their own ([`flat_tail`]), whose affine (if any) must then be one value or one
/// per channel of the short dim.
pub fn flat_strip(plan: &Plan) -> Option<Block> {
    let (b, r, c) = plan.batch_rows_cols()?;
    let (a, last) = (plan.row_dim()?, plan.dims.len() - 1);
    if plan.view.is_some() {
        return None;
    }
    let (ins, outs) = (plan.in_strides(), plan.out_strides_by_input_dim());
    let (su, du) = (plan.unit, plan.dst_unit());
    let short = |n: u64| (2..=STRIP_MAX as u64).contains(&n);
    let channel = plan.channels().map(|ch| ch.at);
    // One kind: its short dim `n` whole and contiguous on the interleaved side, whose
    // strides are `span`, with `pixels` per image from `start`.
    let flat =
        |strip: Strip, span: &[u64], ch_dim: usize, px_dim: usize, pixels: u64, start: u64| {
            let (Strip::Cols(n) | Strip::Rows(n)) = strip;
            let n = n as u64;
            let at = match strip {
                Strip::Cols(_) => ChannelAt::Cols,
                Strip::Rows(_) => ChannelAt::Rows,
            };
            // The interleaved side: channels back to back, then pixels, then images in order.
            let mut expected = pixels * n;
            let images_in_order = plan.batch_dims().iter().rev().all(|&d| {
                let ok = span[d] == expected;
                expected = expected.saturating_mul(plan.dims[d]);
                ok
            });
            let block = Block::flat_strip(su.min(du), strip)?;
            let side = block.side as u64;
            let whole = short(n)
                && flat_planned(strip, su, du, plan.dims.len())
                && channel.is_none_or(|ch| ch == at)
                && span[ch_dim] == 1
                && span[px_dim] == n
                && images_in_order
                && ((b * pixels).is_multiple_of(side) || tail_takes_affine(plan, n))
                && pixels >= side
                && start.is_multiple_of(block.access_bytes as u64)
                && plan.src_start().is_multiple_of(su as u64)
                && plan.dst_offset.is_multiple_of(du as u64);
            whole.then_some(block)
        };
    flat(Strip::Cols(c as u32), &ins, last, a, r, plan.src_start())
        .or_else(|| flat(Strip::Rows(r as u32), &outs, a, last, c, plan.dst_offset))
}

/// Whether a flat strip of `n` channels may leave pixels to a part of their own
/// ([`flat_tail`]): that part's affine (if any) is read over its short dim alone, which
/// takes one value or one per channel of the dim.
fn tail_takes_affine(plan: &Plan, n: u64) -> bool {
    plan.channels()
        .is_none_or(|ch| ch.step == 1 && ch.count == n)
}

/// A flat strip's blocks, over the pixels of every image in order, and the pixels of each
/// image: whole blocks, in whole runs of [`MICRO_FLAT_RUN`] where the plan moves runs and
/// the pixels they leave stay in the last image (they run as a part of their own,
/// [`flat_tail`]); else as many whole blocks as there are. `None` where the plan is not a
/// flat strip's.
pub fn flat_blocks(plan: &Plan, block: &Block) -> Option<(u64, u64)> {
    flat_box_blocks(plan, block, &plan.dims)
}

/// [`flat_blocks`] of a box over binding windows (`extents` per simplified input dim): its
/// images whole, starting on a whole run of blocks (`flat_box_images`), so that it
/// counts the blocks it holds of the whole tensor's (all but the last box's are whole
/// runs; the last one's leave the same pixels to the tail as the whole tensor's).
pub fn flat_box_blocks(plan: &Plan, block: &Block, extents: &[u64]) -> Option<(u64, u64)> {
    let (b, r, c) = plan.batch_rows_cols()?;
    let (pixels, n) = match block.strip? {
        Strip::Cols(n) => (r, n),
        Strip::Rows(n) => (c, n),
    };
    if !block.flat {
        return None;
    }
    let (side, run) = (block.side as u64, MICRO_FLAT_RUN as u64);
    let whole = b * pixels / side;
    let in_runs = whole / run * run;
    let trim = plan.cpu.runs
        && in_runs > 0
        && b * pixels - in_runs * side <= pixels
        && tail_takes_affine(plan, n as u64);
    let (images, ..) = plan.box_batch_rows_cols(extents)?;
    let whole = images * pixels / side;
    Some((if trim { whole / run * run } else { whole }, pixels))
}

/// Images per box of a flat strip's plan past one binding: as few as make a whole run of
/// blocks (the trimmed runs of [`flat_blocks`] and the block's own), so that each box's
/// interleaved side starts on a whole 16-byte access and its blocks are the whole
/// tensor's. `None` where the plan is not a flat strip's of at most one batch dim (more
/// would cut images out of order).
pub fn flat_box_images(plan: &Plan, block: &Block) -> Option<u64> {
    let (_, pixels) = flat_blocks(plan, block)?;
    if plan.batch_dims().len() > 1 {
        return None;
    }
    let (run, flat_run) = (block.run as u64, MICRO_FLAT_RUN as u64);
    let pixels_per_box = block.side as u64 * run / gcd(run, flat_run) * flat_run;
    Some(pixels_per_box / gcd(pixels_per_box, pixels))
}

/// The last pixels of a flat strip's plan that its blocks do not cover ([`flat_blocks`]:
/// all in the last image): the lowest and highest index of each simplified input dim, and
/// the short dim. `None` where the blocks cover every pixel or the plan is not a flat
/// strip's.
pub fn flat_tail(plan: &Plan) -> Option<(Vec<u64>, Vec<u64>, usize)> {
    let block = plan.variant()?.block()?;
    let (blocks, pixels) = flat_blocks(plan, &block)?;
    let (b, ..) = plan.batch_rows_cols()?;
    let (a, last) = (plan.row_dim()?, plan.dims.len() - 1);
    let left = b * pixels - blocks * block.side as u64;
    if left == 0 {
        return None;
    }
    let (pixel_dim, short) = match block.strip {
        Some(Strip::Cols(_)) => (a, last),
        _ => (last, a),
    };
    let mut lo: Vec<u64> = plan.dims.iter().map(|&n| n - 1).collect();
    lo[a] = 0;
    lo[last] = 0;
    lo[pixel_dim] = pixels - left;
    Some((lo, plan.dims.clone(), short))
}
