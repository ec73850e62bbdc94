//! [`Variant`]: everything that changes a generated shader's text, one value per pipeline.

use super::*;

/// Identifies one generated shader: everything that changes the WGSL text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Variant {
    /// The kernel (generic, tiled or micro).
    pub kernel: Kernel,
    /// Rank of the simplified tensor.
    pub rank: usize,
    /// Movement size in bytes.
    pub unit: u32,
    /// Index width.
    pub index: IndexMath,
    /// The work is split into boxes over binding windows, or written through destination
    /// strides (generic kernel only).
    pub boxed: bool,
    /// The view mode: positions outside a view's bounds read a fill value (the micro
    /// kernel's, whole block rows), and a packed output may be written through destination
    /// strides (generic kernel).
    pub padded: bool,
    /// With `padded`, the output is written through the view's destination strides.
    pub strided: bool,
    /// Dims and strides are pipeline constants rather than uniforms (generic kernel only):
    /// the compiler turns divisions by them into multiplies and shifts.
    pub specialized: bool,
    /// The micro kernel's block (micro kernel only).
    pub block: Option<Block>,
    /// Each invocation moves a run of consecutive output units (generic kernel only; see
    /// [`Plan::runs`]).
    pub runs: bool,
    /// Storage is accessed as 64-bit components (see [`Plan::access64`]).
    pub access64: bool,
    /// Bytes of the elements each source unit holds in reverse order, 0 for none (generic
    /// kernel only; see [`ViewLayout::reversed`]).
    pub reverse: u32,
    /// Runs write their units 16 bytes at a time (see [`Plan::wide_stores`]).
    pub wide_stores: bool,
}

impl std::fmt::Display for Variant {
    /// `generic rank 3 unit 4 u32 boxed specialized`, as in pipeline labels.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} rank {} unit {} {}",
            self.kernel.name(),
            self.rank,
            self.unit,
            self.index.name()
        )?;
        if self.boxed {
            write!(f, " boxed")?;
        }
        if self.padded {
            write!(f, " padded")?;
        }
        if self.strided {
            write!(f, " strided")?;
        }
        if self.specialized {
            write!(f, " specialized")?;
        }
        if let Some(b) = self.block {
            let strip = if b.strip.is_some() { " strip" } else { "" };
            write!(
                f,
                " block {}x{}{strip} by {} B, {} per run",
                b.rows(),
                b.cols(),
                b.access_bytes,
                b.run
            )?;
        }
        if self.runs {
            write!(f, " runs")?;
        }
        if self.access64 {
            write!(f, " access64")?;
        }
        if self.reverse > 0 {
            write!(f, " reversing {} B elements", self.reverse)?;
        }
        if self.wide_stores {
            write!(f, " wide stores")?;
        }
        Ok(())
    }
}
