//! Element types and the numbers of a conversion: what a move that also converts (u8 images
//! to normalised f32 planes, f32 <-> f16 / bf16) must produce, element by element. This is
//! the reference the kernels' conversions (`shaders/convert.wgsl`) are checked against, bit
//! for bit; obviously correct rather than fast: every source value is exact in an `f64`.
//!
//! - Casts between float types, and from integers to floats, are numpy's `astype`: round to
//!   nearest even, overflow to infinity, NaN kept (quiet), signed zeros and subnormals kept.
//! - bf16 rounds to nearest even from the `f32` value (as `torch` and `half` do).
//! - To `u8`: `np.clip(np.rint(y), 0, 255)` (ties to even); NaN becomes 0.
//! - With an affine `y = x * scale + bias`, the product and sum are computed in `f64` here
//!   and in `f32` on the GPU: they agree within `4 * 2^-24 * (|x * scale| + |bias|)` plus one
//!   unit in the last place of the destination type, plus `2^-126`: WGSL lets a device flush
//!   subnormal `f32` results to zero (SwiftShader does). Without an affine no float
//!   arithmetic runs, so subnormals survive everywhere.

use half::{bf16, f16};

/// An element type a conversion reads or writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Dtype {
    /// Unsigned 8-bit integer.
    U8,
    /// Signed 8-bit integer.
    I8,
    /// Unsigned 16-bit integer.
    U16,
    /// Signed 16-bit integer.
    I16,
    /// Unsigned 32-bit integer.
    U32,
    /// Signed 32-bit integer.
    I32,
    /// IEEE binary16.
    F16,
    /// bfloat16: the top half of an `f32`.
    BF16,
    /// IEEE binary32.
    F32,
}

impl Dtype {
    /// Every type, sources of conversions all.
    pub const ALL: [Dtype; 9] = [
        Dtype::U8,
        Dtype::I8,
        Dtype::U16,
        Dtype::I16,
        Dtype::U32,
        Dtype::I32,
        Dtype::F16,
        Dtype::BF16,
        Dtype::F32,
    ];

    /// The types a conversion writes: floats for models, `u8` for images.
    pub const DESTINATIONS: [Dtype; 4] = [Dtype::F32, Dtype::F16, Dtype::BF16, Dtype::U8];

    /// Bytes per element.
    pub const fn size(self) -> usize {
        match self {
            Dtype::U8 | Dtype::I8 => 1,
            Dtype::U16 | Dtype::I16 | Dtype::F16 | Dtype::BF16 => 2,
            Dtype::U32 | Dtype::I32 | Dtype::F32 => 4,
        }
    }

    /// numpy's name (`uint8`, `float16`, ...; `bfloat16`, which numpy lacks, as `ml_dtypes`
    /// and torch name it).
    pub const fn name(self) -> &'static str {
        match self {
            Dtype::U8 => "uint8",
            Dtype::I8 => "int8",
            Dtype::U16 => "uint16",
            Dtype::I16 => "int16",
            Dtype::U32 => "uint32",
            Dtype::I32 => "int32",
            Dtype::F16 => "float16",
            Dtype::BF16 => "bfloat16",
            Dtype::F32 => "float32",
        }
    }

    /// The type of a numpy name or a short one (`u8`, `f16`, `bf16`, ...).
    pub fn parse(name: &str) -> Option<Dtype> {
        Dtype::ALL.into_iter().find(|d| {
            d.name() == name
                || match d {
                    Dtype::U8 => name == "u8",
                    Dtype::I8 => name == "i8",
                    Dtype::U16 => name == "u16",
                    Dtype::I16 => name == "i16",
                    Dtype::U32 => name == "u32",
                    Dtype::I32 => name == "i32",
                    Dtype::F16 => name == "f16",
                    Dtype::BF16 => name == "bf16",
                    Dtype::F32 => name == "f32",
                }
        })
    }

    /// A conversion may write this type.
    pub fn is_destination(self) -> bool {
        Dtype::DESTINATIONS.contains(&self)
    }

    /// The exact value of an element whose bits are the low [`Dtype::size`] bytes of `bits`
    /// (higher bits ignored).
    pub fn value(self, bits: u32) -> f64 {
        match self {
            Dtype::U8 => (bits as u8).into(),
            Dtype::I8 => (bits as u8 as i8).into(),
            Dtype::U16 => (bits as u16).into(),
            Dtype::I16 => (bits as u16 as i16).into(),
            Dtype::U32 => bits.into(),
            Dtype::I32 => (bits as i32).into(),
            Dtype::F16 => f16::from_bits(bits as u16).to_f64(),
            Dtype::BF16 => bf16::from_bits(bits as u16).to_f64(),
            Dtype::F32 => f32::from_bits(bits).into(),
        }
    }

    /// The bits of `value` in this type (a destination type; see the module's rules).
    /// Panics for a type that is not a destination.
    pub fn encode(self, value: f64) -> u32 {
        match self {
            // Rust's f64 -> f32 cast rounds to nearest even, keeps NaN, infinities, zeros.
            Dtype::F32 => (value as f32).to_bits(),
            // Through f32, exact for every source value that f16 does not overflow: half
            // 2.7.1's `from_f64` misrounds (1 + 0x1001 * 2^-23 gives 0x3c00; numpy and
            // round-to-nearest-even give 0x3c01), its `from_f32` agrees with numpy.
            Dtype::F16 => f16::from_f32(value as f32).to_bits().into(),
            Dtype::BF16 => bf16::from_f32(value as f32).to_bits().into(),
            Dtype::U8 if value.is_nan() => 0,
            Dtype::U8 => value.round_ties_even().clamp(0.0, 255.0) as u32,
            other => panic!("{} is not a conversion's destination", other.name()),
        }
    }
}

/// One element converted: the bits of `from`-typed `bits` as a `to`-typed element, with
/// `y = x * scale + bias` when an affine is given (`scale` and `bias` are the `f32` values
/// the GPU multiplies and adds by).
pub fn convert(from: Dtype, to: Dtype, bits: u32, affine: Option<(f32, f32)>) -> u32 {
    let x = from.value(bits);
    match affine {
        None => to.encode(x),
        Some((scale, bias)) => to.encode(x * f64::from(scale) + f64::from(bias)),
    }
}
