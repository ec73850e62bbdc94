//! `wgpu-permute rearrange`: an einops pattern applied to a `.npy` file, run as one permute
//! of the data as stored (see [`args::stored_view`] for Fortran order).

use std::path::Path;

use npyz::{TypeChar, TypeStr};
use wgpu_permute::Relayout;
use wgpu_permute::rearrange::rearrange;

use super::convert::ConvertArgs;
use super::{FilePermute, args, npy, output};

pub struct Args<'a> {
    pub pattern: &'a str,
    pub input: &'a Path,
    pub output: &'a Path,
    pub axes: &'a [String],
    pub pad: Option<&'a str>,
    pub crop: Option<&'a [usize]>,
    pub check: bool,
    pub convert: &'a ConvertArgs,
}

pub fn run(a: Args) -> Result<(), String> {
    // Everything that can be refused without the GPU is refused first.
    output::check_target(a.output)?;
    let axes = a
        .axes
        .iter()
        .map(|text| args::parse_axis(text))
        .collect::<Result<Vec<_>, _>>()?;
    let tensor = npy::read(a.input)?;
    let mut shape = tensor.shape.clone();
    if tensor.fortran_order {
        shape.reverse();
    }
    let cannot = |e: &dyn std::fmt::Display| {
        format!(
            "cannot rearrange {} of shape {shape:?}: {e}",
            a.input.display()
        )
    };
    let r = rearrange(a.pattern, &shape, &axes, a.pad.is_some()).map_err(|e| cannot(&e))?;
    // Element strides of the array's dims as stored.
    let row_major = |shape: &[usize]| -> Vec<isize> {
        let strides = wgpu_permute::view::row_major(shape);
        strides.into_iter().map(|s| s as isize).collect()
    };
    let mut strides = row_major(&shape);
    if tensor.fortran_order {
        strides = row_major(&tensor.shape);
        strides.reverse();
    }
    let (elem, len) = (
        tensor.elem_size,
        tensor.data.len() / tensor.elem_size.max(1),
    );
    // A channel axis names one elementary output axis; the plain rearrangement is a permute
    // of the elementary axes, whose output axis `k` is split axis `perm[k]`.
    let axis = |name: &str| {
        let plain = !r.is_padded() && a.crop.is_none() && !tensor.fortran_order;
        let split = r.names.iter().position(|n| n == name);
        match (
            plain,
            split.and_then(|i| r.perm.iter().position(|&p| p == i)),
        ) {
            (true, Some(k)) => Ok(k),
            (false, _) => {
                Err("--channel-axis: only a plain pattern on a C-order file takes one yet".into())
            }
            (true, None) => Err(format!(
                "--channel-axis {name}: the pattern's output has no such axis"
            )),
        }
    };
    let conversion = a.convert.conversion(&tensor.dtype, axis)?;
    // --pad is a value of the output's dtype: the destination type's when converting.
    let out_type = conversion
        .as_ref()
        .map_or(&tensor.dtype, |(_, dtype)| dtype);
    let fill = match a.pad {
        Some(pad) => stored_order(pad_value(pad, out_type)?, out_type),
        None => Vec::new(),
    };
    let op = if r.is_padded() {
        let view = r.view(&strides).map_err(|e| cannot(&e))?;
        Relayout::view(view, len, elem).map(|op| op.with_fill(&fill))
    } else if let Some(crop) = a.crop {
        let parts = r.cropped_views(&strides, crop).map_err(|e| cannot(&e))?;
        let crop_len = crop.iter().try_fold(1usize, |n, &d| n.checked_mul(d));
        let crop_len = crop_len.ok_or_else(|| cannot(&"the crop's size overflows"))?;
        Relayout::parts(parts, len, crop_len, elem)
    } else {
        let (shape, perm) = args::stored_view(&r, tensor.fortran_order);
        Relayout::permute(&shape, &perm, elem)
    };
    let mut op = op.map_err(|e| cannot(&e))?;
    let mut out_dtype = None;
    if let Some((conversion, dtype)) = conversion {
        op = op.with_conversion(conversion).map_err(|e| cannot(&e))?;
        out_dtype = Some(dtype);
    }
    FilePermute {
        input: a.input,
        output: a.output,
        in_shape: shape,
        out_shape: a.crop.map_or(r.out_shape, <[usize]>::to_vec),
        op,
        check: a.check,
        out_dtype,
    }
    .run(tensor)
}

/// A little-endian element as the file stores it: byte-swapped (each part of a complex
/// number on its own) for a big-endian dtype.
fn stored_order(mut value: Vec<u8>, dtype: &TypeStr) -> Vec<u8> {
    if dtype.endianness() == npyz::Endianness::Big {
        let part = match dtype.type_char() {
            TypeChar::Complex => value.len() / 2,
            _ => value.len(),
        };
        value.chunks_mut(part.max(1)).for_each(<[u8]>::reverse);
    }
    value
}

/// numpy's name for a dtype (`uint8`, `float16`, `bool`), for messages.
fn dtype_name(dtype: &TypeStr) -> String {
    let bits = 8 * dtype.num_bytes().unwrap_or(0);
    match dtype.type_char() {
        TypeChar::Bool => "bool".into(),
        TypeChar::Int => format!("int{bits}"),
        TypeChar::Uint => format!("uint{bits}"),
        TypeChar::Float => format!("float{bits}"),
        TypeChar::Complex => format!("complex{bits}"),
        _ => dtype.to_string(),
    }
}

/// The `--pad` value as one element of `dtype` (little-endian bytes), read as people type
/// it: `true` or `false` for bool files, an integer within the dtype's range for integer
/// files, a number (`inf` and `nan` too) for float files, a real number (imaginary part 0)
/// for complex ones. A finite number too large for the dtype is refused rather than made
/// infinite.
pub fn pad_value(text: &str, dtype: &TypeStr) -> Result<Vec<u8>, String> {
    let name = dtype_name(dtype);
    let size = dtype.num_bytes().unwrap_or(0);
    let not_a = |what: &str| format!("--pad {text} is not {what} (the file's dtype is {name})");
    match dtype.type_char() {
        TypeChar::Bool => match text {
            "true" => Ok(vec![1]),
            "false" => Ok(vec![0]),
            _ => Err(not_a("true or false")),
        },
        TypeChar::Int | TypeChar::Uint => {
            let value: i128 = text.parse().map_err(|_| not_a("an integer"))?;
            let bits = 8 * size as u32;
            let (min, max) = match dtype.type_char() {
                TypeChar::Int => (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1),
                _ => (0, (1i128 << bits) - 1),
            };
            if !(min..=max).contains(&value) {
                return Err(format!(
                    "--pad {text} is out of range for {name} ({min} to {max})"
                ));
            }
            // Two's complement: the low bytes of an in-range value are its encoding.
            Ok(value.to_le_bytes()[..size].to_vec())
        }
        TypeChar::Float | TypeChar::Complex => {
            let part = if dtype.type_char() == TypeChar::Complex {
                size / 2
            } else {
                size
            };
            let value: f64 = text.parse().map_err(|_| not_a("a number"))?;
            let (bytes, infinite) = match part {
                // Decimal -> f64 -> f16 rounds twice, which can differ from one rounding
                // only for a decimal within 2^-53 of an f16 tie (17 digits or more).
                2 => {
                    let h = half::f16::from_f64(value);
                    (h.to_le_bytes().to_vec(), h.is_infinite())
                }
                // Parsed as f32 directly: rounded once.
                4 => {
                    let f: f32 = text.parse().map_err(|_| not_a("a number"))?;
                    (f.to_le_bytes().to_vec(), f.is_infinite())
                }
                8 => (value.to_le_bytes().to_vec(), value.is_infinite()),
                _ => return Err(format!("--pad is not supported for {name} data")),
            };
            if infinite && value.is_finite() {
                return Err(format!("--pad {text} is out of range for {name}"));
            }
            let mut element = bytes;
            element.resize(size, 0);
            Ok(element)
        }
        _ => Err(format!("--pad is not supported for {name} data")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pad(text: &str, descr: &str) -> Result<Vec<u8>, String> {
        pad_value(text, &descr.parse().unwrap())
    }

    #[test]
    fn pad_values_are_read_in_the_file_dtype() {
        assert_eq!(pad("true", "|b1"), Ok(vec![1]));
        assert_eq!(pad("false", "|b1"), Ok(vec![0]));
        assert_eq!(pad("-1", "|i1"), Ok(vec![0xff]));
        assert_eq!(pad("-128", "|i1"), Ok(vec![0x80]));
        assert_eq!(pad("255", "|u1"), Ok(vec![0xff]));
        assert_eq!(pad("-2", "<i2"), Ok(vec![0xfe, 0xff]));
        assert_eq!(pad("65535", "<u2"), Ok(vec![0xff, 0xff]));
        assert_eq!(pad("-1", "<i8"), Ok(vec![0xff; 8]));
        assert_eq!(pad("18446744073709551615", "<u8"), Ok(vec![0xff; 8]));
        assert_eq!(pad("1", "<f2"), Ok(vec![0x00, 0x3c]));
        assert_eq!(pad("-2.5", "<f2"), Ok(vec![0x00, 0xc1]));
        assert_eq!(pad("65504", "<f2"), Ok(vec![0xff, 0x7b]));
        assert_eq!(pad("-inf", "<f2"), Ok(vec![0x00, 0xfc]));
        // 1 + 2^-11 is a tie between 1 and the next f16: to even, 1.
        assert_eq!(pad("1.00048828125", "<f2"), Ok(vec![0x00, 0x3c]));
        assert_eq!(pad("0.1", "<f4"), Ok(0.1f32.to_le_bytes().to_vec()));
        assert_eq!(pad("-1e300", "<f8"), Ok((-1e300f64).to_le_bytes().to_vec()));
        let nan = pad("nan", "<f4").unwrap();
        assert!(f32::from_le_bytes(nan.try_into().unwrap()).is_nan());
        let mut c8 = 1.5f32.to_le_bytes().to_vec();
        c8.extend([0; 4]);
        assert_eq!(pad("1.5", "<c8"), Ok(c8));
        assert_eq!(pad("-3", "<c16").unwrap().len(), 16);
    }

    #[test]
    fn pad_values_that_do_not_fit_the_dtype_are_refused() {
        let cases = [
            (
                "1.5",
                "<i4",
                "--pad 1.5 is not an integer (the file's dtype is int32)",
            ),
            (
                "1e3",
                "<i4",
                "--pad 1e3 is not an integer (the file's dtype is int32)",
            ),
            (
                "300",
                "|u1",
                "--pad 300 is out of range for uint8 (0 to 255)",
            ),
            ("-1", "|u1", "--pad -1 is out of range for uint8 (0 to 255)"),
            (
                "128",
                "|i1",
                "--pad 128 is out of range for int8 (-128 to 127)",
            ),
            (
                "1",
                "|b1",
                "--pad 1 is not true or false (the file's dtype is bool)",
            ),
            (
                "x",
                "<f4",
                "--pad x is not a number (the file's dtype is float32)",
            ),
            ("65520", "<f2", "--pad 65520 is out of range for float16"),
            ("1e39", "<f4", "--pad 1e39 is out of range for float32"),
            (
                "1+2j",
                "<c8",
                "--pad 1+2j is not a number (the file's dtype is complex64)",
            ),
        ];
        for (text, descr, want) in cases {
            assert_eq!(
                pad(text, descr).err().as_deref(),
                Some(want),
                "{text} {descr}"
            );
        }
    }

    #[test]
    fn big_endian_fills_are_swapped_per_part() {
        let order = |value: Vec<u8>, descr: &str| stored_order(value, &descr.parse().unwrap());
        assert_eq!(order(vec![1, 2, 3, 4], ">f4"), [4, 3, 2, 1]);
        assert_eq!(order(vec![1, 2, 3, 4], "<f4"), [1, 2, 3, 4]);
        assert_eq!(order((1..=8).collect(), ">c8"), [4, 3, 2, 1, 8, 7, 6, 5]);
        assert_eq!(order(vec![9], "|u1"), [9]);
    }
}
