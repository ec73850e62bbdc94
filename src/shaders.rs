//! The only link to `shaders/`: loads the WGSL templates, generates the source of each
//! [`Variant`], and lays out each kernel's parameter block. The rank is baked into the
//! generated code, so the index decode is straight-line code with no loop over dims.

use std::fmt::Write;

use crate::plan::{
    ELEM_SIZES, GENERIC_ITEMS, IndexMath, Kernel, MAX_RANK, Plan, Tile, Variant, pack_of,
};

/// Template of the generic kernel (entry point `generic`).
pub const GENERIC_WGSL: &str = include_str!("../shaders/generic.wgsl");
/// Template of the tiled batch-transpose kernel (entry point `tiled`).
pub const TILED_WGSL: &str = include_str!("../shaders/tiled.wgsl");
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
        all.push(Variant {
            kernel: Kernel::Tiled,
            rank: 0,
            unit,
            index: IndexMath::U32,
        });
        for rank in 1..=MAX_RANK {
            for index in [IndexMath::U32, IndexMath::U64, IndexMath::U32Pair] {
                all.push(Variant {
                    kernel: Kernel::Generic,
                    rank,
                    unit,
                    index,
                });
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

fn generic_source(v: &Variant) -> String {
    let rank = v.rank;
    // Index values: N_UNITS, N_ITEMS, SRC_OFF, DST_OFF, then the output dims, then strides.
    let dims = 4;
    let strides = dims + rank;
    let words = 4 + (4 + 2 * rank) * value_words(v.index);

    let mut decode =
        String::from("fn src_offset(o: Idx) -> Idx {\n    var rem = o;\n    var s = ix(0u);\n");
    for i in (1..rank).rev() {
        let _ = writeln!(
            decode,
            "    s = iadd(s, imul(imod(rem, ip({d}u)), ip({s}u)));\n    rem = idiv(rem, ip({d}u));",
            d = dims + i,
            s = strides + i
        );
    }
    let _ = writeln!(
        decode,
        "    s = iadd(s, imul(rem, ip({strides}u)));\n    return s;\n}}"
    );

    let move_fn = if pack_of(v.unit) == 1 {
        "fn move_item(o: Idx) {
    dst[iu32(iadd(ip(DST_OFF), o))] = src[iu32(iadd(ip(SRC_OFF), src_offset(o)))];
}"
    } else {
        // Packed: the thread owns output word `w` and gathers its PACK lanes; lanes past the
        // tensor's end keep the bytes already in the destination.
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

fn tiled_source(v: &Variant) -> String {
    let tile = Tile::for_unit(v.unit);
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

/// The parameter block (a uniform buffer of `u32` words, padded to whole `vec4`s) for a plan
/// that runs a shader; empty otherwise. The layout matches the kernel's WGSL.
pub fn params(plan: &Plan) -> Vec<u32> {
    let unit = plan.unit as u64;
    let mut words = match plan.kernel {
        Kernel::Generic => {
            let out_dims = plan.out_dims();
            let in_strides = plan.in_strides();
            let strides = plan.dims_perm.iter().map(|&p| in_strides[p]);
            let values = [
                plan.units(),
                plan.items(),
                plan.src_offset / unit,
                plan.dst_offset / unit,
            ]
            .into_iter()
            .chain(out_dims)
            .chain(strides);
            let mut words = vec![plan.total_workgroups as u32, 0, 0, 0];
            for value in values {
                words.push(value as u32);
                if value_words(plan.index) == 2 {
                    words.push((value >> 32) as u32);
                }
            }
            words
        }
        Kernel::Tiled => {
            let tile = plan.tile.unwrap_or(Tile::for_unit(plan.unit));
            let (b, r, c) = plan.batch_rows_cols().unwrap_or((0, 0, 0));
            let word_bytes = unit.max(4);
            [
                plan.total_workgroups,
                c.div_ceil(tile.extent()),
                r.div_ceil(tile.extent()),
                b,
                r,
                c,
                plan.src_offset / word_bytes,
                plan.dst_offset / word_bytes,
            ]
            .map(|v| v as u32)
            .to_vec()
        }
        Kernel::Empty | Kernel::Copy => Vec::new(),
    };
    words.resize(words.len().next_multiple_of(4), 0);
    words
}
