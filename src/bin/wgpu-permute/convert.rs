//! `--to` and the affine of `permute`: the conversion the file's elements go through.

use npyz::{TypeChar, TypeStr};
use wgpu_permute::convert::{Conversion, Dtype};

/// Converting the elements on the way (one pass on the GPU).
#[derive(clap::Args, Debug, Default)]
pub struct ConvertArgs {
    /// Convert the elements to this dtype (numpy names: float32, float16, uint8; or f32,
    /// f16, u8; bfloat16 too where no .npy is written): casts as numpy's astype, to uint8
    /// as clip(rint(y), 0, 255).
    #[arg(long, value_name = "DTYPE")]
    pub to: Option<String>,
    /// Normalise as torchvision does, one value per channel (or one for all):
    /// (x / 255 - mean) / std for uint8 sources, (x - mean) / std for others. Needs --std.
    #[arg(long, value_delimiter = ',', allow_hyphen_values = true)]
    pub mean: Vec<f32>,
    /// The std of --mean, as many values.
    #[arg(long, value_delimiter = ',', allow_hyphen_values = true)]
    pub std: Vec<f32>,
    /// y = x * scale + bias instead, one value per channel (or one for all); bias 0 if
    /// only --scale is given, scale 1 if only --bias.
    #[arg(long, value_delimiter = ',', allow_hyphen_values = true)]
    pub scale: Vec<f32>,
    /// The bias of --scale.
    #[arg(long, value_delimiter = ',', allow_hyphen_values = true)]
    pub bias: Vec<f32>,
    /// The output axis the per-channel values vary over: an index of the output's dims for
    /// `permute`, an axis name of the pattern's output for `rearrange`.
    #[arg(long, value_name = "AXIS")]
    pub channel_axis: Option<String>,
}

impl ConvertArgs {
    /// The conversion from a file of `dtype`, and the output file's dtype; `None` without
    /// `--to`. `axis` resolves `--channel-axis` to an axis of the operation's output.
    /// Refuses what cannot be done, in one line.
    pub fn conversion(
        &self,
        dtype: &TypeStr,
        axis: impl FnOnce(&str) -> Result<usize, String>,
    ) -> Result<Option<(Conversion, TypeStr)>, String> {
        if self.to.as_deref().and_then(Dtype::parse) == Some(Dtype::BF16) {
            return Err(
                "--to bfloat16: .npy has no bfloat16 type (the library converts to it)".into(),
            );
        }
        let Some(c) = self.conversion_from(|| source_type(dtype), axis)? else {
            return Ok(None);
        };
        let out = match c.to() {
            Dtype::F16 => "<f2",
            Dtype::U8 => "|u1",
            _ => "<f4",
        };
        let out: TypeStr = out.parse().map_err(|e| format!("{e}"))?;
        Ok(Some((c, out)))
    }

    /// The conversion from elements of the type `from` gives (asked for only with `--to`);
    /// `None` without `--to`. As [`ConvertArgs::conversion`], for `plan`, `shader` and
    /// `model`, whose `--dtype` names the source type.
    pub fn conversion_from(
        &self,
        from: impl FnOnce() -> Result<Dtype, String>,
        axis: impl FnOnce(&str) -> Result<usize, String>,
    ) -> Result<Option<Conversion>, String> {
        let affine = !(self.mean.is_empty()
            && self.std.is_empty()
            && self.scale.is_empty()
            && self.bias.is_empty());
        let Some(to) = &self.to else {
            if affine || self.channel_axis.is_some() {
                return Err("--mean, --std, --scale, --bias and --channel-axis need --to".into());
            }
            return Ok(None);
        };
        let from = from()?;
        let to = match Dtype::parse(to) {
            Some(d) if d.is_destination() => d,
            _ => {
                return Err(format!(
                    "--to {to}: convert to float32, float16, bfloat16 or uint8"
                ));
            }
        };
        let mut c = Conversion::new(from, to).map_err(|e| e.to_string())?;
        let values = self
            .mean
            .len()
            .max(self.std.len())
            .max(self.scale.len())
            .max(self.bias.len());
        let axis = match &self.channel_axis {
            Some(name) => axis(name)?,
            None if values > 1 => {
                return Err("per-channel values need --channel-axis (an output axis)".into());
            }
            None => 0,
        };
        let normalise = !self.mean.is_empty() || !self.std.is_empty();
        let affine_given = !self.scale.is_empty() || !self.bias.is_empty();
        c = match (normalise, affine_given) {
            (true, true) => return Err("give --mean/--std or --scale/--bias, not both".into()),
            (true, false) if self.mean.is_empty() || self.std.is_empty() => {
                return Err("--mean and --std go together".into());
            }
            (true, false) => c.normalized(axis, &self.mean, &self.std),
            (false, true) => {
                let n = self.scale.len().max(self.bias.len());
                let or = |v: &[f32], x: f32| if v.is_empty() { vec![x; n] } else { v.to_vec() };
                c.with_affine(axis, &or(&self.scale, 1.0), &or(&self.bias, 0.0))
            }
            (false, false) => Ok(c),
        }
        .map_err(|e| e.to_string())?;
        Ok(Some(c))
    }
}

/// The conversion source type of a file's (little-endian) dtype.
fn source_type(dtype: &TypeStr) -> Result<Dtype, String> {
    let size = dtype.num_bytes().unwrap_or(0);
    Ok(match (dtype.type_char(), size) {
        (TypeChar::Uint, 1) => Dtype::U8,
        (TypeChar::Int, 1) => Dtype::I8,
        (TypeChar::Uint, 2) => Dtype::U16,
        (TypeChar::Int, 2) => Dtype::I16,
        (TypeChar::Uint, 4) => Dtype::U32,
        (TypeChar::Int, 4) => Dtype::I32,
        (TypeChar::Float, 2) => Dtype::F16,
        (TypeChar::Float, 4) => Dtype::F32,
        _ => {
            return Err(format!(
                "--to: cannot convert from {dtype} (8 to 32-bit ints and floats can)"
            ));
        }
    })
}

/// The source type `--dtype` names, for a conversion.
pub fn named_type(dtype: &str) -> Result<Dtype, String> {
    Dtype::parse(dtype).ok_or_else(|| {
        format!("--to: --dtype {dtype} is not a type conversions read (u8, i8, u16, i16, u32, i32, f16, bf16, f32)")
    })
}
