//! Element conversions: the reference (`wgpu_permute::convert`) against numpy's casts, and
//! the kernels' conversion functions (`shaders/convert.wgsl`) against the reference, bit
//! for bit, on the GPU. Every 8- and 16-bit value (f16 and bf16 exhaustively), and for
//! 32-bit types the edges (zeros, infinities, NaNs, subnormals, rounding ties, the ends of
//! f16's range, integers past 2^24) plus pseudo-random bits; with an affine, within the
//! documented bound.

#[path = "../common/mod.rs"]
mod common;
mod flat;
mod generic;
mod gpu;
mod micro;
mod ops;
mod tiled;

use std::process::Command;

use wgpu_permute::convert::{Dtype, convert};

/// Set to `1` to skip the numpy comparison on a machine without python3 or numpy.
const SKIP_PYTHON: &str = "WGPU_PERMUTE_SKIP_PYTHON";

/// The test values of `dtype`, as element bits.
fn values(dtype: Dtype) -> Vec<u32> {
    if dtype.size() < 4 {
        return (0..1u32 << (8 * dtype.size())).collect();
    }
    let mut v: Vec<u32> = match dtype {
        Dtype::F32 => {
            let floats = [
                0.0f32,
                0.5,
                1.5,
                2.5,
                254.5,
                255.5,
                255.49,
                256.0,
                -0.5,
                -1.0,
                65504.0,
                65519.99,
                65520.0,
                65535.0,
                1e10,
                -1e10,
                1.0 + 1.0 / 2048.0,
                1.0 + 3.0 / 2048.0,
                1.0 + 1.0 / 256.0,
                1.0 + 3.0 / 256.0,
                6.1035156e-5,
                5.9604645e-8,
                2.9802322e-8,
                4.4703484e-8,
                1.7881393e-7,
                3.0517578e-5,
                0.1,
                0.2,
                0.3,
                1.0 / 3.0,
            ];
            let mut bits: Vec<u32> = floats.iter().map(|f| f.to_bits()).collect();
            bits.extend([
                0x7f80_0000,
                0x7fc0_0000,
                0x7f80_0001,
                0x7fbf_ffff,
                1,
                0x007f_ffff,
            ]);
            bits.extend([
                0x0080_0000,
                0x7f7f_ffff,
                0x3380_0000,
                0x3300_0000,
                0x3380_0001,
            ]);
            bits
        }
        _ => {
            let ints: [u32; 16] = [
                0,
                1,
                255,
                256,
                65504,
                65520,
                0xff_ffff,
                0x100_0000,
                0x100_0001,
                0x100_0002,
                0x100_0003,
                0x200_0002,
                0x200_0006,
                0x7fff_ffff,
                0x8000_0000,
                0xffff_fffe,
            ];
            ints.to_vec()
        }
    };
    // Each edge with its neighbours and its negation, then pseudo-random bits.
    let edges = v.clone();
    for b in edges {
        v.extend([b.wrapping_add(1), b.wrapping_sub(1), b ^ 0x8000_0000, !b]);
    }
    let mut x = 0x9e37_79b9u32;
    for _ in 0..40_000 {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        v.push(x);
        v.push(x >> (x % 29));
    }
    v
}

/// `a` and `b` are the same element of `dtype`: equal bits, or both NaN.
fn same(dtype: Dtype, a: u32, b: u32) -> bool {
    a == b || (dtype != Dtype::U8 && dtype.value(a).is_nan() && dtype.value(b).is_nan())
}

fn bytes_of(dtype: Dtype, bits: &[u32]) -> Vec<u8> {
    bits.iter()
        .flat_map(|b| b.to_le_bytes()[..dtype.size()].to_vec())
        .collect()
}

fn bits_of(dtype: Dtype, bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks(dtype.size())
        .map(|c| {
            let mut word = [0u8; 4];
            word[..c.len()].copy_from_slice(c);
            u32::from_le_bytes(word)
        })
        .collect()
}

#[test]
fn the_reference_casts_as_numpy_does() {
    if std::env::var(SKIP_PYTHON).is_ok_and(|v| v == "1") {
        eprintln!("skipped: {SKIP_PYTHON}=1 is set, numpy comparison not run");
        return;
    }
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("convert-numpy");
    std::fs::create_dir_all(&dir).unwrap();
    for from in Dtype::ALL {
        std::fs::write(
            dir.join(format!("{}.bin", from.name())),
            bytes_of(from, &values(from)),
        )
        .unwrap();
    }
    let names: Vec<&str> = Dtype::ALL.iter().map(|d| d.name()).collect();
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/convert/numpy_casts.py");
    let out = Command::new("python3")
        .arg(script)
        .arg(&dir)
        .arg(names.join(","))
        .output()
        .expect("python3 runs (or set WGPU_PERMUTE_SKIP_PYTHON=1)");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.trim() == "ok",
        "numpy's casts: {stdout} {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut checked = 0;
    for from in Dtype::ALL {
        let input = values(from);
        for to in Dtype::DESTINATIONS {
            let file = dir.join(format!("{}_{}.bin", from.name(), to.name()));
            let numpy = bits_of(to, &std::fs::read(&file).unwrap());
            assert_eq!(numpy.len(), input.len());
            for (&x, &want) in input.iter().zip(&numpy) {
                let got = convert(from, to, x, None);
                assert!(
                    same(to, got, want),
                    "{} {x:#x} -> {}: reference {got:#x}, numpy {want:#x}",
                    from.name(),
                    to.name()
                );
            }
            checked += input.len();
        }
    }
    eprintln!("{checked} casts agree with numpy");
}
