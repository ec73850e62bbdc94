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
//!   unit in the last place of the destination type, plus `2^-126 * (1 + |scale|)`: WGSL
//!   lets a device flush subnormal `f32` inputs and results to zero (SwiftShader does; a
//!   subnormal `x` times a scale above 1 can be a normal number the device gives as 0).
//!   Without an affine no float arithmetic runs, so subnormals survive everywhere.

use half::{bf16, f16};

use crate::PermuteError;

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

#[doc(hidden)]
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

#[doc(hidden)]
/// Whether `got` (bits of a `to` element) is within the documented bound of `x * scale +
/// bias` (see the module docs): the GPU computes the affine in `f32`, and a device may fuse
/// the multiply and add or flush subnormal inputs and results, so only a bound is exact.
pub fn within_bound(to: Dtype, x: f64, scale: f32, bias: f32, got: u32) -> bool {
    let exact = x * f64::from(scale) + f64::from(bias);
    if to.encode(exact) == got {
        return true;
    }
    let (want, got) = (to.value(to.encode(exact)), to.value(got));
    if exact.is_nan() {
        // NaN in, NaN out (0 for u8, equal above).
        return want.is_nan() && got.is_nan();
    }
    if !want.is_finite() || !got.is_finite() {
        // Near overflow the rounding decides between the largest value and infinity.
        return want.is_nan() == got.is_nan() && want.signum() == got.signum();
    }
    let ulp = match to {
        Dtype::F16 => float_ulp(exact, 10, -14),
        Dtype::BF16 => float_ulp(exact, 7, -126),
        Dtype::F32 => float_ulp(exact, 23, -126),
        _ => 1.0,
    };
    let bound = 4.0 * (-24f64).exp2() * ((x * f64::from(scale)).abs() + f64::from(bias).abs())
        + ulp
        + (-126f64).exp2() * (1.0 + f64::from(scale).abs());
    (got - want).abs() <= bound
}

/// One unit in the last place at `value` of a float type with `mantissa` bits and smallest
/// normal exponent `min_exp`.
fn float_ulp(value: f64, mantissa: i32, min_exp: i32) -> f64 {
    (value.abs().log2().floor().max(f64::from(min_exp)) - f64::from(mantissa)).exp2()
}

/// Most channels a per-channel affine takes (its values travel in the kernels' uniforms).
pub const MAX_CHANNELS: usize = 64;

/// `y = x * scale[c] + bias[c]`, computed in `f32`, where `c` is the index along output
/// axis `axis`; one value applies to every channel. Equal when the values' bits are.
#[derive(Clone, Debug)]
pub struct Affine {
    /// The output axis the values vary over.
    pub axis: usize,
    /// One scale per channel, or one for all.
    pub scale: Vec<f32>,
    /// One bias per channel, or one for all.
    pub bias: Vec<f32>,
}

impl PartialEq for Affine {
    fn eq(&self, other: &Affine) -> bool {
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        self.axis == other.axis
            && bits(&self.scale) == bits(&other.scale)
            && bits(&self.bias) == bits(&other.bias)
    }
}

impl Eq for Affine {}

/// What a move also does to each element: from one type to another, with an optional
/// per-channel affine (the normalisation of an image on its way into a model).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Conversion {
    from: Dtype,
    to: Dtype,
    affine: Option<Affine>,
}

fn invalid<T>(why: String) -> Result<T, PermuteError> {
    Err(PermuteError::InvalidConversion(why))
}

impl Conversion {
    /// `from` elements written as `to` elements (a destination type: f32, f16, bf16, u8).
    pub fn new(from: Dtype, to: Dtype) -> Result<Conversion, PermuteError> {
        if !to.is_destination() {
            return invalid(format!(
                "{} is not a destination type (f32, f16, bf16 or u8)",
                to.name()
            ));
        }
        Ok(Conversion {
            from,
            to,
            affine: None,
        })
    }

    /// With `y = x * scale[c] + bias[c]` over output axis `axis` (1 to [`MAX_CHANNELS`]
    /// values each, the same count; one value applies to every channel).
    pub fn with_affine(
        self,
        axis: usize,
        scale: &[f32],
        bias: &[f32],
    ) -> Result<Conversion, PermuteError> {
        if scale.len() != bias.len() || scale.is_empty() || scale.len() > MAX_CHANNELS {
            return invalid(format!(
                "{} scales and {} biases: give the same count, 1 to {MAX_CHANNELS}",
                scale.len(),
                bias.len()
            ));
        }
        if let Some(v) = scale.iter().chain(bias).find(|v| !v.is_finite()) {
            return invalid(format!("scale and bias must be finite, not {v}"));
        }
        Ok(Conversion {
            affine: Some(Affine {
                axis,
                scale: scale.to_vec(),
                bias: bias.to_vec(),
            }),
            ..self
        })
    }

    /// With torchvision's normalisation over output axis `axis`: `(x / 255 - mean) / std`
    /// for 8-bit unsigned sources, `(x - mean) / std` for others, as the affine with
    /// `scale = 1 / (255 * std)` (or `1 / std`) and `bias = -mean / std`, computed in `f64`
    /// and rounded to `f32`.
    pub fn normalized(
        self,
        axis: usize,
        mean: &[f32],
        std: &[f32],
    ) -> Result<Conversion, PermuteError> {
        if mean.len() != std.len() {
            return invalid(format!(
                "{} means and {} stds: give one of each per channel",
                mean.len(),
                std.len()
            ));
        }
        if let Some(s) = std.iter().find(|&&s| s == 0.0 || !s.is_finite()) {
            return invalid(format!("std must be finite and non-zero, not {s}"));
        }
        let range = if self.from == Dtype::U8 { 255.0 } else { 1.0 };
        let scale: Vec<f32> = std
            .iter()
            .map(|&s| (1.0 / (range * f64::from(s))) as f32)
            .collect();
        let bias: Vec<f32> = mean
            .iter()
            .zip(std)
            .map(|(&m, &s)| (-f64::from(m) / f64::from(s)) as f32)
            .collect();
        self.with_affine(axis, &scale, &bias)
    }

    /// The source type.
    pub fn from(&self) -> Dtype {
        self.from
    }

    /// The destination type.
    pub fn to(&self) -> Dtype {
        self.to
    }

    /// The affine, if any.
    pub fn affine(&self) -> Option<&Affine> {
        self.affine.as_ref()
    }

    /// Checks the conversion against an output of `out_shape`: the affine's axis exists and
    /// its channel count is the axis's length (or one), and consecutive channels are fewer
    /// than 2^32 elements apart (the kernels' 32-bit channel step; past one binding a
    /// window counts positions in the whole output).
    pub fn check(&self, out_shape: &[usize]) -> Result<(), PermuteError> {
        let Some(affine) = &self.affine else {
            return Ok(());
        };
        let Some(&len) = out_shape.get(affine.axis) else {
            return invalid(format!(
                "channel axis {} does not exist in an output of rank {}",
                affine.axis,
                out_shape.len()
            ));
        };
        if affine.scale.len() != 1 && affine.scale.len() != len {
            return invalid(format!(
                "{} channel values for output axis {} of length {len}",
                affine.scale.len(),
                affine.axis
            ));
        }
        let step = out_shape[affine.axis + 1..]
            .iter()
            .try_fold(1u64, |a, &d| a.checked_mul(d as u64));
        if affine.scale.len() > 1 && step.is_none_or(|s| s > u64::from(u32::MAX)) {
            return invalid(format!(
                "per-channel values over output axis {}, whose channels are 2^32 or more \
                 elements apart (one value for all, or an axis nearer the innermost)",
                affine.axis
            ));
        }
        Ok(())
    }

    /// The index of the first element of `got` (the GPU's output, destination type) that
    /// is not `moved` (the output in the source type) converted: bit for bit without an
    /// affine (NaN as NaN), within [`within_bound`] with one; `None` when all agree.
    pub fn first_mismatch(
        &self,
        out_shape: &[usize],
        moved: &[u8],
        got: &[u8],
    ) -> Result<Option<usize>, PermuteError> {
        let want = self.apply(out_shape, moved)?;
        let (from, to) = (self.from.size(), self.to.size());
        if want.len() != got.len() {
            return Ok(Some(got.len().min(want.len()) / to));
        }
        let bits = |b: &[u8]| {
            let mut word = [0u8; 4];
            word[..b.len()].copy_from_slice(b);
            u32::from_le_bytes(word)
        };
        let inner: usize = self
            .affine
            .as_ref()
            .map_or(1, |a| out_shape[a.axis + 1..].iter().product());
        Ok((0..got.len() / to).find(|&i| {
            let (g, w) = (bits(&got[i * to..][..to]), bits(&want[i * to..][..to]));
            match &self.affine {
                None => g != w && !(self.to.value(g).is_nan() && self.to.value(w).is_nan()),
                Some(a) => {
                    let c = match a.scale.len() {
                        1 => 0,
                        _ => i / inner.max(1) % out_shape[a.axis],
                    };
                    let x = self.from.value(bits(&moved[i * from..][..from]));
                    !within_bound(self.to, x, a.scale[c], a.bias[c], g)
                }
            }
        }))
    }

    /// The reference: `moved`, an output of `out_shape` in the source type (what the move
    /// alone gives), converted element by element into the destination type.
    pub fn apply(&self, out_shape: &[usize], moved: &[u8]) -> Result<Vec<u8>, PermuteError> {
        self.check(out_shape)?;
        let (from, to) = (self.from.size(), self.to.size());
        if !moved.len().is_multiple_of(from) {
            return Err(PermuteError::DataLength {
                need: moved.len().div_ceil(from),
                have: moved.len() / from,
            });
        }
        // Output elements per step of the channel axis, and its length.
        let (inner, channels) = match &self.affine {
            Some(a) => (out_shape[a.axis + 1..].iter().product(), out_shape[a.axis]),
            None => (1, 1),
        };
        let mut out = Vec::with_capacity(moved.len() / from * to);
        for (i, element) in moved.chunks(from).enumerate() {
            let mut word = [0u8; 4];
            word[..from].copy_from_slice(element);
            let affine = self.affine.as_ref().map(|a| {
                let c = if a.scale.len() == 1 {
                    0
                } else {
                    i / inner.max(1) % channels
                };
                (a.scale[c], a.bias[c])
            });
            let bits = convert(self.from, self.to, u32::from_le_bytes(word), affine);
            out.extend_from_slice(&bits.to_le_bytes()[..to]);
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_image_becomes_normalised_planes() {
        // A 1x2 RGB image, already moved to planes (C, H, W) = (3, 1, 2), still u8.
        let planes = [0u8, 255, 51, 102, 0, 255];
        let op = Conversion::new(Dtype::U8, Dtype::F32)
            .unwrap()
            .normalized(0, &[0.5, 0.2, 0.0], &[0.5, 0.2, 1.0])
            .unwrap();
        let out = op.apply(&[3, 1, 2], &planes).unwrap();
        let got: Vec<f32> = out
            .chunks(4)
            .map(|b| f32::from_le_bytes(b.try_into().unwrap()))
            .collect();
        let want = [-1.0f32, 1.0, 0.0, 1.0, 0.0, 1.0];
        for (g, w) in got.iter().zip(want) {
            assert!((g - w).abs() < 1e-6, "{got:?}");
        }
    }

    #[test]
    fn bad_conversions_are_refused_with_the_reason() {
        let f32_to = |to| Conversion::new(Dtype::F32, to);
        let why = |r: Result<Conversion, PermuteError>| match r {
            Err(PermuteError::InvalidConversion(why)) => why,
            other => panic!("{other:?}"),
        };
        assert!(why(f32_to(Dtype::I16)).contains("not a destination"));
        let c = f32_to(Dtype::F16).unwrap();
        assert!(why(c.clone().normalized(0, &[0.5], &[0.0])).contains("non-zero"));
        assert!(why(c.clone().normalized(0, &[0.5, 1.0], &[1.0])).contains("means"));
        assert!(why(c.clone().with_affine(0, &[1.0; 65], &[0.0; 65])).contains("1 to 64"));
        assert!(why(c.clone().with_affine(0, &[f32::NAN], &[0.0])).contains("finite"));
        let affine = c.with_affine(2, &[1.0, 2.0], &[0.0, 0.0]).unwrap();
        let check = |shape: &[usize]| match affine.check(shape) {
            Err(PermuteError::InvalidConversion(why)) => why,
            other => panic!("{other:?}"),
        };
        assert!(check(&[4, 4]).contains("does not exist"));
        assert!(check(&[4, 4, 3]).contains("2 channel values"));
        assert!(affine.check(&[4, 4, 2]).is_ok());
        // Channels 2^32 elements apart: refused, not truncated (one value for all is fine).
        let far = Conversion::new(Dtype::U8, Dtype::F32).unwrap();
        let far = far.with_affine(0, &[1.0, 2.0], &[0.0, 0.0]).unwrap();
        let why = match far.check(&[2, 1 << 16, 1 << 16]) {
            Err(PermuteError::InvalidConversion(why)) => why,
            other => panic!("{other:?}"),
        };
        assert!(why.contains("2^32"), "{why}");
        assert!(far.check(&[2, 1 << 16, (1 << 16) - 1]).is_ok());
        let one = Conversion::new(Dtype::U8, Dtype::F32).unwrap();
        let one = one.with_affine(0, &[2.0], &[1.0]).unwrap();
        assert!(one.check(&[2, 1 << 16, 1 << 16]).is_ok());
    }

    #[test]
    fn the_bound_takes_nan_and_exact_results() {
        let nan = f64::from(f32::from_bits(0x7fe1_b6e1));
        assert!(within_bound(Dtype::U8, nan, 255.0, 0.0, 0));
        assert!(!within_bound(Dtype::U8, nan, 255.0, 0.0, 1));
        assert!(within_bound(Dtype::F16, nan, 2.0, 1.0, 0x7e00));
        assert!(!within_bound(Dtype::F16, nan, 2.0, 1.0, 0x3c00));
        assert!(within_bound(Dtype::F32, 1.0, 3.0, 0.5, 3.5f32.to_bits()));
        assert!(!within_bound(Dtype::F32, 1.0, 3.0, 0.5, 3.6f32.to_bits()));
    }

    #[test]
    fn one_value_applies_to_every_channel() {
        let c = Conversion::new(Dtype::I16, Dtype::BF16)
            .unwrap()
            .with_affine(1, &[2.0], &[1.0])
            .unwrap();
        let moved: Vec<u8> = [1i16, -2, 3, 100]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let out = c.apply(&[2, 2], &moved).unwrap();
        let got: Vec<f32> = out
            .chunks(2)
            .map(|b| bf16::from_le_bytes(b.try_into().unwrap()).to_f32())
            .collect();
        assert_eq!(got, [3.0, -3.0, 7.0, 201.0]);
    }
}
