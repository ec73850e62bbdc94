//! The element conversions of one pair of types: `shaders/convert.wgsl` (every type's
//! functions, on bits) with `src_to_f32` and `f32_to_dst` naming the pair's.

use super::{TemplateError, fill};
use crate::convert::Conversion;
use crate::convert::{Dtype, MAX_CHANNELS};
use crate::plan::tuning::{MICRO_LANE_MAJOR_RUN, MICRO_RUN};
use crate::plan::{
    Block, BlockConvert, ChannelAt, ConvertKey, GenericLayout, GenericVariant, IndexMath, MAX_RANK,
    MicroVariant, RunLanes, Strip, TiledStrip, TiledVariant, Variant, flat_planned,
};

/// Every type's conversion functions (see [`crate::convert`] for the numbers).
pub const CONVERT_WGSL: &str = include_str!("../../shaders/convert.wgsl");

const CHANNEL_NEXT_WGSL: &str = include_str!("../../shaders/fragments/channel_next.wgsl");

/// `channel_next` (`fragments/channel_next.wgsl`) reading the affine's channel step and
/// count at the parameter words named `words` and `words + 1`.
pub(super) fn channel_next_fn(words: &str) -> Result<String, TemplateError> {
    fill(
        "fragments/channel_next.wgsl",
        CHANNEL_NEXT_WGSL,
        &[("WORDS", words)],
    )
}

/// The two functions a kernel that converts calls.
const PAIR_WGSL: &str = "
fn src_to_f32(b: u32) -> u32 {
    return {{FROM}}_to_f32(b);
}

fn f32_to_dst(b: u32) -> u32 {
    return f32_to_{{TO}}(b);
}
";

/// The WGSL name of a type in `convert.wgsl`'s functions.
fn wgsl_name(d: Dtype) -> &'static str {
    match d {
        Dtype::U8 => "u8",
        Dtype::I8 => "i8",
        Dtype::U16 => "u16",
        Dtype::I16 => "i16",
        Dtype::U32 => "u32",
        Dtype::I32 => "i32",
        Dtype::F16 => "f16",
        Dtype::BF16 => "bf16",
        Dtype::F32 => "f32",
    }
}

/// `convert.wgsl` with `src_to_f32` for `from` and `f32_to_dst` for `to`, which must be a
/// destination type ([`Dtype::is_destination`]).
pub fn convert_source(from: Dtype, to: Dtype) -> Result<String, TemplateError> {
    debug_assert!(to.is_destination());
    let pair = fill(
        "convert pair",
        PAIR_WGSL,
        &[("FROM", wgsl_name(from)), ("TO", wgsl_name(to))],
    )?;
    Ok(format!("{CONVERT_WGSL}{pair}"))
}

/// The variants of conversions: every pair of types, with and without the affine, at every
/// index width and with runs, at ranks 1-3 and the highest (the decode is the generic
/// kernel's, checked at every rank with it; the conversion is the same at every rank); and
/// the micro kernel's (see `micro_convert_variants`).
pub fn convert_variants() -> Vec<Variant> {
    let mut all = Vec::new();
    for from in Dtype::ALL {
        for to in Dtype::DESTINATIONS {
            for affine in [false, true] {
                let indices = [IndexMath::U32, IndexMath::U64, IndexMath::U32Pair];
                // Runs (CPU devices) with 32-bit index math only.
                // Element by element, in runs (CPU devices, 32-bit index math only), or
                // in quads (an innermost dim that stays).
                let kinds = indices
                    .map(|i| (i, false, false))
                    .into_iter()
                    .chain([(IndexMath::U32, true, false)])
                    .chain(indices.map(|i| (i, false, true)))
                    .chain([(IndexMath::U32, true, true)]);
                for (index, runs, quads) in kinds {
                    // Runs of quads scatter too (an innermost dim that stays: from rank 3).
                    let scatters = [false, true].into_iter().filter(|&s| !s || runs && quads);
                    // Quads of 8 or 16 bytes on a side as 64-bit components (CPU devices).
                    let wide = quads && index == IndexMath::U32 && from.size().max(to.size()) >= 2;
                    let access = [false, true].into_iter().filter(|&a| !a || wide);
                    for (rank, scatter, access64) in [1, 2, 3, MAX_RANK]
                        .into_iter()
                        .flat_map(|r| scatters.clone().map(move |s| (r, s)))
                        .filter(|&(r, s)| !s || r >= 3)
                        .flat_map(|(r, s)| access.clone().map(move |a| (r, s, a)))
                    {
                        all.push(Variant::Generic(GenericVariant {
                            rank,
                            lanes: RunLanes::Own,
                            unit: from.size() as u32,
                            index,
                            layout: GenericLayout::Plain,
                            specialized: false,
                            runs,
                            access64,
                            reverse: 0,
                            wide_stores: false,
                            scatter,
                            quads,
                            convert: Some(ConvertKey { from, to, affine }),
                        }));
                    }
                }
            }
            // Boxes over binding windows, and views with bounds or a strided output (the
            // padded mode), at ranks 2 and 3.
            for layout in [
                GenericLayout::Boxed,
                GenericLayout::Padded,
                GenericLayout::PaddedStrided,
            ] {
                for index in [IndexMath::U32, IndexMath::U64, IndexMath::U32Pair] {
                    for (rank, affine) in [(2, false), (2, true), (3, false), (3, true)] {
                        all.push(Variant::Generic(GenericVariant {
                            rank,
                            lanes: RunLanes::Own,
                            unit: from.size() as u32,
                            index,
                            layout,
                            specialized: false,
                            runs: false,
                            access64: false,
                            reverse: 0,
                            wide_stores: false,
                            scatter: false,
                            quads: false,
                            convert: Some(ConvertKey { from, to, affine }),
                        }));
                    }
                }
            }
            all.extend(micro_convert_variants(from, to));
            all.extend(strip_convert_variants(from, to));
        }
    }
    all
}

/// The micro kernel's conversions of one pair, at ranks 2 and 3 (and 64-bit accesses): each kind of block (wide
/// squares alone and in runs, strips of 3 either way, narrow), the affine with its channel
/// on each index a block can take it from, and without.
fn micro_convert_variants(from: Dtype, to: Dtype) -> Vec<Variant> {
    let unit = from.size().min(to.size()) as u32;
    let wide = Block::wide(unit).expect("conversions move elements of up to 4 bytes");
    let strip = |s| Block::wide_strip(unit, s).expect("a wide block");
    let narrow = Block::narrow(unit).expect("a narrow block");
    let affine = |channel| (true, channel);
    let kinds = [
        (wide, (false, None)),
        (wide.with_run(MICRO_RUN), affine(Some(ChannelAt::Rows))),
        (wide.with_run(3), (false, None)),
        (strip(Strip::Cols(3)).with_run(2), (false, None)),
        (wide, affine(Some(ChannelAt::Cols))),
        (wide, affine(Some(ChannelAt::Batch))),
        (strip(Strip::Cols(3)), (false, None)),
        (strip(Strip::Cols(3)), affine(Some(ChannelAt::Cols))),
        (strip(Strip::Rows(3)), affine(Some(ChannelAt::Rows))),
        (
            strip(Strip::Cols(3)).lane_major(MICRO_LANE_MAJOR_RUN),
            affine(Some(ChannelAt::Cols)),
        ),
        (
            strip(Strip::Cols(3)).lane_major(MICRO_LANE_MAJOR_RUN),
            affine(Some(ChannelAt::Batch)),
        ),
        (narrow, affine(None)),
    ];
    // Flat strips: planes written as 4-byte elements, read as elements of up to 4 bytes.
    let flat = |s| Block::flat_strip(unit, s).expect("a wide block");
    let flats = [
        (flat(Strip::Cols(3)), (false, None)),
        (
            flat(Strip::Cols(3)).with_run(2),
            affine(Some(ChannelAt::Cols)),
        ),
        (flat(Strip::Rows(3)), (false, None)),
        (
            flat(Strip::Rows(3)).with_run(2),
            affine(Some(ChannelAt::Rows)),
        ),
    ];
    let (su, du) = (from.size() as u32, to.size() as u32);
    let planned = |b: &Block| b.strip.is_some_and(|s| flat_planned(s, su, du, 3));
    let flats = flats.into_iter().filter(|(b, _)| planned(b));
    let mut all = Vec::new();
    for (block, (affine, channel)) in kinds.into_iter().chain(flats) {
        // 64-bit accesses (CPU devices with SHADER_INT64) for wide blocks, at rank 3; column
        // strips at rank 4 too (a centre crop's two batch dims).
        let cols_strip = matches!(block.strip, Some(Strip::Cols(_))) && !block.flat;
        let access = [(2, false), (3, false), (3, true), (4, false)];
        for (rank, access64) in access {
            if (access64 && block.access_bytes != 16) || (rank == 4 && !cols_strip) {
                continue;
            }
            // Lane-major strips compiled for their shape too (CPU devices).
            let specialized = match block.lane_major {
                true => &[false, true][..],
                false => &[false][..],
            };
            // A flat strip's 4-byte planes, read, also in pairs (with 64-bit accesses).
            let pairs = access64 && block.elements_in() && from.size() == 4;
            let blocks = [false, true]
                .into_iter()
                .filter(|&p| !p || pairs)
                .map(|flat_pairs| Block {
                    flat_pairs,
                    ..block
                });
            for (block, &specialized) in
                blocks.flat_map(|b| specialized.iter().map(move |s| (b, s)))
            {
                all.push(Variant::Micro(MicroVariant {
                    rank,
                    unit: from.size() as u32,
                    block,
                    padded: false,
                    access64,
                    convert: Some(BlockConvert {
                        key: ConvertKey { from, to, affine },
                        channel,
                    }),
                    specialized,
                }));
            }
        }
    }
    all
}

/// The tiled kernel's strips of one pair, at ranks 2 and 3: both ways with 3 channels,
/// without the affine and with it on the planes, the pixels and the batch; the other short
/// dims (2, 4 to 8) both ways without it.
fn strip_convert_variants(from: Dtype, to: Dtype) -> Vec<Variant> {
    let affine = |channel| (true, channel);
    let mut kinds = Vec::new();
    for (strip, planes, pixels) in [
        (Strip::Cols(3), ChannelAt::Cols, ChannelAt::Rows),
        (Strip::Rows(3), ChannelAt::Rows, ChannelAt::Cols),
    ] {
        kinds.push((strip, (false, None)));
        for at in [planes, pixels, ChannelAt::Batch] {
            kinds.push((strip, affine(Some(at))));
        }
        kinds.push((strip, affine(None)));
    }
    for n in [2, 4, 5, 6, 7, 8] {
        kinds.push((Strip::Cols(n), (false, None)));
        kinds.push((Strip::Rows(n), (false, None)));
    }
    let mut all = Vec::new();
    for (strip, (affine, channel)) in kinds {
        for rank in [2, 3] {
            all.push(Variant::Tiled(TiledVariant {
                rank,
                unit: from.size() as u32,
                strip: Some(TiledStrip {
                    strip,
                    convert: BlockConvert {
                        key: ConvertKey { from, to, affine },
                        channel,
                    },
                }),
            }));
        }
    }
    all
}

/// A converting block's `cvt` (the micro kernel's and the tiled kernel's strips): a source
/// element's bits to the destination element's, through f32, with the affine's scale and
/// bias (those of the element's channel, read once per block row or column).
pub(super) fn block_convert_fn(affine: bool) -> Result<String, TemplateError> {
    let (params, apply) = match affine {
        true => (
            ", scale: f32, bias: f32",
            "    b = affine_f32(b, scale, bias);\n",
        ),
        false => ("", ""),
    };
    let cvt = format!(
        "\nconst MAX_CHANNELS: u32 = {MAX_CHANNELS}u;\n\n// Source bits to destination bits, through f32 (and the affine).\nfn cvt(bits: u32{params}) -> u32 {{\n    var b = src_to_f32(bits);\n{apply}    return f32_to_dst(b);\n}}\n\n"
    );
    Ok(match affine {
        true => cvt + CHANNEL_AT + &channel_next_fn("CONVERT")? + "\n",
        false => cvt,
    })
}

/// The affine's channel cursor of a block's rows or columns (the generic kernel's, in
/// `generic_convert.wgsl`, over its elements): `channel_at` divides once per block,
/// `channel_next` (`fragments/channel_next.wgsl`) moves on.
const CHANNEL_AT: &str =
    "// The channel cursor at index `i` of a block's rows or columns: its channel, (i / step) %
// count, and its place within the step; `channel_next` moves it to the next index without
// dividing (a CPU divides lane by lane: two divisions a row).
fn channel_at(i: u32) -> vec2<u32> {
    let q = i / param(CONVERT);
    return vec2<u32>(q % param(CONVERT + 1u), i - q * param(CONVERT));
}

";

/// Words of a conversion's block after the index values: the output elements per channel
/// step, the channel count, two unused, then [`MAX_CHANNELS`] scales and as many biases.
pub(super) fn convert_words() -> usize {
    4 + 2 * MAX_CHANNELS
}

/// A conversion's words (see [`convert_words`]): the channel geometry `(step, count)` (the
/// channel of index `i` is `(i / step) % count`) and the affine's values, rotated so that
/// channel 0 is the tensor's channel `first` (a box's, past one binding).
pub(super) fn convert_block(c: &Conversion, (step, count): (u64, u64), first: usize) -> Vec<u32> {
    let mut words = vec![0u32; convert_words()];
    if let Some(a) = c.affine() {
        // Rotated so that the dispatch's channel 0 is the whole tensor's `first`.
        let n = a.scale.len();
        for i in 0..n {
            let (s, b) = (a.scale[(i + first) % n], a.bias[(i + first) % n]);
            words[4 + i] = s.to_bits();
            words[4 + MAX_CHANNELS + i] = b.to_bits();
        }
    }
    // Within one storage binding an output has fewer than 2^32 elements.
    words[0] = step as u32;
    words[1] = count as u32;
    words
}

/// Bits of element `k` (0-3) of a quad of `size`-byte elements held in `x` (one word of
/// bytes, two words of 16-bit elements, four of 32-bit ones; with `access64` the 8 and
/// 16-byte quads as a `u64` and a `vec2<u64>`).
pub(super) fn quad_bits(size: usize, x: &str, k: usize, access64: bool) -> String {
    const LANES: [&str; 4] = ["x", "y", "z", "w"];
    match (size, access64) {
        (1, _) => format!("(({x} >> {}u) & 0xffu)", 8 * k),
        (2, true) => format!("(u32({x} >> {}u) & 0xffffu)", 16 * k),
        (2, false) => format!("(({x}.{} >> {}u) & 0xffffu)", LANES[k / 2], 16 * (k % 2)),
        (_, true) => format!("u32({x}.{} >> {}u)", LANES[k / 2], 32 * (k % 2)),
        (_, false) => format!("{x}.{}", LANES[k]),
    }
}

/// A quad of 4 `size`-byte destination elements as one access (with `access64` the 8 and
/// 16-byte quads as a `u64` and a `vec2<u64>`).
pub(super) fn quad_value(size: usize, e: &[String], access64: bool) -> String {
    match (size, access64) {
        (1, _) => format!(
            "{} | ({} << 8u) | ({} << 16u) | ({} << 24u)",
            e[0], e[1], e[2], e[3]
        ),
        (2, true) => format!(
            "u64({} | ({} << 16u)) | (u64({} | ({} << 16u)) << 32u)",
            e[0], e[1], e[2], e[3]
        ),
        (2, false) => format!(
            "vec2<u32>({} | ({} << 16u), {} | ({} << 16u))",
            e[0], e[1], e[2], e[3]
        ),
        (_, true) => format!(
            "vec2<u64>(u64({}) | (u64({}) << 32u), u64({}) | (u64({}) << 32u))",
            e[0], e[1], e[2], e[3]
        ),
        (_, false) => format!("vec4<u32>({}, {}, {}, {})", e[0], e[1], e[2], e[3]),
    }
}
