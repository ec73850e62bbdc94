//! `.npy` files as raw element bytes: any plain numeric dtype whose size the kernels move.
//! Big-endian data is converted to little-endian; Fortran-order arrays are read as the
//! C-order array of reversed shape (their transpose), which `main` accounts for.

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::Path;

use npyz::{DType, Order, TypeChar, TypeStr, WriterBuilder};

/// A tensor read from `.npy`.
pub struct Tensor {
    /// Shape of the stored (C-order) data: reversed for Fortran-order files.
    pub shape: Vec<usize>,
    pub fortran_order: bool,
    /// Little-endian dtype of `data`.
    pub dtype: TypeStr,
    pub elem_size: usize,
    pub data: Vec<u8>,
}

pub fn read(path: &Path) -> Result<Tensor, String> {
    let file = File::open(path).map_err(|e| format!("cannot open {}: {e}", path.display()))?;
    let npy = npyz::NpyFile::new(BufReader::new(file))
        .map_err(|e| format!("{} is not a readable .npy file: {e}", path.display()))?;
    let DType::Plain(dtype) = npy.dtype() else {
        return Err(format!(
            "{}: structured dtypes are not supported; save a plain numeric array",
            path.display()
        ));
    };
    let numeric = matches!(
        dtype.type_char(),
        TypeChar::Bool | TypeChar::Int | TypeChar::Uint | TypeChar::Float | TypeChar::Complex
    );
    let elem_size = dtype.num_bytes().unwrap_or(0);
    if !numeric || !wgpu_permute::plan::ELEM_SIZES.contains(&elem_size) {
        return Err(format!(
            "{}: dtype {dtype} is not supported (numeric types of 1, 2, 4, 8 or 16 bytes are)",
            path.display()
        ));
    }
    let fortran_order = npy.order() == Order::Fortran;
    let mut shape: Vec<usize> = npy.shape().iter().map(|&d| d as usize).collect();
    if fortran_order {
        shape.reverse();
    }
    let n: usize = shape.iter().product();
    let mut data = Vec::with_capacity(n * elem_size);
    npy.into_inner()
        .read_to_end(&mut data)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    if data.len() != n * elem_size {
        return Err(format!(
            "{}: holds {} data bytes but its header describes {}",
            path.display(),
            data.len(),
            n * elem_size
        ));
    }
    let dtype = if dtype.endianness() == npyz::Endianness::Big {
        // Complex numbers are two floats, each stored big-endian.
        let part = if dtype.type_char() == TypeChar::Complex {
            elem_size / 2
        } else {
            elem_size
        };
        data.chunks_exact_mut(part).for_each(|c| c.reverse());
        little_endian(&dtype)
    } else {
        dtype
    };
    Ok(Tensor {
        shape,
        fortran_order,
        dtype,
        elem_size,
        data,
    })
}

fn little_endian(dtype: &TypeStr) -> TypeStr {
    let text = dtype.to_string();
    format!("<{}", &text[1..])
        .parse()
        .unwrap_or_else(|_| dtype.clone())
}

/// Writes C-order data of `shape` to `out`.
pub fn write(
    out: impl Write,
    dtype: &TypeStr,
    shape: &[usize],
    data: &[u8],
) -> std::io::Result<()> {
    let shape: Vec<u64> = shape.iter().map(|&d| d as u64).collect();
    let mut out = npyz::WriteOptions::new_header_only()
        .dtype(DType::Plain(dtype.clone()))
        .shape(&shape)
        .writer(BufWriter::new(out))
        .write_header_only()?;
    out.write_all(data)?;
    out.flush()
}
