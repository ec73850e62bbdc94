//! Which variants a test runs or validates: every combination of a variant's other fields
//! at ranks 1, 2 and `MAX_RANK`, and at one rank between, rotating with the combination, so
//! that every rank of a family runs somewhere. The variant sweep (tests/variants.rs) runs
//! these, and tests/shaders.rs validates them.

use std::collections::HashMap;
use std::ops::Range;

use wgpu_permute::plan::{MAX_RANK, Variant};

/// Ranks between these run for some combinations only.
pub const MIDDLE: Range<usize> = 3..MAX_RANK;

/// The combinations of a list of variants, numbered.
pub struct Sample {
    ordinals: HashMap<Variant, usize>,
    spread: usize,
}

/// The variant's other fields (its rank zeroed).
fn combination(v: &Variant) -> Variant {
    v.with_rank(0)
}

impl Sample {
    /// Numbers the combinations that have middle ranks in `variants`, in order.
    pub fn new<'a>(variants: impl IntoIterator<Item = &'a Variant>) -> Sample {
        let mut ordinals = HashMap::new();
        for v in variants.into_iter().filter(|v| MIDDLE.contains(&v.rank())) {
            let next = ordinals.len();
            ordinals.entry(combination(v)).or_insert(next);
        }
        let spread = ordinals.len().clamp(1, MIDDLE.len());
        Sample { ordinals, spread }
    }

    /// How many combinations have middle ranks.
    pub fn combinations(&self) -> usize {
        self.ordinals.len()
    }

    /// Whether `v` runs: every combination at ranks 1, 2 and `MAX_RANK`; of the [`MIDDLE`]
    /// ranks, those congruent to `-ordinal` modulo the spread (one of them when the spread
    /// is their count).
    pub fn takes(&self, v: &Variant) -> bool {
        let ordinal = self.ordinals.get(&combination(v));
        !MIDDLE.contains(&v.rank())
            || ordinal.is_some_and(|o| (v.rank() + o).is_multiple_of(self.spread))
    }
}
