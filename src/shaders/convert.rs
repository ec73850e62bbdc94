//! The element conversions of one pair of types: `shaders/convert.wgsl` (every type's
//! functions, on bits) with `src_to_f32` and `f32_to_dst` naming the pair's.

use super::{TemplateError, fill};
use crate::convert::Dtype;

/// Every type's conversion functions (see [`crate::convert`] for the numbers).
pub const CONVERT_WGSL: &str = include_str!("../../shaders/convert.wgsl");

/// The two functions a kernel that converts calls.
const PAIR_WGSL: &str = "
fn src_to_f32(b: u32) -> u32 {
    return {{FROM}}_to_f32(b);
}

fn f32_to_dst(b: u32) -> u32 {
    return f32_to_{{TO}}(b);
}
";

/// The WGSL name of a type in `convert.wgsl`'s functions.
fn wgsl_name(d: Dtype) -> &'static str {
    match d {
        Dtype::U8 => "u8",
        Dtype::I8 => "i8",
        Dtype::U16 => "u16",
        Dtype::I16 => "i16",
        Dtype::U32 => "u32",
        Dtype::I32 => "i32",
        Dtype::F16 => "f16",
        Dtype::BF16 => "bf16",
        Dtype::F32 => "f32",
    }
}

/// `convert.wgsl` with `src_to_f32` for `from` and `f32_to_dst` for `to`, which must be a
/// destination type ([`Dtype::is_destination`]).
pub fn convert_source(from: Dtype, to: Dtype) -> Result<String, TemplateError> {
    debug_assert!(to.is_destination());
    let pair = fill(
        "convert pair",
        PAIR_WGSL,
        &[("FROM", wgsl_name(from)), ("TO", wgsl_name(to))],
    )?;
    Ok(format!("{CONVERT_WGSL}{pair}"))
}
