//! The micro kernel's moves of packed 8/16-bit units, built from masked shifts.
//!
//! Square blocks of bytes are transposed 4x4 bytes at a time in two steps ([`swar`]).
//! On a CPU device that moves 64-bit components, whose operations lavapipe pays about as
//! much for as for 32-bit ones, both work on two words at once: the byte transposes on
//! the two words of each loaded component ([`swar64`], [`swar_half`]; 2 or 3 planes into
//! pixels with zero planes to make 4, then packed [`pixels_half`]), and other packed
//! stores build each 8-byte half whole where its two words gather their units alike (the
//! same shifts and masks, from words at the same distance apart: a strip's 3-channel
//! pixels, four to a word; [`Packs`]). There the two source words of each term are
//! packed into one 64-bit value first (shared by every term that reads them, often a
//! loaded component as it is), and each term masks its source units before it shifts
//! them, so that no unit crosses into the other half. `[32,224,224,3] (0,3,1,2)` u8, 4.8
//! MB, moved in 0.77-0.79 ms this way against 1.03-1.07 ms word by word (three alternating
//! probe runs on lavapipe, AMD EPYC; a shader copy of its bytes 0.49-0.53 ms).

use std::collections::BTreeMap;
use std::fmt::Write;

/// A word of a block's loads: the load's index and the word's within its access (0 to 3).
pub(in crate::shaders) type Word = (usize, u32);

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

/// Half `half` (0 low, 1 high) of the 64-bit value `x`, as the low half of a value whose
/// high half is 0.
fn low(x: &str, half: u32) -> String {
    match half {
        0 => format!("({x} & 0xfffffffflu)"),
        _ => format!("({x} >> 32u)"),
    }
}

/// Half `half` of the 64-bit value `x`, as the high half of a value whose low half is 0.
fn high(x: &str, half: u32) -> String {
    match half {
        0 => format!("({x} << 32u)"),
        _ => format!("({x} & 0xffffffff00000000lu)"),
    }
}

/// The packed source words of a block's stores: `let` names for pairs of words, each
/// made once.
#[derive(Default)]
pub(in crate::shaders) struct Packs {
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
        let (low, high) = (
            low(&component(lo), lo.1 % 2),
            high(&component(hi), hi.1 % 2),
        );
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

/// The 4x4-byte transposes of a square block of bytes, `side` wide: `word(r, m)` is word
/// `m` of input row `r`. Each 4x4 bytes (4 input words, one per row) are transposed in two
/// steps of masked shifts (16-bit halves, then bytes), 7 operations per output word instead
/// of 4 shifted, masked and merged bytes; output word `i` of the 4x4 at `(k, m)` is
/// `s{k}_{m}_{i}` ([`swar_word`]).
pub(in crate::shaders) fn swar(side: u32, word: &dyn Fn(u32, u32) -> String) -> String {
    transposes(side / 4, side / 4, word, ["s", "t"], Masks::WORD)
}

/// The 4x4 transposes of `rows x across` sources: rows `4k` to `4k + 3` of source `m`
/// (`source(r, m)`), named by `names` and transposed with `masks` ([`steps`]).
fn transposes(
    rows: u32,
    across: u32,
    source: &dyn Fn(u32, u32) -> String,
    names: [&str; 2],
    masks: Masks,
) -> String {
    (0..rows)
        .flat_map(|k| (0..across).map(move |m| (k, m)))
        .map(|(k, m)| {
            let w: Vec<String> = (0..4).map(|i| source(4 * k + i, m)).collect();
            steps(&format!("{k}_{m}"), &w, names, masks)
        })
        .collect()
}

/// Output word `k` of a store whose first unit is `(r, c)`, transposed by [`swar`].
pub(in crate::shaders) fn swar_word(r: u32, c: u32) -> String {
    format!("s{}_{}_{}", r / 4, c / 4, c % 4)
}

/// [`swar`] on 64-bit components, for `rows x cols` bytes in whole pairs of 4x4s along
/// the columns: `component(r, j)` is component `j` of input row `r` (its words `2j` and
/// `2j + 1`), and each step transposes the two 4x4 bytes it holds at once, masking before
/// it shifts so that no byte crosses into the other word. Output word `i` of the 4x4s at
/// `(k, 2j)` and `(k, 2j + 1)` are the halves of `q{k}_{j}_{i}` ([`swar_half`]).
pub(in crate::shaders) fn swar64(
    rows: u32,
    cols: u32,
    component: &dyn Fn(u32, u32) -> String,
) -> String {
    transposes(rows / 4, cols / 8, component, ["q", "u"], Masks::PAIR)
}

/// The 8-byte half of a store from [`swar64`]'s words, given the first unit (row, column)
/// of each of its two words: word `c % 4` of the 4x4 at `(r / 4, c / 4)`, which is one
/// half of a transposed component (two output rows of a square block; two pixels of a
/// strip of planes).
pub(in crate::shaders) fn swar_half(lo: (u32, u32), hi: (u32, u32)) -> String {
    let at = |(r, c): (u32, u32)| (format!("q{}_{}_{}", r / 4, c / 8, c % 4), (c / 4) % 2);
    let ((lo, lo_half), (hi, hi_half)) = (at(lo), at(hi));
    format!("{} | {}", low(&lo, lo_half), high(&hi, hi_half))
}

/// Half `q` (bytes `8q` to `8q + 7`) of a strip of `n` (2 or 3) planes of bytes into
/// pixels of `n` bytes, from [`swar64`] of the planes and `4 - n` zero ones: each pixel a
/// word whose top bytes are 0 (pixel `p` the word `p % 4` of the 4x4 at `(0, p / 4)`), and
/// the half the pixels that overlap it, each shifted to its place (past the half's ends,
/// its bytes shift out).
pub(in crate::shaders) fn pixels_half(n: u32, q: u32) -> String {
    let pixel = |p: u32| low(&format!("q0_{}_{}", p / 8, p % 4), (p / 4) % 2);
    let (lo, hi) = (8 * q, 8 * q + 8);
    (lo / n..hi.div_ceil(n))
        .map(|p| match (n * p) as i64 - lo as i64 {
            0 => pixel(p),
            at if at > 0 => format!("({} << {}u)", pixel(p), 8 * at),
            at => format!("({} >> {}u)", pixel(p), -8 * at),
        })
        .collect::<Vec<_>>()
        .join(" | ")
}

/// The masks of [`steps`], for 32-bit words or pairs of them.
#[derive(Clone, Copy)]
struct Masks {
    low16: &'static str,
    high16: &'static str,
    even8: &'static str,
    odd8: &'static str,
    /// Whether a shift needs its source masked first (pairs: bits would cross words).
    pre: bool,
}

impl Masks {
    const WORD: Masks = Masks {
        low16: "0xffffu",
        high16: "0xffff0000u",
        even8: "0x00ff00ffu",
        odd8: "0xff00ff00u",
        pre: false,
    };
    const PAIR: Masks = Masks {
        low16: "0x0000ffff0000fffflu",
        high16: "0xffff0000ffff0000lu",
        even8: "0x00ff00ff00ff00fflu",
        odd8: "0xff00ff00ff00ff00lu",
        pre: true,
    };
}

/// The two steps of a 4x4-byte transpose of rows `w` (16-bit halves into `{t}{at}_*`, then
/// bytes into `{s}{at}_*`).
fn steps(at: &str, w: &[String], [s, t]: [&str; 2], m: Masks) -> String {
    let (a, b, c, d) = (&w[0], &w[1], &w[2], &w[3]);
    let (lo, hi) = (m.low16, m.high16);
    // `x << 16` of the low halves, `x >> 16` of the high ones.
    let up = |x: &str| match m.pre {
        true => format!("(({x} & {lo}) << 16u)"),
        false => format!("({x} << 16u)"),
    };
    let down = |x: &str| match m.pre {
        true => format!("(({x} & {hi}) >> 16u)"),
        false => format!("({x} >> 16u)"),
    };
    let mut f = format!(
        "        let {t}{at}_0 = ({a} & {lo}) | {};\n        let {t}{at}_1 = ({b} & {lo}) | {};\n        let {t}{at}_2 = {} | ({c} & {hi});\n        let {t}{at}_3 = {} | ({d} & {hi});\n",
        up(c),
        up(d),
        down(a),
        down(b)
    );
    for (h, (x, y)) in [(0, (0, 1)), (2, (2, 3))] {
        let _ = write!(
            f,
            "        let {s}{at}_{h} = ({t}{at}_{x} & {e}) | (({t}{at}_{y} & {e}) << 8u);\n        let {s}{at}_{h1} = (({t}{at}_{x} >> 8u) & {e}) | ({t}{at}_{y} & {o});\n",
            h1 = h + 1,
            e = m.even8,
            o = m.odd8
        );
    }
    f
}
