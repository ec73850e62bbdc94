//! `.npy` files as raw element bytes: any plain numeric dtype whose size the kernels move.
//! Big-endian data is converted to little-endian; Fortran-order arrays are read as the
//! C-order array of reversed shape (their transpose), which `main` accounts for.
//!
//! The header is parsed here rather than by `npyz`, which allocates whatever header length
//! a file claims (up to 4 GiB) and parses the header with recursion and unchecked
//! arithmetic. Nothing is allocated beyond what the file holds: the header length and the
//! data size it describes are compared with the file's length first.

use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::path::Path;

use npyz::{DType, TypeChar, TypeStr, WriterBuilder};

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

/// What a `.npy` header says.
#[derive(Debug, PartialEq)]
pub struct Header {
    pub dtype: TypeStr,
    pub fortran_order: bool,
    /// As written in the file (not reversed for Fortran order).
    pub shape: Vec<u64>,
    /// Bytes before the data: magic, version, header length and header text.
    pub len: u64,
}

/// Longest header accepted. numpy refuses headers over 10,000 bytes by default; a plain
/// dtype's header is about 70 bytes plus a few per dimension.
pub const MAX_HEADER: u64 = 1 << 20;

pub fn read(path: &Path) -> Result<Tensor, String> {
    let file = File::open(path).map_err(|e| format!("cannot open {}: {e}", path.display()))?;
    let meta = file
        .metadata()
        .map_err(|e| format!("cannot open {}: {e}", path.display()))?;
    if meta.is_dir() {
        return Err(format!("{} is a folder, not a .npy file", path.display()));
    }
    // Pipes and devices have no length: they are read up to what the header declares.
    let len = meta.is_file().then_some(meta.len());
    parse(BufReader::new(file), len).map_err(|e| format!("{}{e}", path.display()))
}

/// Reads a `.npy` file of `len` bytes (`None`: unknown, for streams) from `reader`.
/// Errors are phrased to follow the file's name.
pub fn parse(mut reader: impl Read, len: Option<u64>) -> Result<Tensor, String> {
    let header = read_header(&mut reader, len)?;
    let dtype = header.dtype;
    let numeric = matches!(
        dtype.type_char(),
        TypeChar::Bool | TypeChar::Int | TypeChar::Uint | TypeChar::Float | TypeChar::Complex
    );
    let elem_size = dtype.num_bytes().unwrap_or(0);
    if !numeric || !wgpu_permute::plan::ELEM_SIZES.contains(&elem_size) {
        return Err(format!(
            ": dtype {dtype} is not supported (numeric types of 1, 2, 4, 8 or 16 bytes are)"
        ));
    }
    let too_large = || {
        format!(
            ": the header's shape {:?} of {elem_size}-byte elements is too large for this \
             machine",
            header.shape
        )
    };
    let mut shape = header
        .shape
        .iter()
        .map(|&d| usize::try_from(d))
        .collect::<Result<Vec<usize>, _>>()
        .map_err(|_| too_large())?;
    let need = shape
        .iter()
        .try_fold(elem_size, |n, &d| n.checked_mul(d))
        .filter(|&n| n < isize::MAX as usize)
        .ok_or_else(too_large)?;
    let data = read_data(&mut reader, need, len.map(|l| l.saturating_sub(header.len)))?;
    if header.fortran_order {
        shape.reverse();
    }
    let mut data = data;
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
        fortran_order: header.fortran_order,
        dtype,
        elem_size,
        data,
    })
}

/// Reads exactly `need` data bytes. With the data's length known (`have`), a mismatch is
/// refused before anything is allocated; otherwise the bytes are read as they come, and any
/// bytes after them are counted (not kept) for the message.
fn read_data(reader: &mut impl Read, need: usize, have: Option<u64>) -> Result<Vec<u8>, String> {
    let mismatch = |have: u64| {
        format!(
            ": its header describes {need} data bytes but the file holds {have} after the header"
        )
    };
    let io_error = |e: io::Error| format!(": {e}");
    if let Some(have) = have
        && have != need as u64
    {
        return Err(mismatch(have));
    }
    let mut data = Vec::new();
    if have.is_some() {
        data.try_reserve_exact(need)
            .map_err(|_| format!(": {need} bytes of data do not fit in memory"))?;
    }
    reader
        .take(need as u64)
        .read_to_end(&mut data)
        .map_err(io_error)?;
    if data.len() != need {
        return Err(mismatch(data.len() as u64));
    }
    // The file may have grown since its length was taken, or be a stream.
    let extra = io::copy(reader, &mut io::sink()).map_err(io_error)?;
    if extra != 0 {
        return Err(mismatch(need as u64 + extra));
    }
    Ok(data)
}

/// Reads and checks the magic, version, header length and header text. `len` is the whole
/// file's length, when known.
pub fn read_header(reader: &mut impl Read, len: Option<u64>) -> Result<Header, String> {
    let not_npy = |why: &str| format!(" is not a readable .npy file: {why}");
    let mut preamble = [0u8; 8];
    reader
        .read_exact(&mut preamble)
        .map_err(|_| not_npy("it is too short"))?;
    if &preamble[..6] != b"\x93NUMPY" {
        return Err(not_npy("it does not start with the .npy magic string"));
    }
    let (text_len, before) = match (preamble[6], preamble[7]) {
        (1, 0) => {
            let mut b = [0u8; 2];
            reader
                .read_exact(&mut b)
                .map_err(|_| not_npy("it is too short"))?;
            (u16::from_le_bytes(b) as u64, 10)
        }
        (2 | 3, 0) => {
            let mut b = [0u8; 4];
            reader
                .read_exact(&mut b)
                .map_err(|_| not_npy("it is too short"))?;
            (u32::from_le_bytes(b) as u64, 12)
        }
        (major, minor) => {
            return Err(not_npy(&format!(
                "format version {major}.{minor} is not one of 1.0, 2.0, 3.0"
            )));
        }
    };
    if text_len > MAX_HEADER {
        return Err(not_npy(&format!(
            "its header claims {text_len} bytes (at most {MAX_HEADER} are accepted)"
        )));
    }
    if let Some(len) = len
        && before + text_len > len
    {
        return Err(not_npy(&format!(
            "its header claims {text_len} bytes but the file holds {} after the preamble",
            len.saturating_sub(before)
        )));
    }
    let mut text = Vec::new();
    reader
        .take(text_len)
        .read_to_end(&mut text)
        .map_err(|e| format!(": {e}"))?;
    if text.len() as u64 != text_len {
        return Err(not_npy(&format!(
            "its header claims {text_len} bytes but the file holds {} after the preamble",
            text.len()
        )));
    }
    let text = std::str::from_utf8(&text).map_err(|_| not_npy("its header is not text"))?;
    let (dtype, fortran_order, shape) = parse_dict(text).map_err(|e| not_npy(&e))?;
    Ok(Header {
        dtype,
        fortran_order,
        shape,
        len: before + text_len,
    })
}

/// Parses the header's Python dict literal, as numpy writes it:
/// `{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }` plus padding. Exactly these
/// three keys, in any order; no recursion, no allocation beyond the shape.
fn parse_dict(text: &str) -> Result<(TypeStr, bool, Vec<u64>), String> {
    let mut p = Cursor { rest: text };
    let (mut descr, mut fortran, mut shape) = (None, None, None);
    p.expect('{')?;
    loop {
        if p.eat('}') {
            break;
        }
        let key = p.string()?;
        p.expect(':')?;
        match key {
            "descr" if descr.is_none() => {
                if p.peek() == Some('[') {
                    return Err(
                        "structured dtypes are not supported; save a plain numeric array".into(),
                    );
                }
                let text = p.string()?;
                let dtype: TypeStr = text
                    .parse()
                    .map_err(|e| format!("dtype {text:?} is not valid: {e}"))?;
                descr = Some(dtype);
            }
            "fortran_order" if fortran.is_none() => fortran = Some(p.boolean()?),
            "shape" if shape.is_none() => shape = Some(p.tuple()?),
            "descr" | "fortran_order" | "shape" => {
                return Err(format!("the header names {key:?} twice"));
            }
            _ => return Err(format!("the header has an unexpected key {key:?}")),
        }
        if !p.eat(',') {
            p.expect('}')?;
            break;
        }
    }
    if !p.rest.trim_ascii().is_empty() {
        return Err("the header has text after its dict".into());
    }
    match (descr, fortran, shape) {
        (Some(d), Some(f), Some(s)) => Ok((d, f, s)),
        _ => Err("the header lacks one of 'descr', 'fortran_order' and 'shape'".into()),
    }
}

struct Cursor<'a> {
    rest: &'a str,
}

impl<'a> Cursor<'a> {
    fn skip_space(&mut self) {
        self.rest = self.rest.trim_ascii_start();
    }

    fn peek(&mut self) -> Option<char> {
        self.skip_space();
        self.rest.chars().next()
    }

    fn eat(&mut self, c: char) -> bool {
        self.skip_space();
        match self.rest.strip_prefix(c) {
            Some(rest) => {
                self.rest = rest;
                true
            }
            None => false,
        }
    }

    fn expect(&mut self, c: char) -> Result<(), String> {
        if self.eat(c) {
            Ok(())
        } else {
            Err(format!(
                "its header is not a dict as numpy writes it (expected {c:?})"
            ))
        }
    }

    /// A quoted string without escapes.
    fn string(&mut self) -> Result<&'a str, String> {
        self.skip_space();
        let quote = match self.rest.chars().next() {
            Some(q @ ('\'' | '"')) => q,
            _ => {
                return Err(
                    "its header is not a dict as numpy writes it (expected a string)".into(),
                );
            }
        };
        let body = &self.rest[1..];
        let end = body
            .find(quote)
            .ok_or("its header has an unterminated string")?;
        let s = &body[..end];
        if s.contains('\\') {
            return Err("its header has a string with escapes".into());
        }
        self.rest = &body[end + 1..];
        Ok(s)
    }

    fn boolean(&mut self) -> Result<bool, String> {
        self.skip_space();
        for (word, value) in [("True", true), ("False", false)] {
            if let Some(rest) = self.rest.strip_prefix(word) {
                self.rest = rest;
                return Ok(value);
            }
        }
        Err("its header's 'fortran_order' is not True or False".into())
    }

    /// `(d0, d1, ...)` or `[...]`, trailing comma allowed, Python 2's `L` suffix allowed.
    fn tuple(&mut self) -> Result<Vec<u64>, String> {
        let close = if self.eat('(') {
            ')'
        } else if self.eat('[') {
            ']'
        } else {
            return Err("its header's 'shape' is not a tuple".into());
        };
        let mut shape = Vec::new();
        loop {
            if self.eat(close) {
                return Ok(shape);
            }
            self.skip_space();
            let digits = self.rest.bytes().take_while(u8::is_ascii_digit).count();
            if digits == 0 {
                return Err("its header's 'shape' holds something other than sizes".into());
            }
            let d = self.rest[..digits].parse::<u64>().map_err(|_| {
                format!(
                    "its header's 'shape' has a dimension too large: {}",
                    &self.rest[..digits.min(40)]
                )
            })?;
            self.rest = &self.rest[digits..];
            self.rest = self.rest.strip_prefix('L').unwrap_or(self.rest);
            shape.push(d);
            if !self.eat(',') {
                self.expect(close)?;
                return Ok(shape);
            }
        }
    }
}

fn little_endian(dtype: &TypeStr) -> TypeStr {
    let text = dtype.to_string();
    format!("<{}", &text[1..])
        .parse()
        .unwrap_or_else(|_| dtype.clone())
}

/// Writes C-order data of `shape` to `out`.
pub fn write(out: impl Write, dtype: &TypeStr, shape: &[usize], data: &[u8]) -> io::Result<()> {
    let shape: Vec<u64> = shape.iter().map(|&d| d as u64).collect();
    let mut out = npyz::WriteOptions::new_header_only()
        .dtype(DType::Plain(dtype.clone()))
        .shape(&shape)
        .writer(BufWriter::new(out))
        .write_header_only()?;
    out.write_all(data)?;
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(header: &str, data: &[u8]) -> Vec<u8> {
        let mut f = b"\x93NUMPY\x01\x00".to_vec();
        f.extend((header.len() as u16).to_le_bytes());
        f.extend(header.as_bytes());
        f.extend(data);
        f
    }

    fn parse_bytes(bytes: &[u8]) -> Result<Tensor, String> {
        parse(bytes, Some(bytes.len() as u64))
    }

    #[test]
    fn reads_what_numpy_writes() {
        let f = file(
            "{'descr': '>u2', 'fortran_order': True, 'shape': (2, 3), }          \n",
            &[0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6],
        );
        for len in [Some(f.len() as u64), None] {
            let t = parse(&f[..], len).unwrap();
            assert_eq!(t.shape, [3, 2]);
            assert!(t.fortran_order);
            assert_eq!(t.dtype.to_string(), "<u2");
            assert_eq!(t.data, [1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0]);
        }
        let t = parse_bytes(&file(
            "{\"shape\": [], \"fortran_order\": False, \"descr\": \"<c16\"}",
            &[7; 16],
        ))
        .unwrap();
        assert_eq!((t.shape.len(), t.elem_size), (0, 16));
        let t = parse_bytes(&file(
            "{'descr': '|b1', 'fortran_order': False, 'shape': (0L, 5L)}",
            &[],
        ))
        .unwrap();
        assert_eq!(t.shape, [0, 5]);
    }

    #[test]
    fn header_and_data_disagreeing_name_both_sizes() {
        let header = "{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }";
        for (data, have) in [(&[0u8; 8][..], 8), (&[0; 20], 20)] {
            let f = file(header, data);
            for len in [Some(f.len() as u64), None] {
                let e = parse(&f[..], len).err().unwrap();
                assert!(
                    e.contains("describes 16 data bytes but the file holds"),
                    "{e}"
                );
                assert!(e.contains(&format!(" {have} ")), "{e}");
            }
        }
    }

    #[test]
    fn sizes_beyond_memory_are_errors() {
        for shape in [
            "(2305843009213693952,)",
            // Found by fuzzing the old reader: the count fits in u64, the bytes do not.
            "(1, 4444444444444444441, 3)",
            "(4294967296, 4294967296)",
            "(99999999999999999999,)",
        ] {
            let f = file(
                &format!("{{'descr': '<f8', 'fortran_order': False, 'shape': {shape}}}"),
                &[0; 8],
            );
            let e = parse_bytes(&f).err().unwrap();
            assert!(e.contains("too large"), "{e}");
        }
    }

    #[test]
    fn malformed_headers_are_errors() {
        let bad = [
            "",
            "{",
            "{}",
            "{'descr': '<f4'}",
            "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'extra': 1}",
            "{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (1,)}",
            "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,)}",
            "{'descr': '<U3', 'fortran_order': False, 'shape': (1,)}",
            "{'descr': '<f4', 'fortran_order': false, 'shape': (1,)}",
            "{'descr': '<f4', 'fortran_order': False, 'shape': (-1,)}",
            "{'descr': '<f4', 'fortran_order': False, 'shape': ((1,),)}",
            "{'descr': '<f4', 'fortran_order': False, 'shape': (1,)} x",
            "{'descr': '<f\\4', 'fortran_order': False, 'shape': (1,)}",
        ];
        for h in bad {
            assert!(parse_bytes(&file(h, &[0; 4])).is_err(), "{h}");
        }
        // A header longer than the file, or than any plain dtype needs.
        let mut f = file("{}", &[]);
        f[8..10].copy_from_slice(&u16::MAX.to_le_bytes());
        assert!(
            parse_bytes(&f)
                .err()
                .unwrap()
                .contains("claims 65535 bytes")
        );
        let mut f = b"\x93NUMPY\x02\x00\xff\xff\xff\xff".to_vec();
        assert!(parse(&f[..], None).err().unwrap().contains("at most"));
        f[11] = 0;
        assert!(parse(&f[..], None).err().unwrap().contains("at most"));
    }
}
