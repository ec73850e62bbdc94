//! The generic kernel (a gather, one output unit or run per item): its fragments, the
//! straight-line index decode generated per rank, and its parameter block (index values).

use crate::IndexMath;
use crate::shaders::{
    Access, Build, ConvertKey, GENERIC_ITEMS, GENERIC_WGSL, GENERIC_WORKGROUP, GenericLayout,
    GenericValue, GenericVariant, MAX_CHANNELS, TemplateError, channel_next_fn, convert_source,
    fill, fill_unit, index_math, pack_of, prelude_with, store_type,
};
use crate::shaders::{Constant, Storage};
use crate::shaders::{convert_words, quad_bits, quad_value};
use crate::view::MAX_BOUNDS;
use std::fmt::Write;

pub(super) const GENERIC_WHOLE_WGSL: &str =
    include_str!("../../shaders/fragments/generic_whole.wgsl");

pub(super) const GENERIC_SPACED_WGSL: &str =
    include_str!("../../shaders/fragments/generic_spaced.wgsl");

pub(super) const GENERIC_PACKED_WGSL: &str =
    include_str!("../../shaders/fragments/generic_packed.wgsl");

pub(super) const GENERIC_BOX_WGSL: &str = include_str!("../../shaders/fragments/generic_box.wgsl");

pub(super) const GENERIC_WINDOW_WGSL: &str =
    include_str!("../../shaders/fragments/generic_window.wgsl");

pub(super) const GENERIC_PADDED_WGSL: &str =
    include_str!("../../shaders/fragments/generic_padded.wgsl");

pub(super) const GENERIC_PADDED_PACKED_WGSL: &str =
    include_str!("../../shaders/fragments/generic_padded_packed.wgsl");

pub(super) const GENERIC_CONVERT_WGSL: &str =
    include_str!("../../shaders/fragments/generic_convert.wgsl");

pub(super) const GENERIC_CONVERT_ITEM_WGSL: &str =
    include_str!("../../shaders/fragments/generic_convert_item.wgsl");

pub(super) const GENERIC_CONVERT_PADDED_WGSL: &str =
    include_str!("../../shaders/fragments/generic_convert_padded.wgsl");

pub(super) const GENERIC_CONVERT_WINDOW_WGSL: &str =
    include_str!("../../shaders/fragments/generic_convert_window.wgsl");

pub(super) const GENERIC_CONVERT_QUAD_WGSL: &str =
    include_str!("../../shaders/fragments/generic_convert_quad.wgsl");

pub(super) const GENERIC_CONVERT_QUAD_ITEM_WGSL: &str =
    include_str!("../../shaders/fragments/generic_convert_quad_item.wgsl");

/// The move of a converting plan (`generic_convert.wgsl`, then its items' move: words, with
/// `quads` 4 elements, or in the padded mode words of a view) and the conversions it calls.
/// Runs of quads move them from their own fragment, without an item's decode.
fn convert_move(v: &GenericVariant, c: ConvertKey, mode: Mode) -> Result<String, TemplateError> {
    let fragment = fill(
        "fragments/generic_convert.wgsl",
        GENERIC_CONVERT_WGSL,
        &[
            ("DST_PACK", &format!("{}u", pack_of(c.to.size() as u32))),
            ("AFFINE", if c.affine { "true" } else { "false" }),
            ("MAX_CHANNELS", &format!("{MAX_CHANNELS}u")),
            ("CHANNEL_NEXT", &channel_next_fn("CONVERT_WORDS")?),
        ],
    )?;
    let item = match (v.quads, mode) {
        (true, _) => {
            let quad = fill(
                "fragments/generic_convert_quad.wgsl",
                GENERIC_CONVERT_QUAD_WGSL,
                &[("QUAD", &quad(c.from.size(), c.to.size(), v.access64))],
            )?;
            match v.runs {
                true => quad,
                false => quad + "\n" + GENERIC_CONVERT_QUAD_ITEM_WGSL,
            }
        }
        (false, Mode::Padded) => GENERIC_CONVERT_PADDED_WGSL.to_string(),
        (false, Mode::Window) => GENERIC_CONVERT_WINDOW_WGSL.to_string(),
        (false, _) => GENERIC_CONVERT_ITEM_WGSL.to_string(),
    };
    Ok(convert_source(c.from, c.to)? + "\n" + &fragment + "\n" + &item)
}

/// A quad's conversions (`generic_convert_quad.wgsl`): its 4 elements' bits picked from the
/// source access `x` (of 4, 8 or 16 bytes), converted, and packed into the destination
/// access `y`; with `access64` accesses of 8 and 16 bytes are 64-bit components.
fn quad(from: usize, to: usize, access64: bool) -> String {
    let mut f = String::from("    var ch = channel_at(o);\n");
    for i in 0..4 {
        let bits = quad_bits(from, "x", i, access64);
        let _ = writeln!(f, "    let e{i} = converted_at({bits}, ch);");
        if i < 3 {
            f += "    ch = channel_next(ch);\n";
        }
    }
    let e: Vec<String> = (0..4).map(|i| format!("e{i}")).collect();
    f + &format!("    let y = {};", quad_value(to, &e, access64))
}

/// The word where the generic kernel's index values start (word 0 is the workgroup count,
/// words [`GENERIC_FILL`].. the fill unit of padded views; values start on a whole `vec4`).
pub const GENERIC_VALUES: usize = 8;

/// The four words of the generic kernel's fill unit (padded views).
pub const GENERIC_FILL: usize = 4;

/// Words per index value in the generic kernel's parameter block.
pub(super) fn value_words(index: IndexMath) -> usize {
    if index == IndexMath::U32 { 1 } else { 2 }
}

/// The three shapes of the generic kernel's work.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Mode {
    /// One dispatch over the whole tensor: items are output units (or packed words) in order.
    Whole,
    /// A box of 4/8/16-byte units: items enumerate the box; one decode gives both offsets.
    Box,
    /// A box of packed 8/16-bit data: items are words of the destination window, and only
    /// the lanes inside the box are gathered.
    Window,
    /// A view: items as in `Whole`; positions outside the view's bounds are filled, and
    /// with `strided` the output goes through destination strides (for packed data, in
    /// rows of whole words, so each word still has one owner).
    Padded,
}

pub(super) fn mode(v: &GenericVariant) -> Mode {
    match (
        v.layout.padded(),
        v.layout.boxed() || v.layout == GenericLayout::Walk,
        pack_of(v.unit),
    ) {
        (true, _, _) => Mode::Padded,
        (false, false, _) => Mode::Whole,
        // A conversion's boxes are words of the destination window, whatever the packing.
        (false, true, 1) if v.convert.is_none() => Mode::Box,
        (false, true, _) => Mode::Window,
    }
}

/// One per-dim array of the generic kernel's index values: the generator names it in WGSL,
/// the host fills it (an exhaustive match, so an array cannot be left to a default).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum GenericArray {
    Dims,
    SrcStrides,
    DstStrides,
    BoxLo,
    BoxHi,
    Groups,
    Mults,
    ValidLo,
    ValidHi,
}

impl GenericArray {
    /// The WGSL constant naming the array's first value.
    fn wgsl_name(self) -> &'static str {
        match self {
            GenericArray::Dims => "DIMS",
            GenericArray::SrcStrides => "SRC_STRIDES",
            GenericArray::DstStrides => "DST_STRIDES",
            GenericArray::BoxLo => "BOX_LO",
            GenericArray::BoxHi => "BOX_HI",
            GenericArray::Groups => "GROUPS",
            GenericArray::Mults => "MULTS",
            GenericArray::ValidLo => "VALID_LO",
            GenericArray::ValidHi => "VALID_HI",
        }
    }
}

/// Per-dim arrays of the generic kernel's index values (each `rank` long, outermost output
/// dim first), after the [`GenericValue`]s: dims and source strides, then by mode
/// destination strides (Box), box bounds lo and hi (Window), or a view's bounds and, when
/// strided, destination strides (Padded).
pub(super) fn generic_arrays(v: &GenericVariant) -> &'static [GenericArray] {
    use GenericArray::*;
    // A view's arrays; the destination strides only where its output is strided.
    const VIEW: [GenericArray; 7] = [
        Dims, SrcStrides, Groups, Mults, ValidLo, ValidHi, DstStrides,
    ];
    match mode(v) {
        // A scatter walks the source's dims and decodes destination offsets (Plan::walk).
        Mode::Whole if v.scatter => &[Dims, DstStrides],
        Mode::Whole => &[Dims, SrcStrides],
        Mode::Box => &[Dims, SrcStrides, DstStrides],
        Mode::Window => &[Dims, SrcStrides, BoxLo, BoxHi],
        Mode::Padded if v.layout.strided() => &VIEW,
        Mode::Padded => &VIEW[..6],
    }
}

/// The unrolled decode of an output position into input (and for boxes, output) offsets;
/// for a scatter, of a source position into its destination offset (`dst_offset`).
/// Generated per rank: a shape-specialised pipeline divides by its dims as the pipeline
/// constants `D{i}`, `S{i}`, one per dim by name, which a WGSL loop over dims could not
/// index; and the move itself stays in the WGSL fragments (`generic_*.wgsl`).
pub(super) fn generic_decode(v: &GenericVariant, mode: Mode) -> String {
    let rank = v.rank;
    let (name, ret) = match mode {
        Mode::Whole if v.scatter => ("dst_offset", "Idx"),
        Mode::Whole => ("src_offset", "Idx"),
        Mode::Box => ("box_offsets", "At"),
        Mode::Window => ("window_source", "At"),
        Mode::Padded => ("padded_source", "At"),
    };
    // Specialised: dims and strides are pipeline constants D{i} and S{i}.
    let dim = |i: usize| match v.specialized {
        true => format!("ix({})", Constant::Dim(i).name()),
        false => format!("ip(DIMS + {i}u)"),
    };
    // The walk's strides on the side it decodes: the source's, or a scatter's destination.
    let strides = if v.scatter {
        "DST_STRIDES"
    } else {
        "SRC_STRIDES"
    };
    let stride = |i: usize| match v.specialized {
        true => format!("ix({})", Constant::Stride(i).name()),
        false => format!("ip({strides} + {i}u)"),
    };
    let mut f = String::new();
    if v.specialized {
        for i in 0..rank {
            let (d, s) = (Constant::Dim(i).name(), Constant::Stride(i).name());
            let _ = writeln!(f, "override {d}: u32;\noverride {s}: u32;");
        }
    }
    if mode != Mode::Whole {
        f += "struct At {\n    s: Idx,\n    d: Idx,\n    inside: bool,\n}\n\n";
    }
    let _ = writeln!(
        f,
        "// Offsets of {side} position `o`, unrolled over the rank.\nfn {name}(o: Idx) -> {ret} {{\n    var rem = o;\n    var s = ix(0u);\n    var d = ix(0u);\n    var inside = true;",
        side = if v.scatter { "source" } else { "output" }
    );
    let bounds = rank.min(MAX_BOUNDS);
    if mode == Mode::Padded {
        // Combined index of each bound (its dims' coordinates as one mixed-radix number).
        for k in 0..bounds {
            let _ = writeln!(f, "    var v{k} = ix(0u);");
        }
    }
    for i in (0..rank).rev() {
        if i > 0 {
            let _ = writeln!(
                f,
                "    let c{i} = imod(rem, {d});\n    rem = idiv(rem, {d});",
                d = dim(i)
            );
        } else {
            f += "    let c0 = rem;\n";
        }
        let _ = writeln!(f, "    s = iadd(s, imul(c{i}, {}));", stride(i));
        match mode {
            Mode::Whole => {}
            Mode::Box => {
                let _ = writeln!(f, "    d = iadd(d, imul(c{i}, ip(DST_STRIDES + {i}u)));");
            }
            Mode::Window => {
                let _ = writeln!(
                    f,
                    "    inside = inside && !ilt(c{i}, ip(BOX_LO + {i}u)) && ilt(c{i}, ip(BOX_HI + {i}u));"
                );
            }
            Mode::Padded => {
                if v.layout.strided() {
                    let _ = writeln!(f, "    d = iadd(d, imul(c{i}, ip(DST_STRIDES + {i}u)));");
                }
                let _ = writeln!(
                    f,
                    "    let g{i} = iu32(ip(GROUPS + {i}u));\n    let t{i} = imul(c{i}, ip(MULTS + {i}u));"
                );
                for k in 0..bounds {
                    let _ = writeln!(
                        f,
                        "    v{k} = iadd(v{k}, select(ix(0u), t{i}, g{i} == {k}u));"
                    );
                }
            }
        }
    }
    if mode == Mode::Padded {
        if !v.layout.strided() {
            f += "    d = o;\n";
        }
        for k in 0..bounds {
            let _ = writeln!(
                f,
                "    inside = inside && !ilt(v{k}, ip(VALID_LO + {k}u)) && ilt(v{k}, ip(VALID_HI + {k}u));"
            );
        }
    }
    f += match mode {
        Mode::Whole => "    return s;\n}",
        _ => "    return At(s, d, inside);\n}",
    };
    f
}

/// The generic kernel's source (`shaders/generic.wgsl`): its items per thread, the index
/// type and helpers for one index width (`shaders/index_*.wgsl`), the unrolled decode of
/// an output position into coordinates and offsets, the move of one item for the kernel's
/// mode (`fragments/generic_*.wgsl`), the thread's items (`items_fn`: spaced, or the CPU
/// family's runs), and for a reversed innermost dim `reversed`, through which source loads
/// go.
pub(super) fn generic_source(
    v: &GenericVariant,
    build: Build,
    items_fn: &str,
) -> Result<String, TemplateError> {
    let mode = mode(v);
    let arrays = generic_arrays(v);
    let values = GenericValue::ALL.len() + arrays.len() * v.rank;
    let mut decls = vec![
        ("TOTAL_WORKGROUPS", 0),
        ("FILL", GENERIC_FILL),
        ("VALUES", GENERIC_VALUES),
    ];
    decls.extend(GenericValue::decls());
    for (i, array) in arrays.iter().enumerate() {
        decls.push((array.wgsl_name(), GenericValue::ALL.len() + i * v.rank));
    }
    let mut param_words = GENERIC_VALUES + values * value_words(v.index);
    if v.convert.is_some() {
        decls.push(("CONVERT_WORDS", param_words));
        param_words += convert_words();
    }
    let convert_fn = match v.convert {
        Some(c) => convert_move(v, c, mode)?,
        None => String::new(),
    };
    let move_fn = match (mode, pack_of(v.unit)) {
        _ if v.convert.is_some() => &convert_fn,
        // Wide stores and scattered runs move whole runs (generic_runs_wide.wgsl,
        // generic_scatter.wgsl), never one item.
        _ if v.wide_stores || v.scatter => "",
        (Mode::Whole, 1) => GENERIC_WHOLE_WGSL,
        (Mode::Whole, _) => GENERIC_PACKED_WGSL,
        (Mode::Box, _) => GENERIC_BOX_WGSL,
        (Mode::Window, _) => GENERIC_WINDOW_WGSL,
        (Mode::Padded, 1) => &fill(
            "fragments/generic_padded.wgsl",
            GENERIC_PADDED_WGSL,
            &[
                ("STORE", store_type(v.unit, v.access64)),
                ("FILL_UNIT", fill_unit(v.unit, v.access64)),
            ],
        )?,
        (Mode::Padded, _) => GENERIC_PADDED_PACKED_WGSL,
    };
    let store = Storage::of(v.unit, v.access64);
    let access = match (v.convert, v.quads) {
        // A quad is one access of 4 elements on each side.
        (Some(c), true) => Access {
            src: Storage::of(4 * c.from.size() as u32, v.access64),
            dst: Storage::of(4 * c.to.size() as u32, v.access64),
            reversing: false,
        },
        _ => Access {
            src: store,
            // Wide stores write 16 bytes at a time.
            dst: match v.wide_stores {
                true => Storage::of(16, v.access64),
                false => store,
            },
            reversing: v.reverse > 0,
        },
    };
    let prelude = prelude_with(
        access,
        param_words,
        &decls,
        pack_of(v.unit),
        build,
        GENERIC_WORKGROUP,
    )?;
    let kernel = fill(
        "generic.wgsl",
        GENERIC_WGSL,
        &[
            ("ITEMS", &format!("{GENERIC_ITEMS}u")),
            ("INDEX_MATH", index_math(v.index)),
            ("DECODE_FN", &generic_decode(v, mode)),
            ("MOVE_FN", move_fn),
            ("ITEMS_FN", items_fn),
            ("REVERSE_FN", &reverse_fn(v.unit, v.reverse, v.access64)),
        ],
    )?;
    Ok(prelude + &kernel)
}

/// A wide store's value from the loaded units `u0`.. of a run: 16 bytes of 4 or 8-byte
/// units, as the destination's storage type (`vec4<u32>`, or `vec2<u64>` with `access64`).
pub(super) fn wide_store(unit: u32, access64: bool) -> String {
    match (unit, access64) {
        (4, false) => "vec4<u32>(u0, u1, u2, u3)".into(),
        (4, true) => "vec2<u64>(u64(u0) | (u64(u1) << 32u), u64(u2) | (u64(u3) << 32u))".into(),
        (_, false) => "vec4<u32>(u0, u1)".into(),
        (_, true) => "vec2<u64>(u0, u1)".into(),
    }
}

/// `reversed(x)`: a source unit with its `elem`-byte elements put back in order (see
/// `ViewLayout::reversed`), for the unit's storage type; empty for `elem` 0. Elements of
/// whole components reverse the components' order in groups; smaller ones reverse the
/// components and, within each, swap halves, then quarters, down to the element.
pub(super) fn reverse_fn(unit: u32, elem: u32, access64: bool) -> String {
    if elem == 0 {
        return String::new();
    }
    let store = store_type(unit, access64);
    // Bytes per component: 4-byte units stay `u32` with 64-bit accesses (wide stores).
    let access64 = access64 && unit >= 8;
    let comp = if access64 { 8 } else { 4 };
    let comps = unit / comp;
    let names = ["x", "y", "z", "w"];
    let mut f = String::from("// The unit's elements back in order (a reversed innermost dim).\n");
    let parts: Vec<String> = if elem >= comp {
        // Groups of `elem / comp` components, in reverse group order.
        let g = elem / comp;
        (0..comps)
            .map(|k| {
                format!(
                    "x.{}",
                    names[((comps / g - 1 - k / g) * g + k % g) as usize]
                )
            })
            .collect()
    } else {
        let ty = if access64 { "u64" } else { "u32" };
        let _ = writeln!(f, "fn reverse_lanes(v: {ty}) -> {ty} {{\n    var r = v;");
        let mut s = comp / 2; // bytes swapped
        while s >= elem {
            let bits = 8 * s;
            if s == comp / 2 {
                let _ = writeln!(f, "    r = (r >> {bits}u) | (r << {bits}u);");
            } else {
                // The low `s` bytes of every `2s`.
                let m32: u32 = (0..4 / (2 * s).min(4))
                    .map(|i| ((1u32 << bits) - 1) << (i * 2 * bits))
                    .sum();
                let mask = if access64 {
                    format!("(u64(0x{m32:08x}u) | (u64(0x{m32:08x}u) << 32u))")
                } else {
                    format!("0x{m32:08x}u")
                };
                let _ = writeln!(
                    f,
                    "    r = ((r >> {bits}u) & {mask}) | ((r & {mask}) << {bits}u);"
                );
            }
            s /= 2;
        }
        f += "    return r;\n}\n\n";
        match comps {
            1 => vec!["reverse_lanes(x)".into()],
            _ => (0..comps)
                .map(|k| format!("reverse_lanes(x.{})", names[(comps - 1 - k) as usize]))
                .collect(),
        }
    };
    let value = match comps {
        1 => parts[0].clone(),
        _ => format!("{store}({})", parts.join(", ")),
    };
    let _ = writeln!(
        f,
        "fn reversed(x: {store}) -> {store} {{\n    return {value};\n}}"
    );
    f
}
