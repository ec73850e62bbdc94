//! A padded view's bounds on the micro kernel: where their words lie in the parameter
//! block, their values, and the WGSL that checks a block's rows against them.
use crate::Plan;
use crate::shaders::TILE_BATCH;
use crate::view::MAX_BOUNDS;
use std::fmt::Write;

named_words! {
    /// The micro kernel's groups of four words for a padded view (one per bound, unused
    /// ones all-valid), in block order from [`bound_start`]; the batch dims' multipliers
    /// last, four per batch dim.
    BoundWord {
        /// The fill unit.
        Fill = "FILL",
        /// The row dim's multiplier in each bound's combined index.
        RowMults = "ROW_MULTS",
        /// Each bound's valid range's start.
        ValidLo = "VALID_LO",
        /// Its end.
        ValidHi = "VALID_HI",
        /// The batch dims' multipliers.
        BatchMults = "BATCH_MULTS",
    }
}

/// Where a padded view's words start: the first whole `vec4` after the batch dims' words.
fn bound_start(batch: usize) -> usize {
    (TILE_BATCH + 3 * batch).next_multiple_of(4)
}

/// Where group `w` of a padded view's words lies.
pub(in crate::shaders) fn bound_word(batch: usize, w: BoundWord) -> usize {
    bound_start(batch) + 4 * w as usize
}

/// The names and positions of a padded view's words ([`BoundWord`]), and the end of the
/// block with them.
pub(in crate::shaders) fn micro_bound_words(batch: usize) -> (Vec<(&'static str, usize)>, usize) {
    let decls = BoundWord::ALL
        .iter()
        .map(|&w| (w.wgsl_name(), bound_word(batch, w)))
        .collect();
    (decls, bound_word(batch, BoundWord::BatchMults) + 4 * batch)
}

/// For a padded view, the micro kernel's `batch_bounds(b)` (each bound's combined index
/// over the batch dims of batch index `b`, less its valid range's start) and
/// `row_inside(bv, row)`: whether a source row of that batch is inside every bound, one
/// unsigned compare per bound (`index - start < end - start`). `MAX_BOUNDS` is 4: one
/// bound per vector lane. The words are read through `shape`: a specialised pipeline folds
/// the unused bounds' lanes (multipliers 0, all valid) and each used one's multipliers.
pub(in crate::shaders) fn micro_bounds_fn(batch: usize) -> String {
    const _: () = assert!(MAX_BOUNDS == 4);
    let mut f = String::from(
        "// Words `i` to `i + 3` of the shape's (`i` a multiple of 4): one per bound.\nfn shape4(i: u32) -> vec4<u32> {\n    return vec4<u32>(shape(i), shape(i + 1u), shape(i + 2u), shape(i + 3u));\n}\n\n",
    );
    f += "// Each bound's combined index over the batch dims of batch index `b`, less its start.\nfn batch_bounds(b: u32) -> vec4<u32> {\n    var rem = b;\n    var v = vec4<u32>(0u) - shape4(VALID_LO);\n";
    for j in (0..batch).rev() {
        if j > 0 {
            let _ = writeln!(
                f,
                "    let c{j} = rem % shape(BATCH + {j}u);\n    rem = rem / shape(BATCH + {j}u);"
            );
        } else {
            f += "    let c0 = rem;\n";
        }
        let _ = writeln!(f, "    v += c{j} * shape4(BATCH_MULTS + {}u);", 4 * j);
    }
    f += "    return v;\n}\n\n";
    f += "// Whether source row `row` of the batch whose bound indices are `bv` exists.\nfn row_inside(bv: vec4<u32>, row: u32) -> bool {\n    let v = bv + row * shape4(ROW_MULTS);\n    return all(v < shape4(VALID_HI) - shape4(VALID_LO));\n}\n";
    f
}

/// A padded view's words of the micro kernel (laid out as [`micro_bound_words`] says),
/// from the first whole `vec4` after the batch dims' words.
pub(in crate::shaders) fn micro_bound_params(plan: &Plan, batch: &[usize]) -> Vec<u32> {
    let Some(view) = &plan.view else {
        return Vec::new();
    };
    // Each dim's multiplier in each bound's combined index (0 outside the bound).
    let mut mults = vec![[0u32; MAX_BOUNDS]; plan.dims.len()];
    let (mut lo, mut hi) = ([0u32; MAX_BOUNDS], [u32::MAX; MAX_BOUNDS]);
    for (g, (dims, valid)) in view.bounds.iter().enumerate() {
        let mut radix = 1u64;
        for &d in dims.iter().rev() {
            mults[d][g] = radix as u32;
            radix *= plan.dims[d];
        }
        // Combined indices stay below the unit count, which fits in 32 bits. The kernel
        // compares `index - lo < hi - lo`: an empty range has `hi == lo`.
        lo[g] = valid.start.min(u32::MAX as u64) as u32;
        hi[g] = valid.end.max(valid.start).min(u32::MAX as u64) as u32;
    }
    let start = (TILE_BATCH + 3 * batch.len()).next_multiple_of(4);
    let row = mults[plan.row_dim().unwrap_or(0)];
    let mut words = vec![0u32; start - TILE_BATCH - 3 * batch.len()];
    words.extend(view.fill);
    words.extend(row);
    words.extend(lo);
    words.extend(hi);
    for &d in batch {
        words.extend(mults[d]);
    }
    words
}
