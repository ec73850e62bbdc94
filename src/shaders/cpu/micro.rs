//! The micro kernel (register blocks moved whole, for CPU adapters): its block moves,
//! bounds of padded views, and their parameter words.

use super::packed::{self, Packs, Word};
use crate::plan::{BlockConvert, ChannelAt};
use crate::plan::{Chunk, Plan};
use crate::shaders::{
    Block, BlockSides, BoundWords, Build, LANE_GROUP, MICRO_WGSL, MICRO_WORKGROUP, MicroVariant,
    Strip, TILE_BATCH, TemplateError, TileWord, batch_fn, block_convert_fn, block_params,
    box_convert_block, box_of, convert_source, fill, fill_unit, micro_bound_params,
    micro_bound_words, micro_bounds_fn, pack_of, tile_prelude,
};
use crate::shaders::{BoundWord, bound_word};
use crate::shaders::{Constant, Storage, comment};
use std::fmt::Write;

pub(in crate::shaders) fn micro_source(
    v: &MicroVariant,
    build: Build,
) -> Result<String, TemplateError> {
    let block = v.block;
    let store = match block.access_bytes {
        16 => Storage::of(16, v.access64),
        _ => Storage::U32,
    };
    // A flat strip's element side accesses words (read in pairs, `u64`s).
    let word_or = |elements: bool| if elements { Storage::U32 } else { store };
    debug_assert!(!block.flat_pairs || (block.elements_in() && v.access64 && v.unit == 4));
    let src = match block.flat_pairs {
        true => Storage::U64,
        false => word_or(block.elements_in()),
    };
    let stores = (src, word_or(block.elements_out()));
    let (bounds_fn, batch_bounds) = match v.padded {
        true => (
            micro_bounds_fn(v.rank.saturating_sub(2)),
            format!(
                "    let bv = batch_bounds(b);\n    let fill = {};\n",
                fill_unit(block.access_bytes, v.access64)
            ),
        ),
        false => (String::new(), String::new()),
    };
    let sides = Sides {
        unit: v.unit,
        dst_unit: v.convert.map_or(v.unit, |c| c.key.to.size() as u32),
        convert: v.convert,
    };
    let convert_fn = match v.convert {
        Some(c) => convert_source(c.key.from, c.key.to)? + &block_convert_fn(c.key.affine)?,
        None => String::new(),
    };
    let (hoisted, moves) = block_move(&block, sides, v.access64, v.padded);
    let kernel = fill(
        "cpu/micro.wgsl",
        MICRO_WGSL,
        &[
            ("SIDE", &format!("{}u", block.side)),
            ("RUN", &format!("{}u", block.run)),
            ("ORDER_CONSTANTS", &order_constants(&block, v.padded)),
            ("ORDER", &block_order(&block, v.rank)),
            ("RUN_END", run_end(&block)),
            ("SHAPE_FN", &shape_fn(v)),
            ("BATCH_FN", &batch_fn(v.rank.saturating_sub(2), "shape")),
            ("BOUNDS_FN", &bounds_fn),
            ("BATCH_BOUNDS", &(batch_bounds + &hoisted)),
            ("BLOCK_MOVE", &moves),
        ],
    )?;
    let prelude = tile_prelude(
        (v.rank, v.unit),
        v.padded.then_some(micro_bound_words as BoundWords),
        v.convert.is_some(),
        stores,
        build,
        MICRO_WORKGROUP,
    )?;
    Ok(prelude + &convert_fn + &kernel)
}

/// The words a specialised micro plan compiles into its pipeline as constants `P{i}`
/// ([`constants`](super::constants)): its shape's, the head but for the offsets, and the
/// batch dims' extents and strides; a padded view's bounds too (not its fill). Offsets,
/// fills and conversion tables stay uniforms: a shape that recurs keeps one pipeline
/// wherever its tensors lie.
pub(in crate::shaders) fn shape_words(batch: usize, padded: bool) -> Vec<usize> {
    let offsets = [TileWord::SrcOff as usize, TileWord::DstOff as usize];
    let (_, end) = micro_bound_words(batch);
    let after_fill = bound_word(batch, BoundWord::RowMults)..end;
    (0..TILE_BATCH + 3 * batch)
        .filter(|i| !offsets.contains(i))
        .chain(after_fill.filter(|_| padded))
        .collect()
}

/// `shape(i)`: the parameter word, or a specialised variant's constant for the shape's
/// words ([`shape_words`]); the kernel reads them at constant indices, so the switch folds
/// away.
fn shape_fn(v: &MicroVariant) -> String {
    if !v.specialized {
        return "fn shape(i: u32) -> u32 { return param(i); }".into();
    }
    let words = shape_words(v.rank.saturating_sub(2), v.padded);
    let mut f = String::from(
        "// The shape's words are pipeline constants (the plan is compiled for its shape), so that\n// its divisions and address arithmetic fold; the others are the parameter block's.\n",
    );
    f += &words
        .iter()
        .map(|&i| format!("override {}: u32;\n", Constant::ShapeWord(i).name()))
        .collect::<String>();
    f += "fn shape(i: u32) -> u32 {\n    switch i {\n";
    for i in &words {
        let p = Constant::ShapeWord(*i).name();
        let _ = writeln!(f, "        case {i}u: {{ return {p}; }}");
    }
    f += "        default: { return param(i); }\n    }\n}";
    f
}

/// What the variant's blocks are, as comments, and the constants of their order: a
/// lane-major run's `LANES`, and `BANDED` where a dispatch may have several bands.
fn order_constants(block: &Block, padded: bool) -> String {
    let mut f = String::new();
    match (block.strip, block.flat) {
        (Some(Strip::Cols(n)), false) => {
            f += &comment(
                "",
                &format!(
                    "A column strip: SIDE input rows of all {n} columns, which lie back to back (one span of accesses), to {n} output rows."
                ),
            );
        }
        (Some(Strip::Rows(n)), false) => {
            f += &comment(
                "",
                &format!(
                    "A row strip: all {n} input rows by SIDE columns, to SIDE output rows that lie back to back (one span of accesses)."
                ),
            );
        }
        (Some(_), true) => {
            f += &comment(
                "",
                "A flat strip: its span side runs on over every image (blocks count the pixels of all images as one sequence, and find their images themselves); its planes move element by element.",
            );
        }
        (None, _) => {}
    }
    if padded {
        f += &comment(
            "",
            "A padded view: a block row outside a bound is not read; its accesses take the fill value.",
        );
    }
    if block.lane_major {
        f += &comment(
            "",
            "An invocation's blocks are LANES apart: at each step a SIMD group of LANES invocations moves LANES neighbouring blocks, one span on each side.",
        );
        let _ = writeln!(f, "const LANES: u32 = {LANE_GROUP}u;");
    }
    if block.may_band() {
        f += &comment(
            "",
            "Whether some dispatch has more than one band of row blocks: a pipeline constant, so that one band is the plain order alone, with fewer divisions.",
        );
        f += "override BANDED: bool = false;\n";
    }
    f
}

/// The invocation's first block (`br0`, `bc0`) and batch index (`b`), decoded once for its
/// run; the kernel returns past the last block.
fn block_order(block: &Block, rank: usize) -> String {
    let mut f = String::new();
    f += match block.lane_major {
        true => "    let g = wg * WORKGROUP * RUN + (lid / LANES) * LANES * RUN + lid % LANES;\n",
        false => "    let g = (wg * WORKGROUP + lid) * RUN;\n",
    };
    f += "    if wg >= shape(TOTAL_WORKGROUPS) || g >= shape(TILES) {\n        return;\n    }\n";
    let moves = block.lane_major || block.may_band();
    let (var, var_b) = (
        if moves { "var" } else { "let" },
        if block.lane_major { "var" } else { "let" },
    );
    if block.column_runs {
        // Neighbouring invocations take neighbouring row blocks, each RUN column blocks;
        // the batch's innermost dim may come before the column runs.
        f += &comment(
            "    ",
            "Column runs: neighbouring invocations take neighbouring row blocks, each RUN neighbouring column blocks.",
        );
        f += "    let k = g / RUN;\n    let across = shape(TILES_C) / RUN;\n";
        let _ = writeln!(
            f,
            "    {var} br0 = k % shape(TILES_R);\n    let rest = k / shape(TILES_R);"
        );
        match (block.batch_before_columns, rank.checked_sub(3)) {
            (true, Some(last)) => {
                let _ = writeln!(
                    f,
                    "    // The batch's innermost dim goes before the column runs.\n    let inner = shape(BATCH + {last}u);\n    {var} bc0 = rest / inner % across * RUN;\n    {var_b} b = rest / inner / across * inner + rest % inner;"
                );
            }
            _ => {
                let _ = writeln!(
                    f,
                    "    {var} bc0 = rest % across * RUN;\n    {var_b} b = rest / across;"
                );
            }
        }
        return f;
    }
    f += &comment(
        "    ",
        "Neighbouring invocations take neighbouring row blocks (a row strip's: column blocks).",
    );
    let _ = writeln!(
        f,
        "    {var} br0 = g % shape(TILES_R);\n    let rest = g / shape(TILES_R);\n    {var} bc0 = rest % shape(TILES_C);\n    {var_b} b = rest / shape(TILES_C);"
    );
    if block.may_band() {
        f += &comment(
            "    ",
            "Row blocks in bands of BAND (the last one shorter): a workgroup covers a band's rows of several column blocks, reading few rows (pages) at a time.",
        );
        f += "    if BANDED {
        let band = shape(BAND);
        let k = g - b * shape(TILES_R) * shape(TILES_C);
        let full = shape(TILES_R) / band;
        let in_full = full * band * shape(TILES_C);
        var height = band;
        var first = (k / (band * shape(TILES_C))) * band;
        var in_band = k % (band * shape(TILES_C));
        if k >= in_full {
            height = shape(TILES_R) - full * band;
            first = full * band;
            in_band = k - in_full;
        }
        br0 = first + in_band % height;
        bc0 = in_band / height;
    }
";
    }
    f
}

/// A lane-major run stops at the last block (it may run past it).
fn run_end(block: &Block) -> &'static str {
    match block.lane_major {
        true => "        if g + j * LANES >= shape(TILES) {\n            break;\n        }\n",
        false => "",
    }
}

/// Element sizes of the two sides of a micro block, and its conversion (if any).
#[derive(Clone, Copy)]
pub(in crate::shaders) struct Sides {
    unit: u32,
    dst_unit: u32,
    convert: Option<BlockConvert>,
}

/// The micro kernel's move of the `j`th block of an invocation's run, unrolled: where the
/// block starts (`first_in`, `first_out`, in accesses), its loads, and its stores, whose
/// words are gathered from the loads at compile-time positions (whole words for 4 and
/// 8-byte elements, packed lanes for 8/16-bit ones, converted by `cvt` where the sides'
/// types differ). A square block loads each input row and stores each output row as
/// accesses; a strip loads or stores its span side as one run of accesses ([`Strip`]). With
/// `padded`, an input row outside the view's bounds is not read and takes the fill value.
///
/// Generated rather than written as WGSL loops over the block: the same move as loops over
/// a private array, with lanes picked by computed indices, left lavapipe to unroll it, and
/// it did not (`[64,512,512] (0,2,1)` with 64-bit accesses, 3 alternating runs: 4-byte
/// 0.64-0.79 of the shader copy unrolled against 0.47-0.58 as loops, 2-byte 0.56-0.58
/// against 0.20-0.30, 1-byte 0.35-0.77 against 0.21-0.23).
pub(in crate::shaders) fn block_move(
    block: &Block,
    sides: Sides,
    access64: bool,
    padded: bool,
) -> (String, String) {
    let (unit, side) = (sides.unit, block.side);
    // Elements per access on each side, and accesses per block row.
    let (per, per_d) = (block.per_in(unit), block.per_out(sides.dst_unit));
    let (accesses, accesses_d) = (side / per, side / per_d);
    debug_assert!(block.strip.is_none() || !padded, "strips are never padded");
    // Where the `j`th block starts (its index along the run, then its first input and
    // output access), and its loads: the name and the address of each access.
    let ((index, first_in, first_out), loads): (_, Vec<(String, String)>) = match block.strip {
        None if block.column_runs => (
            (
                "br = br0;\n        let bc = bc0 + j".to_string(),
                format!("{accesses}u * bc + SIDE * br * in_row"),
                format!("{accesses_d}u * br + SIDE * bc * out_row"),
            ),
            square_loads(side, accesses),
        ),
        None => (
            (
                "br = br0 + j".to_string(),
                format!("{accesses}u * bc0 + SIDE * br * in_row"),
                format!("{accesses_d}u * br + SIDE * bc0 * out_row"),
            ),
            square_loads(side, accesses),
        ),
        // `side` input rows back to back: one span of `side * n / per` accesses.
        // A lane-major run moves `br0` on itself (`next_block`).
        Some(Strip::Cols(n)) => (
            (
                match block.lane_major {
                    true => "br = br0".into(),
                    false => "br = br0 + j".into(),
                },
                format!("{}u * br", side * n / per),
                format!("{accesses_d}u * br"),
            ),
            (0..side * n / per)
                .map(|k| (format!("x{k}"), format!("{k}u")))
                .collect(),
        ),
        // `n` input rows of whole accesses; the output's `side` rows back to back.
        Some(Strip::Rows(n)) => (
            (
                "bc = bc0 + j".into(),
                format!("{accesses}u * bc"),
                format!("{}u * bc", side * n / per_d),
            ),
            (0..n)
                .flat_map(|r| {
                    (0..accesses).map(move |a| {
                        let addr = match block.flat {
                            true => format!("e{a} + {r}u * in_row"),
                            false => format!("{r}u * in_row + {a}u"),
                        };
                        (format!("x{r}_{a}"), addr)
                    })
                })
                .collect(),
        ),
    };
    let mut f = format!(
        "        let {index};\n        let first_in = param(SRC_OFF) + bases.x + {first_in};\n        let first_out = param(DST_OFF) + bases.y + {first_out};\n"
    );
    if block.flat {
        f += &flat_pixels(block);
    }
    // A flat strip's element side: each access one element at its pixel's place (`e{i}`,
    // from `flat_pixels`); a packed source element is picked from its word as it is read.
    let (flat_in, flat_out) = (block.elements_in(), block.elements_out());
    // The load and the unit within it of the block's element at input row `r`, column `c`.
    let at = |r: u32, c: u32| -> (usize, u32) {
        match block.strip {
            None | Some(Strip::Rows(_)) => ((r * accesses + c / per) as usize, c % per),
            Some(Strip::Cols(n)) => (((r * n + c) / per) as usize, (r * n + c) % per),
        }
    };
    // The stores: the address of each access and the elements (row, column) it holds.
    let stores: Vec<(String, Vec<(u32, u32)>)> = match block.strip {
        None | Some(Strip::Cols(_)) => (0..block.cols())
            .flat_map(|c| {
                (0..accesses_d).map(move |a| {
                    let rows = (a * per_d..(a + 1) * per_d).map(|r| (r, c)).collect();
                    match block.flat {
                        true => (format!("e{a} + {c}u * out_row"), rows),
                        false => (format!("first_out + {c}u * out_row + {a}u"), rows),
                    }
                })
            })
            .collect(),
        // Output unit `k` of the span is column `k / n`'s row `k % n`.
        Some(Strip::Rows(n)) => (0..side * n / per_d)
            .map(|a| {
                let units = (a * per_d..(a + 1) * per_d)
                    .map(|k| (k % n, k / n))
                    .collect();
                (format!("first_out + {a}u"), units)
            })
            .collect(),
    };
    let load = |(name, addr): &(String, String)| match flat_in {
        false => format!("{name} = load_src(first_in + {addr});"),
        true if pack_of(unit) == 1 => format!("{name} = load_src({addr});"),
        true => format!("{name} = lane(load_src(({addr}) / PACK), ({addr}) % PACK);"),
    };
    if let (true, Some(Strip::Rows(n))) = (block.flat_pairs, block.strip) {
        f += &flat_pair_loads(block.side, n, &loads);
    } else if !padded {
        for l in &loads {
            let _ = writeln!(f, "        let {}", load(l));
        }
    }
    // Padded views (square blocks only): one check per input row of accesses.
    if padded {
        for (r, chunk) in loads.chunks(accesses as usize).enumerate() {
            for (name, _) in chunk {
                let _ = writeln!(f, "        var {name} = fill;");
            }
            let _ = writeln!(f, "        if row_inside(bv, SIDE * br + {r}u) {{");
            for l in chunk {
                let _ = writeln!(f, "            {}", load(l));
            }
            f += "        }\n";
        }
    }
    // The channel of each row, column or the batch, where the affine varies over one.
    let channel = sides.convert.and_then(|c| c.channel);
    // Where the block's rows and columns start, and whether that changes along the run.
    let ((first_row, rows_move), (first_col, cols_move)) = match block.strip {
        None if block.column_runs => (("SIDE * br", false), ("SIDE * bc", true)),
        None => (("SIDE * br", true), ("SIDE * bc0", false)),
        Some(Strip::Cols(_)) => (("SIDE * br", true), ("0u", false)),
        Some(Strip::Rows(_)) => (("0u", false), ("SIDE * bc", true)),
    };
    // Each channel's scale and bias are read once per block: `sc{sfx}`, `bi{sfx}`.
    let affine = sides.convert.is_some_and(|c| c.key.affine);
    let read = |sfx: &str, ch: &str| match affine {
        true => format!(
            "        let sc{sfx} = bitcast<f32>(param(CONVERT + 4u + {ch}));\n        let bi{sfx} = bitcast<f32>(param(CONVERT + 4u + MAX_CHANNELS + {ch}));\n"
        ),
        false => String::new(),
    };
    // A strip whose short dim carries the channels holds them by position
    // (`Plan::channels_by_position`: position `i` is word `i`); other blocks divide once,
    // for their first row or column, and move a cursor on (`channel_next`).
    let by_position = |at| block.strip.is_some_and(|s: Strip| s.carries(at));
    let channels = |at: ChannelAt, first: &str, name: &str, n: u32| {
        let cursor = format!("ch_{name}");
        let computed = affine && !by_position(at);
        let mut f = match computed {
            true => format!("        var {cursor} = channel_at({first});\n"),
            false => String::new(),
        };
        for i in 0..n {
            let ch = match computed {
                true => format!("{cursor}.x"),
                false => format!("{i}u"),
            };
            f += &read(&format!("_{name}{i}"), &ch);
            if computed && i + 1 < n {
                let _ = writeln!(f, "        {cursor} = channel_next({cursor});");
            }
        }
        f
    };
    let reads = match channel {
        Some(ChannelAt::Rows) => channels(ChannelAt::Rows, first_row, "r", block.rows()),
        Some(ChannelAt::Cols) => channels(ChannelAt::Cols, first_col, "c", block.cols()),
        Some(ChannelAt::Batch) => read("_b", "(b / param(CONVERT)) % param(CONVERT + 1u)"),
        None => read("_", "0u"),
    };
    // Channels that are the same for every block of the run are read once, before it: a
    // compiler may not move uniform reads (and their divisions) past the stores.
    let hoisted = match channel {
        Some(ChannelAt::Rows) if rows_move => String::new(),
        Some(ChannelAt::Cols) if cols_move => String::new(),
        Some(ChannelAt::Batch) if block.lane_major => String::new(),
        _ => reads.lines().map(|l| format!("{}\n", &l[4..])).collect(),
    };
    if hoisted.is_empty() {
        f += &reads;
    }
    let channel_of = |r: u32, c: u32| match channel {
        Some(ChannelAt::Rows) => format!("_r{r}"),
        Some(ChannelAt::Cols) => format!("_c{c}"),
        Some(ChannelAt::Batch) => "_b".into(),
        None => "_".into(),
    };
    // Words per access, on each side.
    let words = |elements: bool| if elements { 1 } else { block.access_bytes / 4 };
    let (vec, vec_out) = (words(flat_in), words(flat_out));
    // Word `k` of load `name` (of a 64-bit component: its low or high half).
    let word = |name: &str, k: u32| match (vec, access64) {
        _ if k >= vec => unreachable!("word {k} of a {vec}-word access"),
        (4, true) => {
            let c = ["x", "y"][(k / 2) as usize];
            match k % 2 {
                0 => format!("u32({name}.{c})"),
                _ => format!("u32({name}.{c} >> 32u)"),
            }
        }
        (4, false) => format!("{name}.{}", ["x", "y", "z", "w"][k as usize]),
        _ => name.to_string(),
    };
    // The element at (r, c) as it is stored: its source bits, converted where the types
    // differ (1, 2 and 4-byte elements, each within one word).
    let pack = pack_of(unit);
    let element = |(r, c): (u32, u32)| {
        let (l, u) = at(r, c);
        let bits = match pack {
            1 => word(&loads[l].0, u),
            _ if flat_in => loads[l].0.clone(),
            _ => format!("lane({}, {}u)", word(&loads[l].0, u / pack), u % pack),
        };
        match sides.convert {
            Some(_) if affine => {
                let sfx = channel_of(r, c);
                format!("cvt({bits}, sc{sfx}, bi{sfx})")
            }
            Some(_) => format!("cvt({bits})"),
            None => bits,
        }
    };
    // Blocks of bytes, unconverted, transposed 4x4 bytes at a time (`packed`): square
    // blocks; on 64-bit components two 4x4s at once, and strips of whole pairs of 4x4s too
    // (4 or 8 planes of pixels, say), or of 2 or 3 planes with zero planes to make 4, their
    // pixels' words then packed `n` bytes apart (`packed::pixels_half`).
    let (rows, cols) = (block.rows(), block.cols());
    let planes = match block.strip {
        Some(Strip::Rows(n @ (2 | 3))) => Some(n),
        _ => None,
    };
    let pairs = access64 && vec == 4 && cols % 8 == 0 && (rows % 4 == 0 || planes.is_some());
    let bytes = pack == 4 && sides.convert.is_none() && !block.flat;
    let swar = bytes && (block.strip.is_none() || pairs);
    let swar64 = swar && pairs;
    let component = |name: &str, k: u32| format!("{name}.{}", ["x", "y"][(k / 2) as usize]);
    match (swar, swar64) {
        (true, true) => {
            f += &packed::swar64(rows.next_multiple_of(4), cols, &|r, j| match r < rows {
                true => {
                    let (l, u) = at(r, 8 * j);
                    component(&loads[l].0, u / pack)
                }
                false => "0lu".into(),
            })
        }
        (true, false) => {
            f += &packed::swar(side, &|r, m| {
                let (l, u) = at(r, 4 * m);
                word(&loads[l].0, u / pack)
            })
        }
        _ => {}
    }
    // Word `k` of a store holding `units`.
    let out_word = |units: &[(u32, u32)], k: u32| match pack_of(sides.dst_unit) {
        4 if swar => {
            let (r, c) = units[(k * 4) as usize];
            packed::swar_word(r, c)
        }
        1 if sides.convert.is_some() => element(units[k as usize]),
        1 => {
            let e = unit / 4; // words per element
            let (l, u) = at(units[(k / e) as usize].0, units[(k / e) as usize].1);
            word(&loads[l].0, u * e + k % e)
        }
        pack_d => {
            let bits = 32 / pack_d;
            (0..pack_d)
                .map(|i| {
                    let value = element(units[(k * pack_d + i) as usize]);
                    format!("({value} << {}u)", bits * i)
                })
                .collect::<Vec<_>>()
                .join(" | ")
        }
    };
    // Packed units moved as they are in 16-byte accesses of 64-bit components: each half
    // of a store built whole where its words gather alike (`halves`), else word by word.
    let halves = access64 && pack > 1 && sides.convert.is_none() && !swar && vec == 4;
    let mut packs = Packs::default();
    let load_name = |l: usize| loads[l].0.clone();
    let mut moves = String::new();
    for (addr, units) in &stores {
        let words: Vec<String> = (0..vec_out).map(|k| out_word(units, k)).collect();
        // Word `k`'s units: where each comes from (its load's word, and lane).
        let sources = |k: usize| -> Vec<(Word, u32)> {
            units[k * pack as usize..(k + 1) * pack as usize]
                .iter()
                .map(|&(r, c)| {
                    let (l, u) = at(r, c);
                    ((l, u / pack), u % pack)
                })
                .collect()
        };
        let half = |h: usize, packs: &mut Packs| {
            if swar64 {
                let (lo, hi) = (units[2 * h * 4], units[(2 * h + 1) * 4]);
                return match planes {
                    // The half's first byte of the span: column `c`'s row `r`.
                    Some(n) => packed::pixels_half(n, (lo.1 * n + lo.0) / 8),
                    None => packed::swar_half(lo, hi),
                };
            }
            let whole = halves
                .then(|| packs.half(&sources(2 * h), &sources(2 * h + 1), 32 / pack, &load_name))
                .flatten();
            whole.unwrap_or_else(|| {
                format!("u64({}) | (u64({}) << 32u)", words[2 * h], words[2 * h + 1])
            })
        };
        let value = match (vec_out, access64) {
            (4, true) => {
                let (low, high) = (half(0, &mut packs), half(1, &mut packs));
                format!("vec2<u64>({low}, {high})")
            }
            (4, false) => format!("vec4<u32>({})", words.join(", ")),
            _ => words.join(""),
        };
        let _ = writeln!(moves, "        store_dst({addr}, {value});");
    }
    f += &packs.lets;
    f += &moves;
    debug_assert!(!block.lane_major || matches!(block.strip, Some(Strip::Cols(_))));
    match block.lane_major {
        true => (next_step() + &hoisted, f + &next_block()),
        false => (hoisted, f),
    }
}

/// Before a lane-major run (a column strip's, along its `TILES_R` row blocks): how far
/// `LANES` blocks move along the run and over the batch (divided once).
fn next_step() -> String {
    "    let step_along = LANES % shape(TILES_R);\n    let step_batch = LANES / shape(TILES_R);\n"
        .into()
}

/// The end of a lane-major run's step: its next block, `LANES` blocks on, into the
/// next batch index past the last row block (`step_along` is below `TILES_R`, so at most
/// one more; the kernel stops at the end).
fn next_block() -> String {
    "        br0 += step_along;\n        let past = br0 >= shape(TILES_R);\n        br0 = select(br0, br0 - shape(TILES_R), past);\n        b += step_batch + select(0u, 1u, past);\n        bases = batch_bases(b);\n".into()
}

/// A square block's loads: each input row's accesses, named `x{row}_{access}`.
fn square_loads(side: u32, accesses: u32) -> Vec<(String, String)> {
    (0..side)
        .flat_map(|r| {
            (0..accesses).map(move |a| (format!("x{r}_{a}"), format!("{r}u * in_row + {a}u")))
        })
        .collect()
}

/// A flat strip's `n` planes read in pairs ([`Block::flat_pairs`]): `loads` are the
/// block's words `x{r}_{a}` (plane `r`, pixel `a` of `side`, at `e{a} + r * in_row`).
/// Where the block lies in one image, plane `r`'s words start at `w`, and pixel `a`'s is in
/// `u64` `(w + a) / 2` of the `side / 2 + 1` from `w / 2` (the last only for an odd `w`);
/// else each word is read from its own `u64`.
fn flat_pair_loads(side: u32, n: u32, loads: &[(String, String)]) -> String {
    let half = |y: String, k: u32| match k % 2 {
        0 => format!("u32({y})"),
        _ => format!("u32({y} >> 32u)"),
    };
    let mut f = String::new();
    for (name, _) in loads {
        let _ = writeln!(f, "        var {name}: u32;");
    }
    f += "        if left >= SIDE {\n";
    for r in 0..n {
        let _ = writeln!(f, "            let w{r} = e0 + {r}u * in_row;");
        let _ = writeln!(f, "            let odd{r} = (w{r} & 1u) == 1u;");
        for k in 0..side / 2 {
            let _ = writeln!(
                f,
                "            let y{r}_{k} = load_src((w{r} >> 1u) + {k}u);"
            );
        }
        // Read only where it holds the last word: never past the source.
        let last = side / 2;
        let _ = writeln!(f, "            var y{r}_{last} = u64(0u);");
        let _ = writeln!(
            f,
            "            if odd{r} {{\n                y{r}_{last} = load_src((w{r} >> 1u) + {last}u);\n            }}"
        );
        for a in 0..side {
            let even = half(format!("y{r}_{}", a / 2), a);
            let odd = half(format!("y{r}_{}", a.div_ceil(2)), a + 1);
            let _ = writeln!(f, "            x{r}_{a} = select({even}, {odd}, odd{r});");
        }
    }
    f += "        } else {\n";
    for (name, addr) in loads {
        let _ = writeln!(
            f,
            "            {name} = u32(load_src(({addr}) >> 1u) >> (32u * (({addr}) & 1u)));"
        );
    }
    f + "        }\n"
}

/// A flat strip's block, pixel by pixel: `e{i}`, where pixel `i` of the block is on its
/// element side (in elements). Blocks count pixels over every image (`ROWS` or `COLS` each) as one
/// sequence; a block starts in image `b0` and, where fewer than `SIDE` of its pixels are
/// left there, ends in the next (images have at least `SIDE` pixels: `plan::flat_strip`).
fn flat_pixels(block: &Block) -> String {
    let (index, pixels, off, base) = match block.strip {
        Some(Strip::Rows(_)) => ("bc", "COLS", "SRC_OFF", "x"),
        _ => ("br", "ROWS", "DST_OFF", "y"),
    };
    let mut f = format!(
        "        let g0 = SIDE * {index};\n        let b0 = g0 / param({pixels});\n        let p0 = g0 - b0 * param({pixels});\n        let left = param({pixels}) - p0;\n        let e_here = param({off}) + batch_bases(b0).{base} + p0;\n        let e_next = param({off}) + batch_bases(b0 + 1u).{base} + p0 - param({pixels});\n"
    );
    for i in 0..block.side {
        let _ = writeln!(
            f,
            "        let e{i} = select(e_next, e_here, {i}u < left) + {i}u;"
        );
    }
    f
}

/// The micro kernel's parameter block of one dispatch: its blocks' words
/// (`tiled::block_params`: sides, offsets and strides in its accesses, bands), a padded
/// view's bounds, and a conversion's tables.
pub(in crate::shaders) fn micro_params(plan: &Plan, chunk: &Chunk) -> Vec<u32> {
    let (extents, _, _) = box_of(plan, chunk);
    let block = plan.variant().and_then(|v| v.block()).unwrap_or(Block {
        side: 1,
        access_bytes: 4,
        run: 1,
        strip: None,
        flat: false,
        flat_pairs: false,
        lane_major: false,
        column_runs: false,
        batch_before_columns: false,
    });
    let (per, per_d) = (block.per_in(plan.unit), block.per_out(plan.dst_unit()));
    // An access's bytes on each side (a flat strip's element side: an element's).
    let off = |elements: bool, unit: u32| match elements {
        true => unit as u64,
        false => block.access_bytes as u64,
    };
    let sides = BlockSides {
        rows_cols: (block.rows() as u64, block.cols() as u64),
        off_bytes: (
            off(block.elements_in(), plan.unit),
            off(block.elements_out(), plan.dst_unit()),
        ),
        per: (per as i64, per_d as i64),
        flat: crate::plan::flat_box_blocks(plan, &block, &extents).zip(block.strip),
    };
    let mut words = block_params(plan, chunk, &sides, plan.micro_band());
    if plan.view.as_ref().is_some_and(|v| !v.bounds.is_empty()) {
        words.extend(micro_bound_params(plan, &plan.box_batch_dims()));
    }
    if let Some(c) = &plan.conversion {
        words.resize(words.len().next_multiple_of(4), 0);
        words.extend(box_convert_block(plan, chunk, c));
    }
    words
}

/// Whether some dispatch of a micro plan has more than one band (the pipeline constant
/// `BANDED`: one band is the plain order, with fewer divisions).
pub(in crate::shaders) fn micro_banded(plan: &Plan) -> bool {
    let (Some(block), Some(band)) = (plan.variant().and_then(|v| v.block()), plan.micro_band())
    else {
        return false;
    };
    // The banded order decodes the batch plainly (column runs have one band).
    debug_assert!(!block.batch_before_columns);
    let rows = block.rows() as u64;
    plan.chunks.iter().any(|chunk| {
        let (_, r, _) = plan
            .box_batch_rows_cols(&box_of(plan, chunk).0)
            .unwrap_or((0, 0, 0));
        band < r.div_ceil(rows)
    })
}

/// The micro kernel's pipeline constants: `BANDED` where it has bands, and specialised,
/// its shape's words `P{i}` ([`shape_words`], from its one dispatch's parameter block).
pub(in crate::shaders) fn micro_constants(plan: &Plan) -> Vec<(String, f64)> {
    let mut constants = match micro_banded(plan) {
        true => vec![(Constant::Banded.name(), 1.0)],
        false => Vec::new(),
    };
    // Specialised plans' boxes have one shape (`plan::specialize`): the same words.
    if let (true, Some(chunk)) = (plan.specialized, plan.chunks.first()) {
        let words = crate::shaders::params(plan, chunk);
        let batch = plan.dims.len().saturating_sub(2);
        let padded = plan.view.as_ref().is_some_and(|v| !v.bounds.is_empty());
        let shape = shape_words(batch, padded);
        debug_assert!(
            plan.chunks.iter().all(|c| {
                let other = crate::shaders::params(plan, c);
                shape.iter().all(|&i| other[i] == words[i])
            }),
            "{plan}"
        );
        constants.extend(
            shape
                .into_iter()
                .map(|i| (Constant::ShapeWord(i).name(), words[i] as f64)),
        );
    }
    constants
}
