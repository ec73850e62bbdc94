//! The tiled kernel's strips (`shaders/tiled_strip.wgsl`): conversions between interleaved
//! and planar layouts of a short dim, a quad of 4 pixels of every channel per invocation,
//! the interleaved side staged through workgroup memory in whole words.

use crate::Plan;
use crate::plan::tuning::TILED_STRIP_WORKGROUP;
use crate::plan::{BlockConvert, ChannelAt, TiledStrip};
use crate::shaders::Storage;
use crate::shaders::{
    Access, Build, Chunk, Strip, TILE_BATCH, TemplateError, TileWord, TiledVariant, batch_fn,
    block_convert_fn, convert_source, convert_words, fill, prelude_with,
};
use crate::shaders::{quad_bits, quad_value};

/// Template of the tiled kernel's strips (entry point `tiled`).
pub const TILED_STRIP_WGSL: &str = include_str!("../../shaders/tiled_strip.wgsl");

/// The tile's accesses, through which trace mode records them (one word each).
fn tile_fns(build: Build) -> &'static str {
    match build {
        Build::Shipped => {
            "fn load_tile(i: u32) -> u32 {\n    return tile[i];\n}\n\nfn store_tile(i: u32, value: u32) {\n    tile[i] = value;\n}\n"
        }
        Build::Trace { .. } => {
            "fn load_tile(i: u32) -> u32 {\n    record(TRACE_TILE_LOAD, i, 4u);\n    return tile[i];\n}\n\nfn store_tile(i: u32, value: u32) {\n    record(TRACE_TILE_STORE, i, 4u);\n    tile[i] = value;\n}\n"
        }
    }
}

/// Steps of 32 invocations between rotations of the order of their `s` tile words: 32 over
/// the power of two in `s` (an odd `s` needs none), so that every step touches 32 banks.
fn rotation(s: u32) -> u32 {
    32 / (1 << s.trailing_zeros().min(5))
}

/// The tiled strip kernel's source (`shaders/tiled_strip.wgsl`): N, S, K, the tile's
/// length, LONG (the long dim's word: COLS for planar sources, ROWS for interleaved ones),
/// the unrolled batch decode (offsets in elements), the tile accesses (recorded in trace
/// mode), and the unrolled move of a quad: loads, conversions and stores.
pub(super) fn strip_source(
    v: &TiledVariant,
    s: TiledStrip,
    build: Build,
) -> Result<String, TemplateError> {
    let c = s.convert;
    let (ss, ds) = (c.key.from.size(), c.key.to.size());
    let (interleaved_in, n) = match s.strip {
        Strip::Cols(n) => (true, n as usize),
        Strip::Rows(n) => (false, n as usize),
    };
    // Words of a quad's 4n elements on the interleaved side.
    let size = if interleaved_in { ss } else { ds };
    let words = (n * size) as u32;
    let (src, dst) = match interleaved_in {
        true => (Storage::U32, Storage::of(4 * ds as u32, false)),
        false => (Storage::of(4 * ss as u32, false), Storage::U32),
    };
    let kernel = fill(
        "tiled_strip.wgsl",
        TILED_STRIP_WGSL,
        &[
            ("N", &format!("{n}u")),
            ("S", &format!("{words}u")),
            ("K", &format!("{}u", rotation(words))),
            ("TILE_LEN", &(TILED_STRIP_WORKGROUP * words).to_string()),
            ("TILE_FNS", tile_fns(build)),
            ("BATCH_FN", &batch_fn(v.rank.saturating_sub(2), "param")),
            ("QUAD_MOVE", &quad_move(s, ss, ds)),
            ("LONG", if interleaved_in { "ROWS" } else { "COLS" }),
        ],
    )?;
    let mut decls = TileWord::decls();
    decls.push(("BATCH", TILE_BATCH));
    let start = (TILE_BATCH + 3 * v.rank.saturating_sub(2)).next_multiple_of(4);
    decls.push(("CONVERT", start));
    let access = Access {
        src,
        dst,
        reversing: false,
    };
    let prelude = prelude_with(
        access,
        start + convert_words(),
        &decls,
        1,
        build,
        TILED_STRIP_WORKGROUP,
    )?;
    let convert = convert_source(c.key.from, c.key.to)? + &block_convert_fn(c.key.affine)?;
    Ok(prelude + &convert + &kernel)
}

/// The unrolled move of a quad: pixel `k` (0-3) of channel `c` is interleaved element
/// `k * n + c` of the quad, planar element `k` of plane `c`.
fn quad_move(s: TiledStrip, ss: usize, ds: usize) -> String {
    let BlockConvert { key, channel } = s.convert;
    let mut f = String::new();
    let (interleaved_in, n) = match s.strip {
        Strip::Cols(n) => (true, n as usize),
        Strip::Rows(n) => (false, n as usize),
    };
    let size = if interleaved_in { ss } else { ds };
    let words = n * size;
    // The channel of each pixel or plane, where the affine varies over one: the plane is the
    // strip's short dim (the columns of a Cols strip, the rows of a Rows strip).
    let read = |sfx: String, ch: String| -> String {
        match key.affine {
            true => format!(
                "        let sc{sfx} = bitcast<f32>(param(CONVERT + 4u + {ch}));\n        let bi{sfx} = bitcast<f32>(param(CONVERT + 4u + MAX_CHANNELS + {ch}));\n"
            ),
            false => String::new(),
        }
    };
    let ch = |index: String| format!("(({index}) / param(CONVERT)) % param(CONVERT + 1u)");
    let channels: String = match channel {
        Some(ChannelAt::Batch) => read("_b".into(), ch("b".into())),
        // By position (`Plan::channels_by_position`): plane `c`'s values are word `c`.
        Some(at) if s.strip.carries(at) => (0..n)
            .map(|c| read(format!("_c{c}"), format!("{c}u")))
            .collect(),
        Some(_) => (0..4)
            .map(|k| read(format!("_p{k}"), ch(format!("4u * q + {k}u"))))
            .collect(),
        None => read("_".into(), "0u".into()),
    };
    let sfx = |k: usize, c: usize| match channel {
        Some(ChannelAt::Batch) => "_b".to_string(),
        Some(at) if s.strip.carries(at) => format!("_c{c}"),
        Some(_) => format!("_p{k}"),
        None => "_".into(),
    };
    let cvt = |bits: String, k: usize, c: usize| match key.affine {
        true => format!("cvt({bits}, sc{0}, bi{0})", sfx(k, c)),
        false => format!("cvt({bits})"),
    };
    let rotated = "(m + lid / K) % S";
    if interleaved_in {
        // The tile's source words in order, then each quad's from the tile.
        let per = 4 / ss; // elements per source word
        f += &format!(
            "    let first = in_base / {per}u + tq * WORKGROUP * S;\n    for (var w = lid; w < words; w += WORKGROUP) {{\n        store_tile(w, load_src(first + w));\n    }}\n    workgroupBarrier();\n    if inside {{\n        var x: array<u32, {words}>;\n        for (var m = 0u; m < S; m++) {{\n            let j = {rotated};\n            x[j] = load_tile(lid * S + j);\n        }}\n"
        );
        f += &channels;
        for c in 0..n {
            let e: Vec<String> = (0..4)
                .map(|k| {
                    let at = k * n + c;
                    let bits = match ss {
                        4 => format!("x[{at}]"),
                        _ => format!(
                            "((x[{}] >> {}u) & {:#x}u)",
                            at / per,
                            8 * ss * (at % per),
                            (1u64 << (8 * ss)) - 1
                        ),
                    };
                    cvt(bits, k, c)
                })
                .collect();
            f += &format!(
                "        store_dst((out_base + {c}u * param(OUT_ROW) + 4u * q) / 4u, {});\n",
                quad_value(ds, &e, false)
            );
        }
        f += "    }\n";
    } else {
        // Each quad's planes, converted into the tile's words, then the tile in order.
        let per = 4 / ds; // elements per destination word
        f += "    if inside {\n";
        for c in 0..n {
            f += &format!(
                "        let x{c} = load_src((in_base + {c}u * param(IN_ROW) + 4u * q) / 4u);\n"
            );
        }
        f += &channels;
        let mut y = Vec::new();
        for j in 0..words {
            let lanes: Vec<String> = (0..per)
                .map(|l| {
                    let at = j * per + l;
                    let (k, c) = (at / n, at % n);
                    let e = cvt(quad_bits(ss, &format!("x{c}"), k, false), k, c);
                    match l {
                        0 => e,
                        _ => format!("({e} << {}u)", 8 * ds * l),
                    }
                })
                .collect();
            y.push(lanes.join(" | "));
        }
        f += &format!(
            "        let y = array<u32, {words}>({});\n        for (var m = 0u; m < S; m++) {{\n            let j = {rotated};\n            store_tile(lid * S + j, y[j]);\n        }}\n    }}\n    workgroupBarrier();\n",
            y.join(", ")
        );
        f += &format!(
            "    let first = out_base / {per}u + tq * WORKGROUP * S;\n    for (var w = lid; w < words; w += WORKGROUP) {{\n        store_dst(first + w, load_tile(w));\n    }}\n"
        );
    }
    f
}

/// The strips' parameter block: the tile words (tiles of quads along the long dim as
/// `TILES_R`, offsets and strides in elements), the batch dims', then the conversion's.
pub(super) fn strip_params(plan: &Plan, chunk: &Chunk, s: TiledStrip) -> Vec<u32> {
    let (extents, src_at, dst_at) = super::tiled::box_of(plan, chunk);
    let (b, r, c) = plan.box_batch_rows_cols(&extents).unwrap_or((0, 0, 0));
    let long = match s.strip {
        Strip::Cols(_) => r,
        Strip::Rows(_) => c,
    };
    let tiles = (long / 4).div_ceil(TILED_STRIP_WORKGROUP as u64);
    let a = plan.row_dim().unwrap_or(0);
    let (ins, outs) = (plan.in_strides(), plan.out_strides_by_input_dim());
    let last = plan.dims.len() - 1;
    let batch = plan.batch_dims();
    let mut head = [0u64; TILE_BATCH];
    for word in TileWord::ALL {
        head[*word as usize] = match word {
            TileWord::TotalWorkgroups => chunk.total_workgroups,
            TileWord::TilesC => 1,
            TileWord::TilesR => tiles,
            TileWord::Tiles => b * tiles,
            TileWord::Rows => r,
            TileWord::Cols => c,
            TileWord::SrcOff => src_at / plan.unit as u64,
            TileWord::DstOff => dst_at / plan.dst_unit() as u64,
            TileWord::InRow => ins[a],
            TileWord::OutRow => outs[last],
            TileWord::Band => tiles,
        };
    }
    let mut words = super::tiled::tile_words(head, &batch, &extents, &ins, &outs);
    words.resize(words.len().next_multiple_of(4), 0);
    if let Some(conversion) = &plan.conversion {
        words.extend(super::tiled::box_convert_block(plan, chunk, conversion));
    }
    words
}
