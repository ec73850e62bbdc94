//! The only link to `shaders/`: loads the WGSL templates, fills them strictly, generates the
//! source of each [`Variant`], and lays out each kernel's parameter block. Every kernel is
//! the shared prelude (`shaders/prelude.wgsl`) followed by its own file. The rank is baked
//! into the generated code, so index decodes are straight-line code with no loop over dims.
//!
//! One module per kernel family owns its generator and its parameter block: `generic`
//! (with `generic_params`), `tiled`, `micro` (with `packed`, its packed units' masked
//! shifts, `bounds`, a padded view's, and `strip`), `convert` (conversions' functions) and `copy` (the benchmark's
//! shader copy); `template` fills templates strictly; `variants` lists every variant. Constants that Rust and WGSL share (workgroup size, items per thread, the
//! micro-tile side, the names and positions of parameter words) are written once, here or in
//! [`crate::plan::tuning`], and filled into the WGSL.

use crate::convert::MAX_CHANNELS;
use crate::model;
use crate::plan::tuning::{
    GENERIC_ITEMS, GENERIC_RUN, GENERIC_WORKGROUP, LANE_GROUP, MICRO_FLAT_RUN,
    MICRO_LANE_MAJOR_RUN, MICRO_RUNS, MICRO_WORKGROUP, STRIP_MAX,
};
use crate::plan::{
    Block, Chunk, ConvertKey, GenericLayout, GenericVariant, IndexMath, Kernel, MicroVariant, Plan,
    RunLanes, Strip, Tile, TiledVariant, Variant, flat_planned, pack_of,
};

mod convert;
mod generic;
mod generic_params;
mod shake;
mod strip;
mod template;
mod tiled;
mod variants;

pub use convert::{CONVERT_WGSL, convert_source, convert_variants};
use convert::{
    block_convert_fn, channel_next_fn, convert_block, convert_words, quad_bits, quad_value,
};
use cpu::*;
use generic::*;
pub use generic::{GENERIC_FILL, GENERIC_VALUES};
use generic_params::*;
use strip::*;
use template::*;
pub use template::{TemplateError, fill};
pub use tiled::TILE_BATCH;
use tiled::*;
pub use variants::all_variants;

/// The prelude every kernel starts with: bindings, parameters, packing helpers.
pub const PRELUDE_WGSL: &str = include_str!("../../shaders/prelude.wgsl");
/// Template of the generic kernel (entry point `generic`).
pub const GENERIC_WGSL: &str = include_str!("../../shaders/generic.wgsl");
/// Template of the tiled kernel (entry point `tiled`).
pub const TILED_WGSL: &str = include_str!("../../shaders/tiled.wgsl");
/// Template of the register micro-tile kernel (entry point `micro`).
pub const MICRO_WGSL: &str = include_str!("../../shaders/cpu/micro.wgsl");
const INDEX_U32_WGSL: &str = include_str!("../../shaders/index_u32.wgsl");
const INDEX_U64_WGSL: &str = include_str!("../../shaders/index_u64.wgsl");
const INDEX_PAIR_WGSL: &str = include_str!("../../shaders/index_pair.wgsl");
const ACCESS_WGSL: &str = include_str!("../../shaders/fragments/access.wgsl");
const ACCESS_TRACE_WGSL: &str = include_str!("../../shaders/fragments/access_trace.wgsl");
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

            #[allow(dead_code)]
            fn decls() -> Vec<(&'static str, usize)> {
                Self::ALL.iter().map(|w| (w.wgsl_name(), *w as usize)).collect()
            }
        }
    };
}

// After the macro, which they use.
mod copy;
mod cpu;
pub use copy::{CopyWord, VEC4_COPY_WGSL, vec4_copy_source};

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
        /// Row blocks per band of the micro kernel's traversal (`TILES_R` for one band).
        Band = "BAND",
    }
}

/// The WGSL storage type of one access to a buffer: 8/16-bit data lives packed in `u32`
/// words; 8 and 16-byte units are vectors of `u32`, or with 64-bit accesses of `u64`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Storage {
    /// `u32`: a word (packed 8/16-bit data, 4-byte units).
    U32,
    /// `vec2<u32>`: 8 bytes.
    Vec2U32,
    /// `u64`: 8 bytes as one 64-bit component.
    U64,
    /// `vec4<u32>`: 16 bytes.
    Vec4U32,
    /// `vec2<u64>`: 16 bytes as two 64-bit components.
    Vec2U64,
}

impl Storage {
    /// The storage of one `unit`-byte access, with 64-bit components or not (see
    /// `CpuChoices::access64`).
    pub fn of(unit: u32, access64: bool) -> Storage {
        match (unit, access64) {
            (8, false) => Storage::Vec2U32,
            (8, true) => Storage::U64,
            (16, false) => Storage::Vec4U32,
            (16, true) => Storage::Vec2U64,
            _ => Storage::U32,
        }
    }

    /// The WGSL type.
    pub fn wgsl(self) -> &'static str {
        match self {
            Storage::U32 => "u32",
            Storage::Vec2U32 => "vec2<u32>",
            Storage::U64 => "u64",
            Storage::Vec4U32 => "vec4<u32>",
            Storage::Vec2U64 => "vec2<u64>",
        }
    }

    /// Bytes of one access.
    pub fn bytes(self) -> u32 {
        match self {
            Storage::U32 => 4,
            Storage::Vec2U32 | Storage::U64 => 8,
            Storage::Vec4U32 | Storage::Vec2U64 => 16,
        }
    }
}

/// The WGSL storage type of one movement unit ([`Storage::of`]).
pub fn store_type(unit: u32, access64: bool) -> &'static str {
    Storage::of(unit, access64).wgsl()
}

/// A kernel's pipeline constant: its WGSL name, written here once for the generators that
/// declare and read it and for the host that sets it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Constant {
    /// A specialised generic kernel's extent of walked dim `i`.
    Dim(usize),
    /// Its stride of walked dim `i`.
    Stride(usize),
    /// A specialised micro kernel's parameter word `i` (`shape_words`).
    ShapeWord(usize),
    /// The micro kernel walks in bands (`BANDED`).
    Banded,
}

impl Constant {
    /// The name of the WGSL `override`.
    pub fn name(self) -> String {
        match self {
            Constant::Dim(i) => format!("D{i}"),
            Constant::Stride(i) => format!("S{i}"),
            Constant::ShapeWord(i) => format!("P{i}"),
            Constant::Banded => "BANDED".into(),
        }
    }
}

/// The prelude, filled for one kernel: its storage type, parameter block size (in `vec4`s),
/// named words, packing and access functions (`invocations`: per workgroup, the kernel's
/// `WORKGROUP` and trace mode's).
fn prelude(
    store: Storage,
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
struct Access {
    src: Storage,
    dst: Storage,
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
                ("STORE", store.wgsl()),
                ("DST_STORE", dst_store.wgsl()),
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
                    ("STORE", store.wgsl()),
                    ("DST_STORE", dst_store.wgsl()),
                    ("SRC_UNIT", src_unit),
                    ("HEADER", &format!("{}u", model::HEADER)),
                    ("SLOTS", &format!("{}u", model::SLOTS)),
                    ("RECORD_WORDS", &format!("{}u", model::RECORD_WORDS)),
                    ("INVOCATIONS", &format!("{invocations}u")),
                    ("UNIT_BYTES", &format!("{}u", store.bytes())),
                    ("DST_UNIT_BYTES", &format!("{}u", dst_store.bytes())),
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
            ("STORE", store.wgsl()),
            ("DST_STORE", dst_store.wgsl()),
            ("PARAM_WORDS", &consts(words)),
            ("WORKGROUP", &format!("{invocations}u")),
            ("PACK", &format!("{pack}u")),
            ("ACCESS", &access),
        ],
    )
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

/// The WGSL source of a variant, shipped or traced: its family's fragments put together,
/// without what the variant does not use (`shake`).
pub fn build(v: &Variant, build: Build) -> Result<String, TemplateError> {
    let source = match v {
        // The CPU family's runs replace the items a workgroup apart.
        Variant::Generic(g) => match g.runs {
            true => generic_source(g, build, &runs_items_fn(g)?),
            false => generic_source(g, build, GENERIC_SPACED_WGSL),
        },
        Variant::Tiled(t) => match t.strip {
            Some(s) => strip_source(t, s, build),
            None => tiled_source(t, build),
        },
        Variant::Micro(m) => micro_source(m, build),
    }?;
    Ok(shake::shake(&source))
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

/// Values of the pipeline constants of a plan: a specialised generic plan's `D{i}` and
/// `S{i}`, the dims its items walk and their strides on the side they decode
/// ([`Plan::walk`]: output dims and source strides, or for a scatter the reverse; over
/// boxes of a walk in tiles, a box's); a micro
/// plan's `BANDED` where it has bands, and specialised, its shape's words `P{i}`
/// (`shaders::micro::shape_words`, from its one dispatch's parameter block). Empty for
/// other plans.
pub fn constants(plan: &Plan) -> Vec<(String, f64)> {
    if plan.kernel == Kernel::Micro {
        return micro_constants(plan);
    }
    if !plan.specialized {
        return Vec::new();
    }
    // Boxes compile only where each dispatch walks the same dims (`plan::specialize`).
    debug_assert!(
        !plan.boxed() || plan.plain_boxes || plan.cpu.walk_tiles.is_some(),
        "{plan}"
    );
    // Over boxes of a walk in tiles, every box walks the same dims as the first.
    debug_assert!(
        plan.cpu.walk_tiles.is_none()
            || plan.chunks.iter().all(|c| {
                plan.walk_tile_dims_of(&c.extents())
                    .map(|w| w.iter().map(|d| d[0]).collect())
                    == Some(plan.walk().0)
            }),
        "{plan}"
    );
    let (dims, strides) = plan.walk();
    let dims = dims
        .into_iter()
        .enumerate()
        .map(|(i, d)| (Constant::Dim(i).name(), d as f64));
    // A view's negative strides wrap to 32 bits, as the u32 index math they are for does.
    let strides = strides
        .into_iter()
        .enumerate()
        .map(|(i, s)| (Constant::Stride(i).name(), s as u32 as f64));
    dims.chain(strides).collect()
}

/// The names of a variant's shape constants, which a specialised plan's pipeline sets
/// (see [`constants`]); empty for other variants.
pub fn constant_names(v: &Variant) -> Vec<String> {
    match v {
        Variant::Generic(g) if g.specialized => (0..g.rank)
            .flat_map(|d| [Constant::Dim(d).name(), Constant::Stride(d).name()])
            .collect(),
        Variant::Micro(m) if m.specialized => shape_words(m.rank.saturating_sub(2), m.padded)
            .into_iter()
            .map(|i| Constant::ShapeWord(i).name())
            .collect(),
        _ => Vec::new(),
    }
}

/// The parameter block of one dispatch (a uniform buffer of `u32` words, padded to whole
/// `vec4`s) for a plan that runs a shader; empty otherwise. The layout is the one the
/// kernel's generated constants name. Offsets are wrapping: relative to a binding window
/// they may be "negative" until added to a position, and 32-bit kernels only ever see the
/// low word, which is exact.
pub fn params(plan: &Plan, chunk: &Chunk) -> Vec<u32> {
    let mut words = match plan.variant() {
        Some(Variant::Generic(g)) => generic_params(plan, chunk, &g),
        Some(Variant::Tiled(TiledVariant { strip: Some(s), .. })) => strip_params(plan, chunk, s),
        Some(Variant::Tiled(_)) => tile_params(plan, chunk),
        Some(Variant::Micro(_)) => micro_params(plan, chunk),
        None => Vec::new(),
    };
    words.resize(words.len().next_multiple_of(4), 0);
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
                .find(|v| v.kernel() == kernel)
                .unwrap();
            source(&v).unwrap()
        };
        let (tiled, micro) = (first(Kernel::Tiled), first(Kernel::Micro));
        for word in TileWord::ALL {
            let used = |read| format!("{read}({})", word.wgsl_name());
            assert!(
                tiled.contains(&used("param"))
                    || micro.contains(&used("param"))
                    || micro.contains(&used("shape")),
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
