//! The only link to `shaders/`: loads the WGSL templates, fills them strictly, generates the
//! source of each [`Variant`], and lays out each kernel's parameter block. Every kernel is
//! the shared prelude (`shaders/prelude.wgsl`) followed by its own file. The rank is baked
//! into the generated code, so index decodes are straight-line code with no loop over dims.
//!
//! Constants that Rust and WGSL share (workgroup size, items per thread, the micro-tile
//! side, the names and positions of parameter words) are written once, here or in
//! [`mod@crate::plan`], and filled into the WGSL.

use std::fmt::Write;

use thiserror::Error;

use crate::model;
use crate::plan::{
    Block, Chunk, ELEM_SIZES, GENERIC_ITEMS, GENERIC_RUN, GENERIC_WORKGROUP, IndexMath, Kernel,
    MAX_BOUNDS, MAX_RANK, MICRO_RUN, MICRO_WORKGROUP, Plan, STRIP_MAX, Strip, Tile, Variant,
    pack_of, select,
};

/// The prelude every kernel starts with: bindings, parameters, packing helpers.
pub const PRELUDE_WGSL: &str = include_str!("../shaders/prelude.wgsl");
/// Template of the generic kernel (entry point `generic`).
pub const GENERIC_WGSL: &str = include_str!("../shaders/generic.wgsl");
/// Template of the tiled kernel (entry point `tiled`).
pub const TILED_WGSL: &str = include_str!("../shaders/tiled.wgsl");
/// Template of the register micro-tile kernel (entry point `micro`).
pub const MICRO_WGSL: &str = include_str!("../shaders/micro.wgsl");
/// Template of the benchmarks' copy kernel, the shader ceiling (entry point `vec4_copy`).
pub const VEC4_COPY_WGSL: &str = include_str!("../shaders/vec4_copy.wgsl");
const INDEX_U32_WGSL: &str = include_str!("../shaders/index_u32.wgsl");
const INDEX_U64_WGSL: &str = include_str!("../shaders/index_u64.wgsl");
const INDEX_PAIR_WGSL: &str = include_str!("../shaders/index_pair.wgsl");
const GENERIC_WHOLE_WGSL: &str = include_str!("../shaders/fragments/generic_whole.wgsl");
const GENERIC_SPACED_WGSL: &str = include_str!("../shaders/fragments/generic_spaced.wgsl");
const GENERIC_RUNS_WGSL: &str = include_str!("../shaders/fragments/generic_runs.wgsl");
const GENERIC_RUNS_WIDE_WGSL: &str = include_str!("../shaders/fragments/generic_runs_wide.wgsl");
const GENERIC_PACKED_WGSL: &str = include_str!("../shaders/fragments/generic_packed.wgsl");
const GENERIC_BOX_WGSL: &str = include_str!("../shaders/fragments/generic_box.wgsl");
const GENERIC_WINDOW_WGSL: &str = include_str!("../shaders/fragments/generic_window.wgsl");
const GENERIC_PADDED_WGSL: &str = include_str!("../shaders/fragments/generic_padded.wgsl");
const GENERIC_PADDED_PACKED_WGSL: &str =
    include_str!("../shaders/fragments/generic_padded_packed.wgsl");
const TILED_OUT_WORD_WGSL: &str = include_str!("../shaders/fragments/tiled_out_word.wgsl");
const TILED_OUT_WORD_PACKED_WGSL: &str =
    include_str!("../shaders/fragments/tiled_out_word_packed.wgsl");
const ACCESS_WGSL: &str = include_str!("../shaders/fragments/access.wgsl");
const ACCESS_TRACE_WGSL: &str = include_str!("../shaders/fragments/access_trace.wgsl");
const TILE_ACCESS_WGSL: &str = include_str!("../shaders/fragments/tile_access.wgsl");
const TILE_ACCESS_TRACE_WGSL: &str = include_str!("../shaders/fragments/tile_access_trace.wgsl");

/// How a variant's memory accesses are generated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Build {
    /// As shipped: the access functions only access.
    Shipped,
    /// Trace mode (see [`crate::model`]): every access is also recorded. `padding: false`
    /// drops the tiled kernel's padding column, to model what it prevents.
    Trace {
        /// Keep the tile's padding column (as shipped).
        padding: bool,
    },
}

/// A template that cannot be filled: a mistake in this crate, caught when a variant is
/// generated (every variant is generated and validated by the tests).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum TemplateError {
    /// The template names a placeholder no value was given for (a misspelt name).
    #[error("{template}: placeholder {{{{{name}}}}} has no value")]
    Missing {
        /// The template's name.
        template: &'static str,
        /// The placeholder's name.
        name: String,
    },
    /// A value was given for a placeholder the template does not name.
    #[error("{template}: the value for {name} fills no placeholder")]
    Unused {
        /// The template's name.
        template: &'static str,
        /// The value's name.
        name: String,
    },
    /// Two values were given for one placeholder.
    #[error("{template}: two values for {name}")]
    Duplicate {
        /// The template's name.
        template: &'static str,
        /// The value's name.
        name: String,
    },
    /// `{{` not followed by a name of capitals, digits and underscores and `}}`.
    #[error("{template}: malformed placeholder at byte {at}")]
    Malformed {
        /// The template's name.
        template: &'static str,
        /// Byte offset of the `{{`.
        at: usize,
    },
    /// The kernel runs no shader (empty, copy).
    #[error("the {0} kernel runs no shader")]
    NoShader(&'static str),
}

/// Fills the `{{NAME}}` placeholders of `template` in one pass: every placeholder must have
/// exactly one value, every value must fill a placeholder, and values are not scanned again
/// (a value that contains `{{` stays as it is).
pub fn fill(
    name: &'static str,
    template: &str,
    values: &[(&str, &str)],
) -> Result<String, TemplateError> {
    for (i, (key, _)) in values.iter().enumerate() {
        if values[..i].iter().any(|(k, _)| k == key) {
            return Err(TemplateError::Duplicate {
                template: name,
                name: key.to_string(),
            });
        }
    }
    let mut used = vec![false; values.len()];
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(start) = rest.find("{{") {
        let at = template.len() - rest.len() + start;
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let end = after
            .find("}}")
            .ok_or(TemplateError::Malformed { template: name, at })?;
        let key = &after[..end];
        let well_formed = !key.is_empty()
            && key
                .bytes()
                .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_');
        if !well_formed {
            return Err(TemplateError::Malformed { template: name, at });
        }
        let i =
            values
                .iter()
                .position(|(k, _)| *k == key)
                .ok_or_else(|| TemplateError::Missing {
                    template: name,
                    name: key.to_string(),
                })?;
        used[i] = true;
        out.push_str(values[i].1);
        rest = &after[end + 2..];
    }
    out.push_str(rest);
    match used.iter().position(|u| !u) {
        Some(i) => Err(TemplateError::Unused {
            template: name,
            name: values[i].0.to_string(),
        }),
        None => Ok(out),
    }
}

/// Declares an enum of parameter words (or index values) with their WGSL names: the
/// variant's position is its index, and the WGSL constants are generated from the list.
macro_rules! named_words {
    ($(#[$meta:meta])* $name:ident { $($(#[$vmeta:meta])* $variant:ident = $wgsl:literal,)* }) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum $name {
            $($(#[$vmeta])* $variant,)*
        }

        impl $name {
            /// Every word, in block order.
            pub const ALL: &'static [$name] = &[$($name::$variant,)*];

            /// The WGSL constant naming this word's index.
            pub fn wgsl_name(self) -> &'static str {
                match self {
                    $($name::$variant => $wgsl,)*
                }
            }

            fn decls() -> Vec<(&'static str, usize)> {
                Self::ALL.iter().map(|w| (w.wgsl_name(), *w as usize)).collect()
            }
        }
    };
}

named_words! {
    /// Index values of the generic kernel, from word [`GENERIC_VALUES`] on (one word each
    /// with 32-bit index math, two otherwise). The per-dim arrays follow.
    GenericValue {
        /// Units in the tensor.
        NUnits = "N_UNITS",
        /// Items this dispatch moves.
        NItems = "N_ITEMS",
        /// Source offset, in units from the start of the binding window.
        SrcOff = "SRC_OFF",
        /// Destination offset, likewise.
        DstOff = "DST_OFF",
    }
}

named_words! {
    /// Words of the tiled and micro kernels' parameter block (the micro kernel counts its
    /// blocks as tiles, and its offsets and strides in its accesses); the batch dims follow
    /// from word [`TILE_BATCH`].
    TileWord {
        /// Workgroups in the dispatch.
        TotalWorkgroups = "TOTAL_WORKGROUPS",
        /// Tiles along the columns (the input's innermost dim).
        TilesC = "TILES_C",
        /// Tiles along the rows (the dim that becomes the output's innermost).
        TilesR = "TILES_R",
        /// Tiles in all, batch included.
        Tiles = "TILES",
        /// Rows, in units.
        Rows = "ROWS",
        /// Columns, in units.
        Cols = "COLS",
        /// Source offset, in storage words.
        SrcOff = "SRC_OFF",
        /// Destination offset, in storage words.
        DstOff = "DST_OFF",
        /// Input stride of the row dim, in units.
        InRow = "IN_ROW",
        /// Output stride of the column dim, in units.
        OutRow = "OUT_ROW",
    }
}

named_words! {
    /// Words of the benchmarks' copy kernel's parameter block.
    CopyWord {
        /// Workgroups in the dispatch.
        TotalWorkgroups = "TOTAL_WORKGROUPS",
        /// 16-byte units to copy.
        Units = "UNITS",
    }
}

/// The word where the generic kernel's index values start (word 0 is the workgroup count,
/// words [`GENERIC_FILL`].. the fill unit of padded views; values start on a whole `vec4`).
pub const GENERIC_VALUES: usize = 8;

/// The four words of the generic kernel's fill unit (padded views).
pub const GENERIC_FILL: usize = 4;

/// The word where the tiled and micro kernels' batch dims start.
pub const TILE_BATCH: usize = TileWord::ALL.len();

/// `const NAME: u32 = Nu;` lines.
fn consts(decls: &[(&str, usize)]) -> String {
    decls
        .iter()
        .map(|(name, i)| format!("const {name}: u32 = {i}u;\n"))
        .collect()
}

/// WGSL storage type of one movement unit: 8/16-bit data lives packed in `u32` words;
/// with `access64`, 8 and 16-byte units are 64-bit components (see `Plan::access64`).
pub fn store_type(unit: u32, access64: bool) -> &'static str {
    match (unit, access64) {
        (8, false) => "vec2<u32>",
        (8, true) => "u64",
        (16, false) => "vec4<u32>",
        (16, true) => "vec2<u64>",
        _ => "u32",
    }
}

/// The prelude, filled for one kernel: its storage type, parameter block size (in `vec4`s),
/// named words, packing and access functions (`invocations`: per workgroup, the kernel's
/// `WORKGROUP` and trace mode's).
fn prelude(
    store: &str,
    param_words: usize,
    words: &[(&str, usize)],
    pack: u32,
    build: Build,
    invocations: u32,
) -> Result<String, TemplateError> {
    let access = Access {
        src: store,
        dst: store,
        reversing: false,
    };
    prelude_with(access, param_words, words, pack, build, invocations)
}

/// How a kernel accesses global memory, where it differs from one storage type for both
/// buffers: the generic kernel's wide stores ([`Plan::wide_stores`]) write another type than
/// they read, and `reversing` source loads return `reversed(src[i])` (the kernel defines
/// `reversed`, see [`reverse_fn`]).
struct Access<'a> {
    src: &'a str,
    dst: &'a str,
    reversing: bool,
}

/// [`prelude`] for a kernel whose accesses are as `access` says.
fn prelude_with(
    access: Access,
    param_words: usize,
    words: &[(&str, usize)],
    pack: u32,
    build: Build,
    invocations: u32,
) -> Result<String, TemplateError> {
    let Access {
        src: store,
        dst: dst_store,
        reversing,
    } = access;
    let src_unit = match reversing {
        true => "reversed(src[i])",
        false => "src[i]",
    };
    let access = match build {
        Build::Shipped => fill(
            "fragments/access.wgsl",
            ACCESS_WGSL,
            &[
                ("STORE", store),
                ("DST_STORE", dst_store),
                ("SRC_UNIT", src_unit),
            ],
        )?,
        Build::Trace { .. } => {
            let mut spaces: String = model::Space::ALL
                .iter()
                .map(|s| format!("const {}: u32 = {}u;\n", s.wgsl_name(), *s as u32))
                .collect();
            spaces += &format!("const SPACES: u32 = {}u;", model::Space::ALL.len());
            fill(
                "fragments/access_trace.wgsl",
                ACCESS_TRACE_WGSL,
                &[
                    ("STORE", store),
                    ("DST_STORE", dst_store),
                    ("SRC_UNIT", src_unit),
                    ("HEADER", &format!("{}u", model::HEADER)),
                    ("SLOTS", &format!("{}u", model::SLOTS)),
                    ("RECORD_WORDS", &format!("{}u", model::RECORD_WORDS)),
                    ("INVOCATIONS", &format!("{invocations}u")),
                    ("UNIT_BYTES", &format!("{}u", store_bytes(store))),
                    ("DST_UNIT_BYTES", &format!("{}u", store_bytes(dst_store))),
                    ("SPACE_CODES", &spaces),
                ],
            )?
        }
    };
    fill(
        "prelude.wgsl",
        PRELUDE_WGSL,
        &[
            ("PARAM_VEC4S", &param_words.div_ceil(4).max(1).to_string()),
            ("STORE", store),
            ("DST_STORE", dst_store),
            ("PARAM_WORDS", &consts(words)),
            ("WORKGROUP", &format!("{invocations}u")),
            ("PACK", &format!("{pack}u")),
            ("ACCESS", &access),
        ],
    )
}

/// Bytes of one storage unit of a WGSL storage type.
fn store_bytes(store: &str) -> u32 {
    match store {
        "vec2<u32>" | "u64" => 8,
        "vec4<u32>" | "vec2<u64>" => 16,
        _ => 4,
    }
}

/// Every variant the planner can ask for; the naga test validates each one.
pub fn all_variants() -> Vec<Variant> {
    let mut all = Vec::new();
    for unit in ELEM_SIZES.map(|u| u as u32) {
        for rank in 1..=MAX_RANK {
            let variant = |kernel, index, boxed, padded, specialized| Variant {
                kernel,
                rank,
                unit,
                index,
                boxed,
                padded,
                strided: false,
                specialized,
                block: None,
                runs: false,
                access64: false,
                reverse: 0,
                wide_stores: false,
            };
            if rank >= 2 {
                all.push(variant(Kernel::Tiled, IndexMath::U32, false, false, false));
                for block in [Block::wide(unit), Block::narrow(unit)]
                    .into_iter()
                    .flatten()
                {
                    for (run, padded) in [1, MICRO_RUN]
                        .into_iter()
                        .flat_map(|r| [(r, false), (r, true)])
                    {
                        all.push(Variant {
                            block: Some(block.with_run(run)),
                            ..variant(Kernel::Micro, IndexMath::U32, false, padded, false)
                        });
                    }
                }
                // Strips: each short extent the square blocks cannot take, either side
                // whole; never padded.
                let side = Block::wide(unit).map_or(0, |b| b.side);
                let extents = (2..=STRIP_MAX).filter(|n| side > 0 && n % side != 0);
                for strip in extents.flat_map(|n| [Strip::Cols(n), Strip::Rows(n)]) {
                    for run in [1, MICRO_RUN] {
                        all.push(Variant {
                            block: Block::wide_strip(unit, strip).map(|b| b.with_run(run)),
                            ..variant(Kernel::Micro, IndexMath::U32, false, false, false)
                        });
                    }
                }
            }
            for index in [IndexMath::U32, IndexMath::U64, IndexMath::U32Pair] {
                for (boxed, padded) in [(false, false), (true, false), (false, true)] {
                    all.push(variant(Kernel::Generic, index, boxed, padded, false));
                }
                // A strided packed output of one dim would have to be contiguous.
                if rank >= 2 || unit >= 4 {
                    all.push(Variant {
                        strided: true,
                        ..variant(Kernel::Generic, index, false, true, false)
                    });
                }
                // A reversed innermost dim (views without bounds or destination strides):
                // units of whole words of smaller elements, runs where they apply.
                let smaller = ELEM_SIZES
                    .map(|e| e as u32)
                    .into_iter()
                    .filter(|&e| e < unit);
                for reverse in smaller.filter(|_| unit >= 4) {
                    let plain = variant(Kernel::Generic, index, false, false, false);
                    all.push(Variant { reverse, ..plain });
                    if index == IndexMath::U32 {
                        all.push(Variant {
                            reverse,
                            runs: true,
                            ..plain
                        });
                    }
                }
                if index == IndexMath::U32 {
                    all.push(variant(Kernel::Generic, index, false, false, true));
                    // Runs (CPU devices): whole tensors of unpacked units, 32-bit index math.
                    if unit >= 4 {
                        for specialized in [false, true] {
                            all.push(Variant {
                                runs: true,
                                ..variant(Kernel::Generic, index, false, false, specialized)
                            });
                        }
                    }
                }
            }
        }
    }
    // Wide stores (CPU devices): runs of 4 and 8-byte units.
    let wide: Vec<Variant> = all
        .iter()
        .filter(|v| v.runs && matches!(v.unit, 4 | 8))
        .map(|v| Variant {
            wide_stores: true,
            ..*v
        })
        .collect();
    all.extend(wide);
    // 64-bit accesses (CPU devices, 32-bit index math): 8/16-byte units of the generic
    // kernel and its wide stores, wide micro blocks.
    let access64: Vec<Variant> = all
        .iter()
        .filter(|v| {
            v.index == IndexMath::U32
                && match v.kernel {
                    Kernel::Generic => v.unit >= 8 || v.wide_stores,
                    Kernel::Micro => v.block.is_some_and(|b| b.access_bytes == 16),
                    _ => false,
                }
        })
        .map(|v| Variant {
            access64: true,
            ..*v
        })
        .collect();
    all.extend(access64);
    all
}

/// The WGSL source of a variant, as shipped.
pub fn source(v: &Variant) -> Result<String, TemplateError> {
    build(v, Build::Shipped)
}

/// The WGSL source of a variant in trace mode: the shipped kernel, with every memory access
/// also recorded (see [`crate::model`]), for the bindings of `Permuter::trace`.
pub fn traced_source(v: &Variant, padding: bool) -> Result<String, TemplateError> {
    build(v, Build::Trace { padding })
}

/// The WGSL source of a variant, shipped or traced.
pub fn build(v: &Variant, build: Build) -> Result<String, TemplateError> {
    match v.kernel {
        Kernel::Generic => generic_source(v, build),
        Kernel::Tiled => tiled_source(v, build),
        Kernel::Micro => micro_source(v, build),
        Kernel::Empty | Kernel::Copy => Err(TemplateError::NoShader(v.kernel.name())),
    }
}

/// The benchmarks' vec4 copy kernel.
pub fn vec4_copy_source(access64: bool) -> Result<String, TemplateError> {
    let kernel = fill(
        "vec4_copy.wgsl",
        VEC4_COPY_WGSL,
        &[("ITEMS", &format!("{GENERIC_ITEMS}u"))],
    )?;
    let prelude = prelude(
        store_type(16, access64),
        CopyWord::ALL.len(),
        &CopyWord::decls(),
        1,
        Build::Shipped,
        GENERIC_WORKGROUP,
    )?;
    Ok(prelude + &kernel)
}

/// The index-math helpers (`Idx`, `ix`, `ip`, `iadd`, `imul`, `idiv`, `imod`, `ilt`, `iu32`)
/// for one index width; they expect `param(i: u32) -> u32` and `VALUES` in scope.
pub fn index_math(index: IndexMath) -> &'static str {
    match index {
        IndexMath::U32 => INDEX_U32_WGSL,
        IndexMath::U64 => INDEX_U64_WGSL,
        IndexMath::U32Pair => INDEX_PAIR_WGSL,
    }
}

/// The fill unit read from words `FILL`.., as a WGSL expression of the unit's storage type.
fn fill_unit(unit: u32, access64: bool) -> &'static str {
    match (unit, access64) {
        (8, false) => "vec2<u32>(param(FILL), param(FILL + 1u))",
        (8, true) => "(u64(param(FILL)) | (u64(param(FILL + 1u)) << 32u))",
        (16, false) => {
            "vec4<u32>(param(FILL), param(FILL + 1u), param(FILL + 2u), param(FILL + 3u))"
        }
        (16, true) => {
            "vec2<u64>(u64(param(FILL)) | (u64(param(FILL + 1u)) << 32u), u64(param(FILL + 2u)) | (u64(param(FILL + 3u)) << 32u))"
        }
        _ => "param(FILL)",
    }
}

/// Words per index value in the generic kernel's parameter block.
fn value_words(index: IndexMath) -> usize {
    if index == IndexMath::U32 { 1 } else { 2 }
}

/// The three shapes of the generic kernel's work.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
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

fn mode(v: &Variant) -> Mode {
    match (v.padded, v.boxed, pack_of(v.unit)) {
        (true, _, _) => Mode::Padded,
        (false, false, _) => Mode::Whole,
        (false, true, 1) => Mode::Box,
        (false, true, _) => Mode::Window,
    }
}

/// Per-dim arrays of the generic kernel's index values (each `rank` long, outermost output
/// dim first), after the [`GenericValue`]s: dims and source strides, then by mode
/// destination strides (Box), box bounds lo and hi (Window), or a view's bounds and, when
/// strided, destination strides (Padded).
fn generic_arrays(v: &Variant) -> &'static [&'static str] {
    // A view's arrays; the destination strides only where its output is strided.
    const VIEW: [&str; 7] = [
        "DIMS",
        "SRC_STRIDES",
        "GROUPS",
        "MULTS",
        "VALID_LO",
        "VALID_HI",
        "DST_STRIDES",
    ];
    match mode(v) {
        Mode::Whole => &["DIMS", "SRC_STRIDES"],
        Mode::Box => &["DIMS", "SRC_STRIDES", "DST_STRIDES"],
        Mode::Window => &["DIMS", "SRC_STRIDES", "BOX_LO", "BOX_HI"],
        Mode::Padded if v.strided => &VIEW,
        Mode::Padded => &VIEW[..6],
    }
}

/// The unrolled decode of an output position into input (and for boxes, output) offsets.
fn generic_decode(v: &Variant, mode: Mode) -> String {
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
                if v.strided {
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
        if !v.strided {
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

fn generic_source(v: &Variant, build: Build) -> Result<String, TemplateError> {
    let mode = mode(v);
    let arrays = generic_arrays(v);
    let values = GenericValue::ALL.len() + arrays.len() * v.rank;
    let mut decls = vec![
        ("TOTAL_WORKGROUPS", 0),
        ("FILL", GENERIC_FILL),
        ("VALUES", GENERIC_VALUES),
    ];
    decls.extend(GenericValue::decls());
    for (i, name) in arrays.iter().enumerate() {
        decls.push((name, GenericValue::ALL.len() + i * v.rank));
    }
    let move_fn = match (mode, pack_of(v.unit)) {
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
    let access = Access {
        src: store,
        // Wide stores write 16 bytes at a time.
        dst: match v.wide_stores {
            true => store_type(16, v.access64),
            false => store,
        },
        reversing: v.reverse > 0,
    };
    let prelude = prelude_with(
        access,
        GENERIC_VALUES + values * value_words(v.index),
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
        let mut values = vec![("STEP", step), ("RUN", format!("{GENERIC_RUN}u"))];
        if v.wide_stores {
            let gather: String = (0..16 / v.unit)
                .map(|j| format!("        let u{j} = load_src(at + {j}u * step);\n"))
                .collect();
            values.push(("UNIT_BYTES", v.unit.to_string()));
            values.push(("GATHER", gather));
            values.push(("WIDE", wide_store(v.unit, v.access64)));
        }
        let (name, template) = match v.wide_stores {
            true => ("fragments/generic_runs_wide.wgsl", GENERIC_RUNS_WIDE_WGSL),
            false => ("fragments/generic_runs.wgsl", GENERIC_RUNS_WGSL),
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
fn wide_store(unit: u32, access64: bool) -> String {
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
fn reverse_fn(unit: u32, elem: u32, access64: bool) -> String {
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

/// `batch_bases(b)`: input and output offsets of batch index `b` over `batch` batch dims
/// (parameter words from `BATCH`: dims, input strides, output strides).
fn batch_fn(batch: usize) -> String {
    let mut f = String::from("fn batch_bases(b: u32) -> vec2<u32> {\n");
    if batch == 0 {
        f += "    return vec2<u32>(0u, 0u);\n}";
        return f;
    }
    f += "    var rem = b;\n    var bases = vec2<u32>(0u, 0u);\n";
    for j in (0..batch).rev() {
        let (d, is, os) = (j, batch + j, 2 * batch + j);
        if j > 0 {
            let _ = writeln!(
                f,
                "    let c{j} = rem % param(BATCH + {d}u);\n    rem = rem / param(BATCH + {d}u);"
            );
        } else {
            f += "    let c0 = rem;\n";
        }
        let _ = writeln!(
            f,
            "    bases += vec2<u32>(c{j} * param(BATCH + {is}u), c{j} * param(BATCH + {os}u));"
        );
    }
    f += "    return bases;\n}";
    f
}

/// The tiled and micro kernels' prelude: words, then three per batch dim, then for a padded
/// view (micro kernel) its bound words (see [`micro_bound_words`]).
fn tile_prelude(
    v: &Variant,
    store: &str,
    build: Build,
    invocations: u32,
) -> Result<String, TemplateError> {
    let mut decls = TileWord::decls();
    decls.push(("BATCH", TILE_BATCH));
    let batch = v.rank.saturating_sub(2);
    let mut words = TILE_BATCH + 3 * batch;
    if v.padded {
        let (bound_decls, end) = micro_bound_words(batch);
        decls.extend(bound_decls);
        words = end;
    }
    prelude(store, words, &decls, pack_of(v.unit), build, invocations)
}

/// The micro kernel's words for a padded view, from the first whole `vec4` after the batch
/// dims' words: four each (one per bound, unused ones all-valid) for the fill unit, the
/// row dim's multiplier in each bound's combined index and each bound's valid range; then
/// four multipliers per batch dim. Returns their names and positions, and the block's end.
fn micro_bound_words(batch: usize) -> (Vec<(&'static str, usize)>, usize) {
    let start = (TILE_BATCH + 3 * batch).next_multiple_of(4);
    let names = ["FILL", "ROW_MULTS", "VALID_LO", "VALID_HI", "BATCH_MULTS"];
    let decls = names
        .iter()
        .enumerate()
        .map(|(i, &n)| (n, start + 4 * i))
        .collect();
    (decls, start + 4 * (names.len() - 1 + batch))
}

/// For a padded view, the micro kernel's `batch_bounds(b)` (each bound's combined index
/// over the batch dims of batch index `b`) and `row_inside(bv, row)`: whether a source row
/// of that batch is inside every bound. `MAX_BOUNDS` is 4: one bound per vector lane.
fn micro_bounds_fn(batch: usize) -> String {
    const _: () = assert!(MAX_BOUNDS == 4);
    let mut f = String::from(
        "// Words `i` to `i + 3` (`i` a multiple of 4): one per bound.\nfn param4(i: u32) -> vec4<u32> {\n    return params.v[i / 4u];\n}\n\n",
    );
    f += "// Each bound's combined index over the batch dims of batch index `b`.\nfn batch_bounds(b: u32) -> vec4<u32> {\n    var rem = b;\n    var v = vec4<u32>(0u);\n";
    for j in (0..batch).rev() {
        if j > 0 {
            let _ = writeln!(
                f,
                "    let c{j} = rem % param(BATCH + {j}u);\n    rem = rem / param(BATCH + {j}u);"
            );
        } else {
            f += "    let c0 = rem;\n";
        }
        let _ = writeln!(f, "    v += c{j} * param4(BATCH_MULTS + {}u);", 4 * j);
    }
    f += "    return v;\n}\n\n";
    f += "// Whether source row `row` of the batch whose bound indices are `bv` exists.\nfn row_inside(bv: vec4<u32>, row: u32) -> bool {\n    let v = bv + row * param4(ROW_MULTS);\n    return all(v >= param4(VALID_LO)) && all(v < param4(VALID_HI));\n}\n";
    f
}

fn micro_source(v: &Variant, build: Build) -> Result<String, TemplateError> {
    let block = v.block.ok_or(TemplateError::Missing {
        template: "micro.wgsl",
        name: "the variant's block".into(),
    })?;
    let store = match block.access_bytes {
        16 => store_type(16, v.access64),
        _ => "u32",
    };
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
    let kernel = fill(
        "micro.wgsl",
        MICRO_WGSL,
        &[
            ("SIDE", &format!("{}u", block.side)),
            (
                "ACCESSES",
                &format!("{}u", block.side / block.per_access(v.unit)),
            ),
            ("RUN", &format!("{}u", block.run)),
            ("BATCH_FN", &batch_fn(v.rank.saturating_sub(2))),
            ("BOUNDS_FN", &bounds_fn),
            ("BATCH_BOUNDS", &batch_bounds),
            (
                "BLOCK_MOVE",
                &block_move(&block, v.unit, v.access64, v.padded),
            ),
        ],
    )?;
    Ok(tile_prelude(v, store, build, MICRO_WORKGROUP)? + &kernel)
}

/// The micro kernel's move of the `j`th block of an invocation's run, unrolled: where the
/// block starts (`first_in`, `first_out`, in accesses), its loads, and its stores, whose
/// words are gathered from the loads at compile-time positions (whole words for 4 and
/// 8-byte elements, packed lanes for 8/16-bit ones). A square block loads each input row
/// and stores each output row as accesses; a strip loads or stores its span side as one run
/// of accesses ([`Strip`]). With `padded`, an input row outside the view's bounds is not
/// read and takes the fill value.
fn block_move(block: &Block, unit: u32, access64: bool, padded: bool) -> String {
    let (side, per) = (block.side, block.per_access(unit));
    let accesses = side / per; // accesses per row of a square block
    debug_assert!(block.strip.is_none() || !padded, "strips are never padded");
    // Where the `j`th block starts (its index along the run, then its first input and
    // output access), and its loads: the name and the address of each access.
    let ((index, first_in, first_out), loads): (_, Vec<(String, String)>) = match block.strip {
        None => (
            (
                "br = br0 + j".to_string(),
                "ACCESSES * bc0 + SIDE * br * in_row".to_string(),
                "ACCESSES * br + SIDE * bc0 * out_row".to_string(),
            ),
            (0..side)
                .flat_map(|r| {
                    (0..accesses)
                        .map(move |a| (format!("x{r}_{a}"), format!("{r}u * in_row + {a}u")))
                })
                .collect(),
        ),
        // `side` input rows back to back: one span of `n` accesses.
        Some(Strip::Cols(n)) => (
            ("br = br0 + j".into(), format!("{n}u * br"), "br".into()),
            (0..n).map(|k| (format!("x{k}"), format!("{k}u"))).collect(),
        ),
        // `n` input rows of one access each; the output's `side` rows back to back.
        Some(Strip::Rows(n)) => (
            ("bc = bc0 + j".into(), "bc".into(), format!("{n}u * bc")),
            (0..n)
                .map(|r| (format!("x{r}"), format!("{r}u * in_row")))
                .collect(),
        ),
    };
    let mut f = format!(
        "        let {index};\n        let first_in = param(SRC_OFF) + bases.x + {first_in};\n        let first_out = param(DST_OFF) + bases.y + {first_out};\n"
    );
    // The load and the unit within it of the block's element at input row `r`, column `c`.
    let at = |r: u32, c: u32| -> (usize, u32) {
        match block.strip {
            None => ((r * accesses + c / per) as usize, c % per),
            Some(Strip::Cols(n)) => (((r * n + c) / per) as usize, (r * n + c) % per),
            Some(Strip::Rows(_)) => (r as usize, c),
        }
    };
    // The stores: the address of each access and the elements (row, column) it holds.
    let stores: Vec<(String, Vec<(u32, u32)>)> = match block.strip {
        None => (0..side)
            .flat_map(|c| {
                (0..accesses).map(move |a| {
                    let rows = (a * per..(a + 1) * per).map(|r| (r, c)).collect();
                    (format!("{c}u * out_row + {a}u"), rows)
                })
            })
            .collect(),
        Some(Strip::Cols(n)) => (0..n)
            .map(|c| {
                (
                    format!("{c}u * out_row"),
                    (0..side).map(|r| (r, c)).collect(),
                )
            })
            .collect(),
        // Output unit `k` of the span is column `k / n`'s row `k % n`.
        Some(Strip::Rows(n)) => (0..n)
            .map(|a| {
                let units = (a * per..(a + 1) * per).map(|k| (k % n, k / n)).collect();
                (format!("{a}u"), units)
            })
            .collect(),
    };
    let load = |(name, addr): &(String, String)| format!("{name} = load_src(first_in + {addr});");
    if !padded {
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
    // Word `k` of load `name` (of a 64-bit component: its low or high half).
    let vec = block.access_bytes / 4; // words per access
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
    // Word `k` of a store holding `units`.
    let out_word = |units: &[(u32, u32)], k: u32| match pack_of(unit) {
        1 => {
            let e = unit / 4; // words per element
            let (l, u) = at(units[(k / e) as usize].0, units[(k / e) as usize].1);
            word(&loads[l].0, u * e + k % e)
        }
        pack => {
            let bits = 32 / pack;
            (0..pack)
                .map(|i| {
                    let (r, c) = units[(k * pack + i) as usize];
                    let (l, u) = at(r, c);
                    format!(
                        "(lane({}, {}u) << {}u)",
                        word(&loads[l].0, u / pack),
                        u % pack,
                        bits * i
                    )
                })
                .collect::<Vec<_>>()
                .join(" | ")
        }
    };
    for (addr, units) in &stores {
        let words: Vec<String> = (0..vec).map(|k| out_word(units, k)).collect();
        let value = match (vec, access64) {
            (4, true) => format!(
                "vec2<u64>(u64({}) | (u64({}) << 32u), u64({}) | (u64({}) << 32u))",
                words[0], words[1], words[2], words[3]
            ),
            (4, false) => format!("vec4<u32>({})", words.join(", ")),
            _ => words.join(""),
        };
        let _ = writeln!(f, "        store_dst(first_out + {addr}, {value});");
    }
    f
}

fn tiled_source(v: &Variant, build: Build) -> Result<String, TemplateError> {
    let tile = Tile::for_unit(v.unit);
    let store = store_type(v.unit, false);
    let (pitch, tile_access) = match build {
        Build::Shipped => (tile.words + 1, TILE_ACCESS_WGSL),
        Build::Trace { padding } => (tile.words + padding as u32, TILE_ACCESS_TRACE_WGSL),
    };
    let tile_access = fill(
        "fragments/tile_access.wgsl",
        tile_access,
        &[("STORE", store)],
    )?;
    let out_word = if tile.pack == 1 {
        fill(
            "fragments/tiled_out_word.wgsl",
            TILED_OUT_WORD_WGSL,
            &[("STORE", store)],
        )?
    } else {
        TILED_OUT_WORD_PACKED_WGSL.to_string()
    };
    let kernel = fill(
        "tiled.wgsl",
        TILED_WGSL,
        &[
            ("TILE_WORDS", &format!("{}u", tile.words)),
            ("TILE_ROWS", &format!("{}u", tile.rows)),
            ("STORE", store),
            ("PITCH", &format!("{pitch}u")),
            ("TILE_LEN", &(tile.pack * tile.words * pitch).to_string()),
            ("TILE_ACCESS", &tile_access),
            ("BATCH_FN", &batch_fn(v.rank.saturating_sub(2))),
            ("OUT_WORD_FN", &out_word),
        ],
    )?;
    Ok(tile_prelude(v, store, build, tile.words * tile.rows)? + &kernel)
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
/// `vec4`s) for a plan that runs a shader; empty otherwise. The layout is the one the
/// kernel's generated constants name. Offsets are wrapping: relative to a binding window
/// they may be "negative" until added to a position, and 32-bit kernels only ever see the
/// low word, which is exact.
pub fn params(plan: &Plan, chunk: &Chunk) -> Vec<u32> {
    let mut words = match (plan.kernel, plan.variant()) {
        (Kernel::Generic, Some(v)) => generic_params(plan, chunk, &v),
        (Kernel::Tiled | Kernel::Micro, _) => tile_params(plan, chunk),
        _ => Vec::new(),
    };
    words.resize(words.len().next_multiple_of(4), 0);
    words
}

fn generic_params(plan: &Plan, chunk: &Chunk, v: &Variant) -> Vec<u32> {
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
    let dst_bias = (plan.dst_offset / unit).wrapping_sub(chunk.dst_window.0 / unit);
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
    for array in generic_arrays(v) {
        values.extend(match *array {
            "DIMS" if mode(v) == Mode::Box => in_out_order(&extents),
            "DIMS" => plan.out_dims(),
            "SRC_STRIDES" => in_out_order(&in_strides),
            "DST_STRIDES" => in_out_order(&out_strides),
            "BOX_LO" => in_out_order(&chunk.lo),
            "BOX_HI" => in_out_order(&chunk.hi),
            "GROUPS" => in_out_order(&groups),
            "MULTS" => in_out_order(&mults),
            "VALID_LO" => valid_lo.clone(),
            _ => valid_hi.clone(),
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
    words
}

/// A padded view's bounds as per-dim arrays (in `dims` order): each dim's bound (0 for an
/// unbounded dim, whose multiplier 0 leaves any bound alone) and its multiplier in the
/// bound's combined index; and per bound (rank long, unused ones all-valid) its range.
fn bound_arrays(plan: &Plan) -> (Vec<u64>, Vec<u64>, Vec<u64>, Vec<u64>) {
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

fn tile_params(plan: &Plan, chunk: &Chunk) -> Vec<u32> {
    let unit = plan.unit as u64;
    let (b, r, c) = plan.batch_rows_cols().unwrap_or((0, 0, 0));
    // Tiles (or micro blocks) along each side; the tiled kernel takes offsets in storage
    // units and strides in elements, the micro kernel both in its accesses.
    let ((rows, cols), off_bytes, per) = match plan.kernel {
        Kernel::Tiled => {
            let tile = plan.tile.unwrap_or(Tile::for_unit(plan.unit));
            ((tile.extent(), tile.extent()), unit.max(4), 1)
        }
        _ => {
            let block = select::micro_block(plan).unwrap_or(Block {
                side: 1,
                access_bytes: 4,
                run: 1,
                strip: None,
            });
            let per = block.per_access(plan.unit) as i64;
            let sides = (block.rows() as u64, block.cols() as u64);
            (sides, block.access_bytes as u64, per)
        }
    };
    // Exact for the micro kernel's strides (`micro_block` checks), negative ones included;
    // but for a strip's span side, which the kernel does not read (whole rows back to back).
    let stride = |s: u64| ((s as i64) / per) as u64;
    let (tiles_c, tiles_r) = (c.div_ceil(cols), r.div_ceil(rows));
    let a = plan.row_dim().unwrap_or(0);
    let in_strides = plan.in_strides();
    let out_strides = plan.out_strides_by_input_dim();
    let last = plan.dims.len() - 1;
    let batch = plan.batch_dims();
    let mut head = [0u64; TILE_BATCH];
    for word in TileWord::ALL {
        head[*word as usize] = match word {
            TileWord::TotalWorkgroups => chunk.total_workgroups,
            TileWord::TilesC => tiles_c,
            TileWord::TilesR => tiles_r,
            TileWord::Tiles => b * tiles_c * tiles_r,
            TileWord::Rows => r,
            TileWord::Cols => c,
            TileWord::SrcOff => plan.src_start() / off_bytes,
            TileWord::DstOff => plan.dst_offset / off_bytes,
            TileWord::InRow => stride(in_strides[a]),
            TileWord::OutRow => stride(out_strides[last]),
        };
    }
    let mut words: Vec<u32> = head
        .into_iter()
        .chain(batch.iter().map(|&d| plan.dims[d]))
        .chain(batch.iter().map(|&d| stride(in_strides[d])))
        .chain(batch.iter().map(|&d| stride(out_strides[d])))
        .map(|v| v as u32)
        .collect();
    if plan.kernel == Kernel::Micro && plan.view.as_ref().is_some_and(|v| !v.bounds.is_empty()) {
        words.extend(micro_bound_params(plan, &batch));
    }
    words
}

/// A padded view's words of the micro kernel (laid out as [`micro_bound_words`] says),
/// from the first whole `vec4` after the batch dims' words.
fn micro_bound_params(plan: &Plan, batch: &[usize]) -> Vec<u32> {
    let Some(view) = &plan.view else {
        return Vec::new();
    };
    // Each dim's multiplier in each bound's combined index (0 outside the bound).
    let mut mults = vec![[0u32; MAX_BOUNDS]; plan.dims.len()];
    let (mut lo, mut hi) = ([0u32; MAX_BOUNDS], [u32::MAX; MAX_BOUNDS]);
    for (g, (dims, valid)) in view.bounds.iter().enumerate() {
        let mut radix = 1u64;
        for &d in dims.iter().rev() {
            mults[d][g] = radix as u32;
            radix *= plan.dims[d];
        }
        // Combined indices stay below the unit count, which fits in 32 bits.
        lo[g] = valid.start.min(u32::MAX as u64) as u32;
        hi[g] = valid.end.min(u32::MAX as u64) as u32;
    }
    let start = (TILE_BATCH + 3 * batch.len()).next_multiple_of(4);
    let row = mults[plan.row_dim().unwrap_or(0)];
    let mut words = vec![0u32; start - TILE_BATCH - 3 * batch.len()];
    words.extend(view.fill);
    words.extend(row);
    words.extend(lo);
    words.extend(hi);
    for &d in batch {
        words.extend(mults[d]);
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_misspelt_placeholder_fails_with_its_name() {
        let err = fill("t.wgsl", "let a = {{WORKGROPU}};", &[("WORKGROUP", "256u")]);
        assert_eq!(
            err,
            Err(TemplateError::Missing {
                template: "t.wgsl",
                name: "WORKGROPU".into()
            })
        );
    }

    #[test]
    fn filling_is_strict_and_single_pass() {
        let t = "{{A}} {{B}} {{A}}";
        assert_eq!(
            fill("t", t, &[("A", "1"), ("B", "{{A}}")]).unwrap(),
            "1 {{A}} 1"
        );
        assert!(matches!(
            fill("t", t, &[("A", "1"), ("B", "2"), ("C", "3")]),
            Err(TemplateError::Unused { name, .. }) if name == "C"
        ));
        assert!(matches!(
            fill("t", t, &[("A", "1"), ("A", "2"), ("B", "2")]),
            Err(TemplateError::Duplicate { name, .. }) if name == "A"
        ));
        assert!(matches!(
            fill("t", "x {{a}}", &[]),
            Err(TemplateError::Malformed { at: 2, .. })
        ));
        assert!(matches!(
            fill("t", "x {{A", &[]),
            Err(TemplateError::Malformed { at: 2, .. })
        ));
    }

    #[test]
    fn every_word_name_is_used_by_its_kernels() {
        let first = |kernel| {
            let v = all_variants()
                .into_iter()
                .find(|v| v.kernel == kernel)
                .unwrap();
            source(&v).unwrap()
        };
        let (tiled, micro) = (first(Kernel::Tiled), first(Kernel::Micro));
        for word in TileWord::ALL {
            let used = format!("param({})", word.wgsl_name());
            assert!(
                tiled.contains(&used) || micro.contains(&used),
                "{word:?} is used by no kernel"
            );
        }
        let generic = first(Kernel::Generic);
        for value in GenericValue::ALL {
            assert!(
                generic.contains(&format!("ip({})", value.wgsl_name())),
                "{value:?}"
            );
        }
    }
}
