//! [`Variant`]: everything that changes a generated shader's text, one value per pipeline,
//! typed per kernel family so that a combination no generator takes cannot be written (a
//! block is a micro kernel's, runs and reversed units a generic kernel's, a strided output
//! a padded one's).

use crate::convert::Dtype;
use crate::plan::{Block, Strip};
use crate::{IndexMath, Kernel};

/// Identifies one generated shader: the kernel family and what changes its WGSL text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Variant {
    /// The generic kernel (gathers).
    Generic(GenericVariant),
    /// The tiled kernel (workgroup-memory tiles).
    Tiled(TiledVariant),
    /// The micro kernel (register blocks).
    Micro(MicroVariant),
}

/// A generic kernel's shader: one gather per output unit (or run of units).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GenericVariant {
    /// Rank of the simplified tensor (or lowered view).
    pub rank: usize,
    /// Movement size in bytes.
    pub unit: u32,
    /// Index width.
    pub index: IndexMath,
    /// How the output is addressed.
    pub layout: GenericLayout,
    /// Dims and strides are pipeline constants rather than uniforms: the compiler turns
    /// divisions by them into multiplies and shifts.
    pub specialized: bool,
    /// Each invocation moves a run of consecutive output units (see `Plan::runs`).
    pub runs: bool,
    /// How a SIMD group's lanes and their runs' steps lie.
    pub lanes: RunLanes,
    /// Storage is accessed as 64-bit components (see `Plan::access64`).
    pub access64: bool,
    /// Bytes of the elements each source unit holds in reverse order, 0 for none (see
    /// `ViewLayout::reversed`).
    pub reverse: u32,
    /// Runs write their units 16 bytes at a time (see `Plan::wide_stores`).
    pub wide_stores: bool,
    /// Runs walk the source and scatter (see `Plan::scatter`).
    pub scatter: bool,
    /// Elements converted on the way (see `Plan::conversion`).
    pub convert: Option<ConvertKey>,
    /// A conversion moves 4 consecutive elements per item (see `Plan::quads`).
    pub quads: bool,
}

/// How the lanes of a SIMD group of the generic kernel's runs (CPU devices) and their runs'
/// steps lie.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RunLanes {
    /// Each invocation moves a run of its own: the lanes' accesses a run apart.
    Own,
    /// Lane-major (`Plan::lane_major_runs`): the lanes move neighbouring units, and the
    /// group moves on along the row at each step.
    LaneMajor,
    /// Stacked (`Plan::stacked_runs`): the lanes move neighbouring units of a row, and
    /// each step moves down to the next of a stack of rows.
    Stacked,
}

/// What of a conversion changes a shader's text: the two types and whether an affine runs
/// (its values are uniforms).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ConvertKey {
    /// The source type.
    pub from: Dtype,
    /// The destination type.
    pub to: Dtype,
    /// `y = x * scale[c] + bias[c]` runs.
    pub affine: bool,
}

/// How a generic kernel addresses its output.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GenericLayout {
    /// Contiguous, over the whole tensor.
    Plain,
    /// Boxes of the tensor over binding windows, or unpacked units through a view's
    /// destination strides.
    Boxed,
    /// A walk in tiles (CPU devices' runs, see `Plan::walk_tiles`): each box (the whole
    /// tensor, or one over binding windows) walked over its own tiles' dims, decoding both
    /// offsets.
    Walk,
    /// A view's mode: positions outside its bounds read a fill value.
    Padded,
    /// [`GenericLayout::Padded`], written through the view's destination strides (packed
    /// words whole).
    PaddedStrided,
}

/// The tiled kernel's shader: workgroup-memory tiles, 32-bit index math.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TiledVariant {
    /// Rank of the simplified tensor.
    pub rank: usize,
    /// Movement size in bytes.
    pub unit: u32,
    /// A conversion between interleaved and planar layouts of a short dim (colour
    /// channels), in strips instead of square tiles (see `strips::tiled_strip`).
    pub strip: Option<TiledStrip>,
}

/// The tiled kernel's strips: which side is the short dim, and the conversion.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TiledStrip {
    /// [`Strip::Cols`]: the source interleaved; [`Strip::Rows`]: the destination.
    pub strip: Strip,
    /// The conversion.
    pub convert: BlockConvert,
}

/// The micro kernel's shader: register blocks, 32-bit index math.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MicroVariant {
    /// Rank of the simplified tensor (or lowered view).
    pub rank: usize,
    /// Movement size in bytes.
    pub unit: u32,
    /// The block each invocation moves.
    pub block: Block,
    /// Rows of a block outside a view's bounds take the fill value.
    pub padded: bool,
    /// Storage is accessed as 64-bit components (see `Plan::access64`).
    pub access64: bool,
    /// Elements converted on the way, and where the affine's channel index comes from.
    pub convert: Option<BlockConvert>,
    /// The shape's words are pipeline constants (see `Plan::specialized`).
    pub specialized: bool,
}

/// A conversion on a block of a tiled or micro kernel: the types, and which of the block's
/// indices names an element's channel (none: one scale and bias for all, or no affine).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BlockConvert {
    /// The two types and whether an affine runs.
    pub key: ConvertKey,
    /// Where the channel comes from (see `Plan::channels`).
    pub channel: Option<ChannelAt>,
}

impl Variant {
    /// The kernel family.
    pub fn kernel(&self) -> Kernel {
        match self {
            Variant::Generic(_) => Kernel::Generic,
            Variant::Tiled(_) => Kernel::Tiled,
            Variant::Micro(_) => Kernel::Micro,
        }
    }

    /// Rank of the simplified tensor.
    pub fn rank(&self) -> usize {
        match self {
            Variant::Generic(g) => g.rank,
            Variant::Tiled(t) => t.rank,
            Variant::Micro(m) => m.rank,
        }
    }

    /// Movement size in bytes.
    pub fn unit(&self) -> u32 {
        match self {
            Variant::Generic(g) => g.unit,
            Variant::Tiled(t) => t.unit,
            Variant::Micro(m) => m.unit,
        }
    }

    /// Index width (32-bit for the tiled and micro kernels).
    pub fn index(&self) -> IndexMath {
        match self {
            Variant::Generic(g) => g.index,
            _ => IndexMath::U32,
        }
    }

    /// Whether storage is accessed as 64-bit components.
    pub fn access64(&self) -> bool {
        match self {
            Variant::Generic(g) => g.access64,
            Variant::Tiled(_) => false,
            Variant::Micro(m) => m.access64,
        }
    }

    /// Whether positions outside a view's bounds read the fill value.
    pub fn padded(&self) -> bool {
        match self {
            Variant::Generic(g) => g.layout.padded(),
            Variant::Tiled(_) => false,
            Variant::Micro(m) => m.padded,
        }
    }

    /// A generic variant's output in boxes (false for the other families, which have no
    /// such choice; so for the accessors below).
    pub fn boxed(&self) -> bool {
        self.generic().is_some_and(|g| g.layout.boxed())
    }

    /// A generic variant's runs in a walk of tiles ([`Plan::walk_tiles`]).
    pub fn walks(&self) -> bool {
        self.generic()
            .is_some_and(|g| g.layout == GenericLayout::Walk)
    }

    /// A generic variant's padded output through destination strides.
    pub fn strided(&self) -> bool {
        self.generic().is_some_and(|g| g.layout.strided())
    }

    /// A generic variant's dims and strides, or a micro variant's shape words, as pipeline
    /// constants.
    pub fn specialized(&self) -> bool {
        match self {
            Variant::Generic(g) => g.specialized,
            Variant::Micro(m) => m.specialized,
            Variant::Tiled(_) => false,
        }
    }

    /// A generic variant's runs of output units.
    pub fn runs(&self) -> bool {
        self.generic().is_some_and(|g| g.runs)
    }

    /// A generic variant's reversed elements' bytes (0: none).
    pub fn reverse(&self) -> u32 {
        self.generic().map_or(0, |g| g.reverse)
    }

    /// A generic variant's lane-major runs, stacked ones too (whose Display names them
    /// only "stacked").
    pub fn lane_major(&self) -> bool {
        self.generic().is_some_and(|g| g.lanes != RunLanes::Own)
    }

    /// A generic variant's stacked runs.
    pub fn stacked(&self) -> bool {
        self.generic().is_some_and(|g| g.lanes == RunLanes::Stacked)
    }

    /// A generic variant's runs that scatter.
    pub fn scatter(&self) -> bool {
        self.generic().is_some_and(|g| g.scatter)
    }

    /// A generic variant's 16-byte stores of runs.
    pub fn wide_stores(&self) -> bool {
        self.generic().is_some_and(|g| g.wide_stores)
    }

    /// Whether the shader is the CPU family's (`plan/cpu`): a micro block, a generic
    /// kernel's runs (scattered, walked in tiles, lane-major, stacked, with wide stores),
    /// or 64-bit accesses. No GPU plan picks one; the GPU path is the rest.
    pub fn cpu_family(&self) -> bool {
        match self {
            Variant::Micro(_) => true,
            Variant::Tiled(_) => false,
            Variant::Generic(g) => {
                g.runs
                    || g.scatter
                    || g.wide_stores
                    || g.access64
                    || g.layout == GenericLayout::Walk
            }
        }
    }

    /// The same shader for a tensor of `rank` dims.
    pub fn with_rank(self, rank: usize) -> Variant {
        match self {
            Variant::Generic(g) => Variant::Generic(GenericVariant { rank, ..g }),
            Variant::Tiled(t) => Variant::Tiled(TiledVariant { rank, ..t }),
            Variant::Micro(m) => Variant::Micro(MicroVariant { rank, ..m }),
        }
    }

    /// The generic kernel's variant, if it is one.
    pub fn generic(&self) -> Option<&GenericVariant> {
        match self {
            Variant::Generic(g) => Some(g),
            _ => None,
        }
    }

    /// The micro kernel's block, if it is one.
    pub fn block(&self) -> Option<Block> {
        match self {
            Variant::Micro(m) => Some(m.block),
            _ => None,
        }
    }
}

impl GenericLayout {
    /// Boxes over windows, or unpacked units through destination strides.
    pub fn boxed(self) -> bool {
        self == GenericLayout::Boxed
    }

    /// A view's mode, with a fill value outside its bounds.
    pub fn padded(self) -> bool {
        matches!(self, GenericLayout::Padded | GenericLayout::PaddedStrided)
    }

    /// Written through destination strides in the view's mode.
    pub fn strided(self) -> bool {
        self == GenericLayout::PaddedStrided
    }
}

impl std::fmt::Display for Variant {
    /// `generic rank 3 unit 4 u32 boxed specialized`, as in pipeline labels.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} rank {} unit {} {}",
            self.kernel().name(),
            self.rank(),
            self.unit(),
            self.index().name()
        )?;
        match self {
            Variant::Generic(g) => {
                let flags = [
                    (g.layout.boxed(), " boxed"),
                    (g.layout == GenericLayout::Walk, " walk tiles"),
                    (g.layout.padded(), " padded"),
                    (g.layout.strided(), " strided"),
                    (g.specialized, " specialized"),
                    (g.runs, " runs"),
                    (g.lanes == RunLanes::LaneMajor, " lane-major"),
                    (g.lanes == RunLanes::Stacked, " stacked"),
                    (g.scatter, " scatter"),
                    (g.access64, " access64"),
                ];
                for (_, flag) in flags.iter().filter(|f| f.0) {
                    write!(f, "{flag}")?;
                }
                if g.reverse > 0 {
                    write!(f, " reversing {} B elements", g.reverse)?;
                }
                if g.wide_stores {
                    write!(f, " wide stores")?;
                }
                if let Some(c) = g.convert {
                    write!(f, " convert {} -> {}", c.from.name(), c.to.name())?;
                    if c.affine {
                        write!(f, " affine")?;
                    }
                }
                if g.quads {
                    write!(f, " quads")?;
                }
            }
            Variant::Tiled(t) => {
                if let Some(s) = t.strip {
                    let c = s.convert;
                    write!(
                        f,
                        " strip {:?} convert {} -> {}",
                        s.strip,
                        c.key.from.name(),
                        c.key.to.name()
                    )?;
                    if c.key.affine {
                        write!(f, " affine")?;
                    }
                    if let Some(at) = c.channel {
                        write!(f, " channels on {at:?}")?;
                    }
                }
            }
            Variant::Micro(m) => {
                if m.padded {
                    write!(f, " padded")?;
                }
                let b = m.block;
                let strip = match (b.flat, b.strip.is_some()) {
                    (true, _) if b.flat_pairs => " flat strip (planes in pairs)",
                    (true, _) => " flat strip",
                    (false, true) => " strip",
                    (false, false) => "",
                };
                write!(
                    f,
                    " block {}x{}{strip} by {} B, {} per run",
                    b.rows(),
                    b.cols(),
                    b.access_bytes,
                    b.run
                )?;
                if b.lane_major {
                    write!(f, " lane-major")?;
                }
                if b.column_runs {
                    write!(f, " column runs")?;
                }
                if b.batch_before_columns {
                    write!(f, " batch first")?;
                }
                if m.specialized {
                    write!(f, " specialized")?;
                }
                if m.access64 {
                    write!(f, " access64")?;
                }
                if let Some(c) = m.convert {
                    write!(f, " convert {} -> {}", c.key.from.name(), c.key.to.name())?;
                    if c.key.affine {
                        write!(f, " affine")?;
                    }
                    if let Some(at) = c.channel {
                        write!(f, " channels on {at:?}")?;
                    }
                }
            }
        }
        Ok(())
    }
}

/// The block index an element's channel is read from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ChannelAt {
    /// The row index (the input dim that becomes the output's innermost).
    Rows,
    /// The column index (the input's innermost dim).
    Cols,
    /// The batch index (the other dims, in their order).
    Batch,
}
