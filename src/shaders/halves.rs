//! The micro kernel's packed stores built in 64-bit halves: on a CPU device that moves
//! 64-bit components, each 8-byte half of a 16-byte store of 8/16-bit units is computed
//! whole, where its two words gather their units alike (the same shifts and masks, from
//! words at the same distance apart: a strip's 3-channel pixels, four to a word).
//!
//! The two source words of each term are packed into one 64-bit value first (shared by every
//! term that reads them, often a loaded component as it is), and each term masks its source
//! units before it shifts them, so that no unit crosses into the other half. On lavapipe a
//! 64-bit operation costs about what a 32-bit one does: `[32,224,224,3] (0,3,1,2)` u8, 4.8
//! MB, moved in 0.77-0.79 ms against 1.03-1.07 ms word by word (three alternating probe
//! runs; a shader copy of its bytes 0.49-0.53 ms).

use std::collections::BTreeMap;
use std::fmt::Write;

/// A word of a block's loads: the load's index and the word's within its access (0 to 3).
pub(super) type Word = (usize, u32);

/// One term of an output word: the source word, the shift to the left in bits (negative:
/// to the right) and the destination's mask.
type Term = (Word, i32, u32);

/// The terms of an output word whose destination lane `i` (of `bits` bits) takes lane
/// `units[i].1` of word `units[i].0`: one per source word and shift, in the order of their
/// shift and mask.
fn terms(units: &[(Word, u32)], bits: u32) -> Vec<Term> {
    let lane = u32::MAX >> (32 - bits);
    let mut groups: BTreeMap<(Word, i32), u32> = BTreeMap::new();
    for (i, &(word, from)) in units.iter().enumerate() {
        let shift = (i as i32 - from as i32) * bits as i32;
        *groups.entry((word, shift)).or_default() |= lane << (i as u32 * bits);
    }
    let mut terms: Vec<Term> = groups.into_iter().map(|((w, s), m)| (w, s, m)).collect();
    terms.sort_by_key(|&(w, s, m)| (s, m, w));
    terms
}

/// The packed source words of a block's stores: `let` names for pairs of words, each
/// made once.
#[derive(Default)]
pub(super) struct Packs {
    names: BTreeMap<(Word, Word), String>,
    /// The `let`s of the pairs made so far, to go before the stores.
    pub lets: String,
}

impl Packs {
    /// Words `lo` and `hi` of the loads named by `load` as one 64-bit value: a loaded
    /// component as it is, or a `let` of the two halves.
    fn pair(&mut self, lo: Word, hi: Word, load: &dyn Fn(usize) -> String) -> String {
        let component = |(l, k): Word| format!("{}.{}", load(l), ["x", "y"][(k / 2) as usize]);
        if lo.0 == hi.0 && lo.1.is_multiple_of(2) && hi.1 == lo.1 + 1 {
            return component(lo);
        }
        if let Some(name) = self.names.get(&(lo, hi)) {
            return name.clone();
        }
        let low = match lo.1 % 2 {
            0 => format!("({} & 0xfffffffflu)", component(lo)),
            _ => format!("({} >> 32u)", component(lo)),
        };
        let high = match hi.1 % 2 {
            0 => format!("({} << 32u)", component(hi)),
            _ => format!("({} & 0xffffffff00000000lu)", component(hi)),
        };
        let name = format!("p{}", self.names.len());
        let _ = writeln!(self.lets, "        let {name} = {low} | {high};");
        self.names.insert((lo, hi), name.clone());
        name
    }

    /// The 64-bit half whose low and high words gather `lo` and `hi` (see [`terms`]), or
    /// `None` where the two words' terms differ in their shifts or masks.
    pub fn half(
        &mut self,
        lo: &[(Word, u32)],
        hi: &[(Word, u32)],
        bits: u32,
        load: &dyn Fn(usize) -> String,
    ) -> Option<String> {
        let (lo, hi) = (terms(lo, bits), terms(hi, bits));
        let alike =
            lo.len() == hi.len() && lo.iter().zip(&hi).all(|(a, b)| (a.1, a.2) == (b.1, b.2));
        if !alike {
            return None;
        }
        let parts: Vec<String> = lo
            .iter()
            .zip(&hi)
            .map(|(&(from_lo, shift, mask), &(from_hi, ..))| {
                let source = self.pair(from_lo, from_hi, load);
                // The source's units where they are: no bit of one half reaches the other.
                let at = match shift >= 0 {
                    true => mask >> shift,
                    false => mask << -shift,
                } as u64;
                let masked = match at == u32::MAX as u64 {
                    true => source,
                    false => format!("({source} & {:#x}lu)", at | at << 32),
                };
                match shift {
                    0 => masked,
                    s if s > 0 => format!("({masked} << {s}u)"),
                    s => format!("({masked} >> {}u)", -s),
                }
            })
            .collect();
        Some(parts.join(" | "))
    }
}
