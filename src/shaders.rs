//! The only link to `shaders/`: loads the WGSL templates, generates the source of each
//! [`Variant`], and lays out each kernel's parameter block. The rank is baked into the
//! generated code, so the index decode is straight-line code with no loop over dims.

use std::fmt::Write;

use crate::plan::{
    Chunk, ELEM_SIZES, GENERIC_ITEMS, IndexMath, Kernel, MAX_RANK, Plan, Tile, Variant, pack_of,
};

/// Template of the generic kernel (entry point `generic`).
pub const GENERIC_WGSL: &str = include_str!("../shaders/generic.wgsl");
/// Template of the tiled kernel (entry point `tiled`).
pub const TILED_WGSL: &str = include_str!("../shaders/tiled.wgsl");
/// Template of the register micro-tile kernel (entry point `micro`).
pub const MICRO_WGSL: &str = include_str!("../shaders/micro.wgsl");
const INDEX_U32_WGSL: &str = include_str!("../shaders/index_u32.wgsl");
const INDEX_U64_WGSL: &str = include_str!("../shaders/index_u64.wgsl");
const INDEX_PAIR_WGSL: &str = include_str!("../shaders/index_pair.wgsl");

/// WGSL storage type of one movement unit: 8/16-bit data lives packed in `u32` words.
pub fn store_type(unit: u32) -> &'static str {
    match unit {
        8 => "vec2<u32>",
        16 => "vec4<u32>",
        _ => "u32",
    }
}

/// Every variant the planner can ask for; the naga test validates each one.
pub fn all_variants() -> Vec<Variant> {
    let units = ELEM_SIZES.map(|u| u as u32);
    let mut all = Vec::new();
    for &unit in &units {
        for rank in 1..=MAX_RANK {
            let tiled = [Kernel::Tiled, Kernel::Micro]
                .into_iter()
                .filter(|&k| rank >= 2 && (k == Kernel::Tiled || unit <= 4));
            for kernel in tiled {
                all.push(Variant {
                    kernel,
                    rank,
                    unit,
                    index: IndexMath::U32,
                    boxed: false,
                    specialized: false,
                });
            }
            for index in [IndexMath::U32, IndexMath::U64, IndexMath::U32Pair] {
                for boxed in [false, true] {
                    all.push(Variant {
                        kernel: Kernel::Generic,
                        rank,
                        unit,
                        index,
                        boxed,
                        specialized: false,
                    });
                }
                if index == IndexMath::U32 {
                    all.push(Variant {
                        kernel: Kernel::Generic,
                        rank,
                        unit,
                        index,
                        boxed: false,
                        specialized: true,
                    });
                }
            }
        }
    }
    all
}

/// The WGSL source of a variant; `None` for kernels that run no shader (empty, copy).
pub fn source(v: &Variant) -> Option<String> {
    match v.kernel {
        Kernel::Generic => Some(generic_source(v)),
        Kernel::Tiled => Some(tiled_source(v)),
        Kernel::Micro => Some(micro_source(v)),
        Kernel::Empty | Kernel::Copy => None,
    }
}

/// The index-math helpers (`Idx`, `ix`, `ip`, `iadd`, `imul`, `idiv`, `imod`, `ilt`, `iu32`)
/// for one index width; they expect a `param(i: u32) -> u32` accessor in scope.
pub fn index_math(index: IndexMath) -> &'static str {
    match index {
        IndexMath::U32 => INDEX_U32_WGSL,
        IndexMath::U64 => INDEX_U64_WGSL,
        IndexMath::U32Pair => INDEX_PAIR_WGSL,
    }
}

/// Words per index value in the generic kernel's parameter block.
fn value_words(index: IndexMath) -> usize {
    if index == IndexMath::U32 { 1 } else { 2 }
}

fn fill(template: &str, pairs: &[(&str, String)]) -> String {
    pairs.iter().fold(template.to_string(), |s, (name, value)| {
        s.replace(&format!("{{{{{name}}}}}"), value)
    })
}

/// The three shapes of the generic kernel's work.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// One dispatch over the whole tensor: items are output units (or packed words) in order.
    Whole,
    /// A box of 4/8/16-byte units: items enumerate the box; one decode gives both offsets.
    Box,
    /// A box of packed 8/16-bit data: items are words of the destination window, and only
    /// the lanes inside the box are gathered (the others keep their bytes), so every word
    /// still has one owner.
    Window,
}

fn mode(v: &Variant) -> Mode {
    match (v.boxed, pack_of(v.unit)) {
        (false, _) => Mode::Whole,
        (true, 1) => Mode::Box,
        (true, _) => Mode::Window,
    }
}

/// Index values of the generic kernel: N_UNITS, N_ITEMS, SRC_OFF, DST_OFF, then per output
/// dim (outermost first): dims, source strides, and by mode destination strides (Box) or
/// box bounds lo and hi (Window).
fn generic_values(rank: usize, mode: Mode) -> usize {
    4 + rank
        * match mode {
            Mode::Whole => 2,
            Mode::Box => 3,
            Mode::Window => 4,
        }
}

fn generic_source(v: &Variant) -> String {
    let rank = v.rank;
    let mode = mode(v);
    let (dims, strides, extra) = (4, 4 + rank, 4 + 2 * rank);
    let words = 4 + generic_values(rank, mode) * value_words(v.index);

    // The decode of an output position into coordinates, unrolled over the rank.
    let (name, ret) = match mode {
        Mode::Whole => ("src_offset", "Idx"),
        Mode::Box => ("box_offsets", "At"),
        Mode::Window => ("window_source", "At"),
    };
    // Specialised: dims and strides are pipeline constants D{i} and S{i}.
    let dim = |i: usize| {
        if v.specialized {
            format!("ix(D{i})")
        } else {
            format!("ip({}u)", dims + i)
        }
    };
    let stride = |i: usize| {
        if v.specialized {
            format!("ix(S{i})")
        } else {
            format!("ip({}u)", strides + i)
        }
    };
    let mut decode = String::new();
    if v.specialized {
        for i in 0..rank {
            let _ = writeln!(decode, "override D{i}: u32;\noverride S{i}: u32;");
        }
    }
    if mode != Mode::Whole {
        decode += "struct At {\n    s: Idx,\n    d: Idx,\n    inside: bool,\n}\n\n";
    }
    let _ = writeln!(
        decode,
        "fn {name}(o: Idx) -> {ret} {{\n    var rem = o;\n    var s = ix(0u);\n    var d = ix(0u);\n    var inside = true;"
    );
    for i in (0..rank).rev() {
        if i > 0 {
            let _ = writeln!(
                decode,
                "    let c{i} = imod(rem, {d});\n    rem = idiv(rem, {d});",
                d = dim(i)
            );
        } else {
            decode += "    let c0 = rem;\n";
        }
        let _ = writeln!(decode, "    s = iadd(s, imul(c{i}, {}));", stride(i));
        match mode {
            Mode::Whole => {}
            Mode::Box => {
                let _ = writeln!(decode, "    d = iadd(d, imul(c{i}, ip({}u)));", extra + i);
            }
            Mode::Window => {
                let _ = writeln!(
                    decode,
                    "    inside = inside && !ilt(c{i}, ip({}u)) && ilt(c{i}, ip({}u));",
                    extra + i,
                    extra + rank + i
                );
            }
        }
    }
    decode += match mode {
        Mode::Whole => "    return s;\n}",
        _ => "    return At(s, d, inside);\n}",
    };

    let move_fn = match (mode, pack_of(v.unit)) {
        (Mode::Whole, 1) => {
            "fn move_item(o: Idx) {
    dst[iu32(iadd(ip(DST_OFF), o))] = src[iu32(iadd(ip(SRC_OFF), src_offset(o)))];
}"
        }
        // Packed: the thread owns output word `w` and gathers its PACK lanes; lanes past the
        // tensor's end keep the bytes already in the destination.
        (Mode::Whole, _) => {
            "fn move_item(w: Idx) {
    var word = 0u;
    var keep = 0u;
    for (var lane = 0u; lane < PACK; lane++) {
        let o = iadd(imul(w, ix(PACK)), ix(lane));
        if ilt(o, ip(N_UNITS)) {
            let s = iadd(ip(SRC_OFF), src_offset(o));
            let v = (src[iu32(idiv(s, ix(PACK)))] >> (iu32(imod(s, ix(PACK))) * BITS)) & MASK;
            word |= v << (lane * BITS);
        } else {
            keep |= MASK << (lane * BITS);
        }
    }
    let d = iu32(iadd(idiv(ip(DST_OFF), ix(PACK)), w));
    if keep != 0u {
        word |= dst[d] & keep;
    }
    dst[d] = word;
}"
        }
        // SRC_OFF and DST_OFF already include the box's corner and the windows' starts.
        (Mode::Box, _) => {
            "fn move_item(o: Idx) {
    let at = box_offsets(o);
    dst[iu32(iadd(ip(DST_OFF), at.d))] = src[iu32(iadd(ip(SRC_OFF), at.s))];
}"
        }
        // `w` is a word of the destination window; DST_OFF maps window units to tensor
        // positions (wrapping: a window may start before the tensor).
        (Mode::Window, _) => {
            "fn move_item(w: Idx) {
    var word = 0u;
    var keep = 0u;
    for (var lane = 0u; lane < PACK; lane++) {
        let o = iadd(iadd(imul(w, ix(PACK)), ix(lane)), ip(DST_OFF));
        var taken = false;
        if ilt(o, ip(N_UNITS)) {
            let at = window_source(o);
            if at.inside {
                let s = iadd(ip(SRC_OFF), at.s);
                let v = (src[iu32(idiv(s, ix(PACK)))] >> (iu32(imod(s, ix(PACK))) * BITS)) & MASK;
                word |= v << (lane * BITS);
                taken = true;
            }
        }
        if !taken {
            keep |= MASK << (lane * BITS);
        }
    }
    if keep == 0xffffffffu {
        return; // no lane of this word is in the box: another dispatch owns it
    }
    let d = iu32(w);
    if keep != 0u {
        word |= dst[d] & keep;
    }
    dst[d] = word;
}"
        }
    };
    fill(
        GENERIC_WGSL,
        &[
            ("PARAM_VEC4S", words.div_ceil(4).to_string()),
            ("STORE", store_type(v.unit).to_string()),
            ("ITEMS_PER_THREAD", format!("{GENERIC_ITEMS}u")),
            ("PACK_VALUE", format!("{}u", pack_of(v.unit))),
            ("INDEX_MATH", index_math(v.index).to_string()),
            ("SRC_OFFSET_FN", decode),
            ("MOVE_FN", move_fn.to_string()),
        ],
    )
}

/// Parameter words of the tiled kernel before the batch dims (see `shaders/tiled.wgsl`).
const TILED_HEAD: usize = 12;

/// `batch_bases(b)`: input and output offsets of batch index `b` over `batch` batch dims
/// (parameter words from `TILED_HEAD`: dims, input strides, output strides).
fn batch_fn(batch: usize) -> String {
    let mut f = String::from("fn batch_bases(b: u32) -> vec2<u32> {\n");
    if batch == 0 {
        f += "    return vec2<u32>(0u, 0u);\n}";
        return f;
    }
    f += "    var rem = b;\n    var bases = vec2<u32>(0u, 0u);\n";
    for j in (0..batch).rev() {
        let (d, is, os) = (
            TILED_HEAD + j,
            TILED_HEAD + batch + j,
            TILED_HEAD + 2 * batch + j,
        );
        if j > 0 {
            let _ = writeln!(
                f,
                "    let c{j} = rem % param({d}u);\n    rem = rem / param({d}u);"
            );
        } else {
            f += "    let c0 = rem;\n";
        }
        let _ = writeln!(
            f,
            "    bases += vec2<u32>(c{j} * param({is}u), c{j} * param({os}u));"
        );
    }
    f += "    return bases;\n}";
    f
}

fn micro_source(v: &Variant) -> String {
    let batch = v.rank.saturating_sub(2);
    fill(
        MICRO_WGSL,
        &[
            (
                "PARAM_VEC4S",
                (TILED_HEAD + 3 * batch).div_ceil(4).to_string(),
            ),
            ("BATCH_FN", batch_fn(batch)),
            ("PACK_VALUE", format!("{}u", pack_of(v.unit))),
        ],
    )
}

fn tiled_source(v: &Variant) -> String {
    let tile = Tile::for_unit(v.unit);
    let batch = v.rank.saturating_sub(2);
    let batch_fn = batch_fn(batch);
    let out_word = if tile.pack == 1 {
        "fn out_word(c: u32, q: u32) -> {{STORE}} {
    return tile[q * PITCH + c];
}"
    } else {
        "fn out_word(c: u32, q: u32) -> u32 {
    var w = 0u;
    for (var p = 0u; p < PACK; p++) {
        w |= ((tile[(p * TW + q) * PITCH + c / PACK] >> ((c % PACK) * BITS)) & MASK) << (p * BITS);
    }
    return w;
}"
    };
    let with_fn = TILED_WGSL.replace("{{OUT_WORD_FN}}", out_word);
    fill(
        &with_fn,
        &[
            (
                "PARAM_VEC4S",
                (TILED_HEAD + 3 * batch).div_ceil(4).to_string(),
            ),
            ("BATCH_FN", batch_fn),
            ("STORE", store_type(v.unit).to_string()),
            ("TILE_WORDS", format!("{}u", tile.words)),
            ("TILE_ROWS", format!("{}u", tile.rows)),
            ("PACK_VALUE", format!("{}u", tile.pack)),
            (
                "TILE_LEN",
                (tile.pack * tile.words * (tile.words + 1)).to_string(),
            ),
        ],
    )
}

/// Values of the pipeline constants of a specialised generic plan: `D{i}` (output dims)
/// and `S{i}` (source strides, in output order). Empty for other plans.
pub fn constants(plan: &Plan) -> Vec<(String, f64)> {
    if !plan.specialized {
        return Vec::new();
    }
    let in_strides = plan.in_strides();
    let dims = plan
        .out_dims()
        .into_iter()
        .enumerate()
        .map(|(i, d)| (format!("D{i}"), d as f64));
    let strides = plan
        .dims_perm
        .iter()
        .enumerate()
        .map(|(i, &d)| (format!("S{i}"), in_strides[d] as f64));
    dims.chain(strides).collect()
}

/// The parameter block of one dispatch (a uniform buffer of `u32` words, padded to whole
/// `vec4`s) for a plan that runs a shader; empty otherwise. The layout matches the kernel's
/// WGSL. Offsets are wrapping: relative to a binding window they may be "negative" until
/// added to a position, and 32-bit kernels only ever see the low word, which is exact.
pub fn params(plan: &Plan, chunk: &Chunk) -> Vec<u32> {
    let unit = plan.unit as u64;
    let mut words = match plan.kernel {
        Kernel::Generic => {
            let v = plan.variant().expect("generic plans have a variant");
            let rank = plan.dims.len();
            let in_strides = plan.in_strides();
            let out_strides = plan.out_strides_by_input_dim();
            let in_out_order = |per_dim: &[u64]| -> Vec<u64> {
                plan.dims_perm.iter().map(|&d| per_dim[d]).collect()
            };
            let src_bias = (plan.src_offset / unit).wrapping_sub(chunk.src_window.0 / unit);
            let dst_bias = (plan.dst_offset / unit).wrapping_sub(chunk.dst_window.0 / unit);
            let corner = |strides: &[u64]| -> u64 {
                (0..rank).fold(0u64, |a, d| {
                    a.wrapping_add(chunk.lo[d].wrapping_mul(strides[d]))
                })
            };
            let extents: Vec<u64> = (0..rank).map(|d| chunk.hi[d] - chunk.lo[d]).collect();
            let mut values = match mode(&v) {
                Mode::Whole => vec![plan.units(), plan.items(), src_bias, dst_bias],
                Mode::Box => vec![
                    plan.units(),
                    extents.iter().product(),
                    src_bias.wrapping_add(corner(&in_strides)),
                    dst_bias.wrapping_add(corner(&out_strides)),
                ],
                Mode::Window => vec![
                    plan.units(),
                    chunk.dst_window.1 / 4,
                    src_bias,
                    0u64.wrapping_sub(dst_bias),
                ],
            };
            match mode(&v) {
                Mode::Box => {
                    values.extend(in_out_order(&extents));
                    values.extend(in_out_order(&in_strides));
                    values.extend(in_out_order(&out_strides));
                }
                Mode::Whole | Mode::Window => {
                    values.extend(plan.out_dims());
                    values.extend(in_out_order(&in_strides));
                    if mode(&v) == Mode::Window {
                        values.extend(in_out_order(&chunk.lo));
                        values.extend(in_out_order(&chunk.hi));
                    }
                }
            }
            let mut words = vec![chunk.total_workgroups as u32, 0, 0, 0];
            for value in values {
                words.push(value as u32);
                if value_words(plan.index) == 2 {
                    words.push((value >> 32) as u32);
                }
            }
            words
        }
        Kernel::Tiled | Kernel::Micro => {
            let (b, r, c) = plan.batch_rows_cols().unwrap_or((0, 0, 0));
            // Tiles (or 4x4 blocks) along each side; word 3 is the batch count for tiles,
            // the block count for micro-tiles.
            let (side_c, side_r, third) = if plan.kernel == Kernel::Tiled {
                let extent = plan.tile.unwrap_or(Tile::for_unit(plan.unit)).extent();
                (c.div_ceil(extent), r.div_ceil(extent), b)
            } else {
                (c / 4, r / 4, b * (r / 4) * (c / 4))
            };
            let a = plan.row_dim().unwrap_or(0);
            let word_bytes = unit.max(4);
            let in_strides = plan.in_strides();
            let out_strides = plan.out_strides_by_input_dim();
            let last = plan.dims.len() - 1;
            let batch = plan.batch_dims();
            [
                chunk.total_workgroups,
                side_c,
                side_r,
                third,
                r,
                c,
                plan.src_offset / word_bytes,
                plan.dst_offset / word_bytes,
                in_strides[a],
                out_strides[last],
                0,
                0,
            ]
            .into_iter()
            .chain(batch.iter().map(|&d| plan.dims[d]))
            .chain(batch.iter().map(|&d| in_strides[d]))
            .chain(batch.iter().map(|&d| out_strides[d]))
            .map(|v| v as u32)
            .collect()
        }
        Kernel::Empty | Kernel::Copy => Vec::new(),
    };
    words.resize(words.len().next_multiple_of(4), 0);
    words
}
