//! The generic kernel (a gather, one output unit or run per item): its fragments, the
//! straight-line index decode generated per rank, and its parameter block (index values).

use super::*;
use crate::convert::Conversion;

pub(super) const GENERIC_WHOLE_WGSL: &str =
    include_str!("../../shaders/fragments/generic_whole.wgsl");

pub(super) const GENERIC_SPACED_WGSL: &str =
    include_str!("../../shaders/fragments/generic_spaced.wgsl");

pub(super) const GENERIC_RUNS_WGSL: &str =
    include_str!("../../shaders/fragments/generic_runs.wgsl");

pub(super) const GENERIC_RUNS_WIDE_WGSL: &str =
    include_str!("../../shaders/fragments/generic_runs_wide.wgsl");

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

pub(super) const GENERIC_CONVERT_QUAD_RUNS_WGSL: &str =
    include_str!("../../shaders/fragments/generic_convert_quad_runs.wgsl");

pub(super) const GENERIC_CONVERT_RUNS_WGSL: &str =
    include_str!("../../shaders/fragments/generic_convert_runs.wgsl");

/// Words of a conversion's block after the index values: the output elements per channel
/// step, the channel count, two unused, then [`MAX_CHANNELS`] scales and as many biases.
pub(super) fn convert_words() -> usize {
    4 + 2 * MAX_CHANNELS
}

/// The move of a converting plan (`generic_convert.wgsl`, then its items' move: words, with
/// `quads` 4 elements, or in the padded mode words of a view) and the conversions it calls.
fn convert_move(c: ConvertKey, quads: bool, mode: Mode) -> Result<String, TemplateError> {
    let fragment = fill(
        "fragments/generic_convert.wgsl",
        GENERIC_CONVERT_WGSL,
        &[
            ("DST_PACK", &format!("{}u", pack_of(c.to.size() as u32))),
            ("AFFINE", if c.affine { "true" } else { "false" }),
            ("MAX_CHANNELS", &format!("{MAX_CHANNELS}u")),
        ],
    )?;
    let item = match (quads, mode) {
        (true, _) => fill(
            "fragments/generic_convert_quad.wgsl",
            GENERIC_CONVERT_QUAD_WGSL,
            &[("QUAD", &quad(c.from.size(), c.to.size()))],
        )?,
        (false, Mode::Padded) => GENERIC_CONVERT_PADDED_WGSL.to_string(),
        (false, Mode::Window) => GENERIC_CONVERT_WINDOW_WGSL.to_string(),
        (false, _) => GENERIC_CONVERT_ITEM_WGSL.to_string(),
    };
    Ok(convert_source(c.from, c.to)? + "\n" + &fragment + "\n" + &item)
}

/// A quad's conversions (`generic_convert_quad.wgsl`): its 4 elements' bits picked from the
/// source access `x` (of 4, 8 or 16 bytes), converted, and packed into the destination
/// access `y`.
fn quad(from: usize, to: usize) -> String {
    let mut f = String::new();
    for i in 0..4 {
        let bits = super::strip::quad_bits(from, "x", i);
        let _ = writeln!(f, "    let e{i} = converted({bits}, iadd(o, ix({i}u)));");
    }
    let e: Vec<String> = (0..4).map(|i| format!("e{i}")).collect();
    f + &format!("    let y = {};", super::strip::quad_value(to, &e))
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
    match (v.layout.padded(), v.layout.boxed(), pack_of(v.unit)) {
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
        Mode::Whole => &[Dims, SrcStrides],
        Mode::Box => &[Dims, SrcStrides, DstStrides],
        Mode::Window => &[Dims, SrcStrides, BoxLo, BoxHi],
        Mode::Padded if v.layout.strided() => &VIEW,
        Mode::Padded => &VIEW[..6],
    }
}

/// The unrolled decode of an output position into input (and for boxes, output) offsets.
/// Generated per rank: a shape-specialised pipeline divides by its dims as the pipeline
/// constants `D{i}`, `S{i}`, one per dim by name, which a WGSL loop over dims could not
/// index; and the move itself stays in the WGSL fragments (`generic_*.wgsl`).
pub(super) fn generic_decode(v: &GenericVariant, mode: Mode) -> String {
    let rank = v.rank;
    let (name, ret) = match mode {
        Mode::Whole => ("src_offset", "Idx"),
        Mode::Box => ("box_offsets", "At"),
        Mode::Window => ("window_source", "At"),
        Mode::Padded => ("padded_source", "At"),
    };
    // Specialised: dims and strides are pipeline constants D{i} and S{i}.
    let dim = |i: usize| match v.specialized {
        true => format!("ix(D{i})"),
        false => format!("ip(DIMS + {i}u)"),
    };
    let stride = |i: usize| match v.specialized {
        true => format!("ix(S{i})"),
        false => format!("ip(SRC_STRIDES + {i}u)"),
    };
    let mut f = String::new();
    if v.specialized {
        for i in 0..rank {
            let _ = writeln!(f, "override D{i}: u32;\noverride S{i}: u32;");
        }
    }
    if mode != Mode::Whole {
        f += "struct At {\n    s: Idx,\n    d: Idx,\n    inside: bool,\n}\n\n";
    }
    let _ = writeln!(
        f,
        "// Offsets of output position `o`, unrolled over the rank.\nfn {name}(o: Idx) -> {ret} {{\n    var rem = o;\n    var s = ix(0u);\n    var d = ix(0u);\n    var inside = true;"
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

pub(super) fn generic_source(v: &GenericVariant, build: Build) -> Result<String, TemplateError> {
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
        Some(c) => convert_move(c, v.quads, mode)?,
        None => String::new(),
    };
    let move_fn = match (mode, pack_of(v.unit)) {
        _ if v.convert.is_some() => &convert_fn,
        // Wide stores move whole runs (generic_runs_wide.wgsl), never one item.
        _ if v.wide_stores => "",
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
    let store = store_type(v.unit, v.access64);
    let access = match (v.convert, v.quads) {
        // A quad is one access of 4 elements on each side.
        (Some(c), true) => Access {
            src: store_type(4 * c.from.size() as u32, false),
            dst: store_type(4 * c.to.size() as u32, false),
            reversing: false,
        },
        _ => Access {
            src: store,
            // Wide stores write 16 bytes at a time.
            dst: match v.wide_stores {
                true => store_type(16, v.access64),
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
    let items_fn = if v.runs {
        // The source stride of the innermost output dim.
        let last = v.rank - 1;
        let step = match v.specialized {
            true => format!("ix(S{last})"),
            false => format!("ip(SRC_STRIDES + {last}u)"),
        };
        let mut values = vec![("RUN", format!("{GENERIC_RUN}u"))];
        // Runs of quads step a quad at a time, in their own fragment.
        if !v.quads {
            values.push(("STEP", step));
        }
        if v.wide_stores {
            let gather: String = (0..16 / v.unit)
                .map(|j| format!("        let u{j} = load_src(at + {j}u * step);\n"))
                .collect();
            values.push(("UNIT_BYTES", v.unit.to_string()));
            values.push(("GATHER", gather));
            values.push(("WIDE", wide_store(v.unit, v.access64)));
        }
        let (name, template) = match (v.wide_stores, v.convert.is_some()) {
            (true, _) => ("fragments/generic_runs_wide.wgsl", GENERIC_RUNS_WIDE_WGSL),
            (false, true) if v.quads => (
                "fragments/generic_convert_quad_runs.wgsl",
                GENERIC_CONVERT_QUAD_RUNS_WGSL,
            ),
            (false, true) => (
                "fragments/generic_convert_runs.wgsl",
                GENERIC_CONVERT_RUNS_WGSL,
            ),
            (false, false) => ("fragments/generic_runs.wgsl", GENERIC_RUNS_WGSL),
        };
        let values: Vec<(&str, &str)> = values.iter().map(|(k, v)| (*k, v.as_str())).collect();
        fill(name, template, &values)?
    } else {
        GENERIC_SPACED_WGSL.to_string()
    };
    let kernel = fill(
        "generic.wgsl",
        GENERIC_WGSL,
        &[
            ("ITEMS", &format!("{GENERIC_ITEMS}u")),
            ("INDEX_MATH", index_math(v.index)),
            ("DECODE_FN", &generic_decode(v, mode)),
            ("MOVE_FN", move_fn),
            ("ITEMS_FN", &items_fn),
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

pub(super) fn generic_params(plan: &Plan, chunk: &Chunk, v: &GenericVariant) -> Vec<u32> {
    let unit = plan.unit as u64;
    let rank = plan.dims.len();
    let in_strides = plan.in_strides();
    let out_strides = plan.out_strides_by_input_dim();
    let in_out_order =
        |per_dim: &[u64]| -> Vec<u64> { plan.dims_perm.iter().map(|&d| per_dim[d]).collect() };
    let base = plan.view.as_ref().map_or(0, |v| v.src_base as u64);
    let src_bias = (plan.src_offset / unit)
        .wrapping_sub(chunk.src_window.0 / unit)
        .wrapping_add(base);
    let dst_unit = plan.dst_unit() as u64;
    let dst_bias = (plan.dst_offset / dst_unit).wrapping_sub(chunk.dst_window.0 / dst_unit);
    let corner = |strides: &[u64]| -> u64 {
        (0..rank).fold(0u64, |a, d| {
            a.wrapping_add(chunk.lo[d].wrapping_mul(strides[d]))
        })
    };
    let extents: Vec<u64> = (0..rank).map(|d| chunk.hi[d] - chunk.lo[d]).collect();
    let mut head = [0u64; GenericValue::ALL.len()];
    head[GenericValue::NUnits as usize] = plan.units();
    let (n_items, src_off, dst_off) = match mode(v) {
        Mode::Whole | Mode::Padded => (plan.items(), src_bias, dst_bias),
        Mode::Box => (
            extents.iter().product(),
            src_bias.wrapping_add(corner(&in_strides)),
            dst_bias.wrapping_add(corner(&out_strides)),
        ),
        Mode::Window => (
            chunk.dst_window.1 / 4,
            src_bias,
            0u64.wrapping_sub(dst_bias),
        ),
    };
    head[GenericValue::NItems as usize] = n_items;
    head[GenericValue::SrcOff as usize] = src_off;
    head[GenericValue::DstOff as usize] = dst_off;
    let mut values = head.to_vec();
    let (groups, mults, valid_lo, valid_hi) = bound_arrays(plan);
    for &array in generic_arrays(v) {
        values.extend(match array {
            GenericArray::Dims if mode(v) == Mode::Box => in_out_order(&extents),
            GenericArray::Dims => plan.out_dims(),
            GenericArray::SrcStrides => in_out_order(&in_strides),
            GenericArray::DstStrides => in_out_order(&out_strides),
            GenericArray::BoxLo => in_out_order(&chunk.lo),
            GenericArray::BoxHi => in_out_order(&chunk.hi),
            GenericArray::Groups => in_out_order(&groups),
            GenericArray::Mults => in_out_order(&mults),
            GenericArray::ValidLo => valid_lo.clone(),
            GenericArray::ValidHi => valid_hi.clone(),
        });
    }
    let mut words = vec![0u32; GENERIC_VALUES];
    words[0] = chunk.total_workgroups as u32;
    if let Some(view) = &plan.view {
        words[GENERIC_FILL..GENERIC_FILL + 4].copy_from_slice(&view.fill);
    }
    for value in values {
        words.push(value as u32);
        if value_words(plan.index) == 2 {
            words.push((value >> 32) as u32);
        }
    }
    if let Some(c) = &plan.conversion {
        words.extend(convert_block(c, output_channels(plan, c)));
    }
    words
}

/// The affine's channel geometry over the output (the request's permuted shape): output
/// elements per channel step, and channels; one channel where one value serves all.
fn output_channels(plan: &Plan, c: &Conversion) -> (u64, u64) {
    match c.affine() {
        Some(a) if a.scale.len() > 1 => {
            let out: Vec<u64> = plan.perm.iter().map(|&p| plan.shape[p] as u64).collect();
            (out[a.axis + 1..].iter().product(), out[a.axis])
        }
        _ => (1, 1),
    }
}

/// A conversion's words (see [`convert_words`]): the channel geometry `(step, count)` (the
/// channel of index `i` is `(i / step) % count`) and the affine's values.
pub(super) fn convert_block(c: &Conversion, (step, count): (u64, u64)) -> Vec<u32> {
    let mut words = vec![0u32; convert_words()];
    if let Some(a) = c.affine() {
        for (i, (s, b)) in a.scale.iter().zip(&a.bias).enumerate() {
            words[4 + i] = s.to_bits();
            words[4 + MAX_CHANNELS + i] = b.to_bits();
        }
    }
    // Within one storage binding an output has fewer than 2^32 elements.
    words[0] = step as u32;
    words[1] = count as u32;
    words
}

/// A padded view's bounds as per-dim arrays (in `dims` order): each dim's bound (0 for an
/// unbounded dim, whose multiplier 0 leaves any bound alone) and its multiplier in the
/// bound's combined index; and per bound (rank long, unused ones all-valid) its range.
pub(super) fn bound_arrays(plan: &Plan) -> (Vec<u64>, Vec<u64>, Vec<u64>, Vec<u64>) {
    let rank = plan.dims.len();
    let (mut groups, mut mults) = (vec![0u64; rank], vec![0u64; rank]);
    let (mut lo, mut hi) = (vec![0u64; rank], vec![u64::MAX; rank]);
    let bounds = plan.view.as_ref().map_or(&[][..], |v| &v.bounds[..]);
    for (g, (dims, valid)) in bounds.iter().enumerate() {
        let mut radix = 1;
        for &d in dims.iter().rev() {
            groups[d] = g as u64;
            mults[d] = radix;
            radix *= plan.dims[d];
        }
        (lo[g], hi[g]) = (valid.start, valid.end);
    }
    (groups, mults, lo, hi)
}
