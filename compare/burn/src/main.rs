//! Dev-only comparison: times burn's wgpu backend (burn 0.22.1, no fusion, no autotune)
//! materialising a permuted tensor into a contiguous buffer, on the cases of wgpu-permute's
//! `bench` suite, labelled as that bench labels them so the two reports can be joined.
//!
//! Per case: upload a tensor of distinct values, permute it (a strides-only view, as
//! `Tensor::permute` is in burn), then time burn's own contiguous copy of that view,
//! `burn_cubecl::kernel::into_contiguous` (re-exported as `burn::backend::wgpu::into_contiguous`
//! by the `template` feature). The result is read back once and checked against a CPU
//! permutation of every element before anything is timed.
//!
//! Two timings per case, each over `--runs` calls after `--warmup` calls:
//! - wall: `B::sync` before and after each call (what the brief of this tool asks for);
//! - device: burn's own `Backend::profile` window around each call, which on an adapter with
//!   timestamp queries (lavapipe has them) reads GPU timestamps, like wgpu-permute's bench.
//!
//! Usage: burn-permute-compare [--runs N] [--warmup N] [--filter SUBSTR] [--json PATH]

use std::time::{Duration, Instant};

use burn::backend::wgpu::{RuntimeOptions, WgpuDevice, graphics, init_setup, into_contiguous};
use burn::backend::{
    Backend, BackendTypes, DType, ProfileOptions, TensorData,
    ops::{FloatTensorOps, IntTensorOps},
};
use burn::backend::{Wgpu, wgpu::CubeTensor};

type B = Wgpu;
type Device = <B as BackendTypes>::Device;

/// The element types a case can run with, and how to fill one with distinct, finite values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Elem {
    F32,
    F16,
    BF16,
    F64,
    I64,
    U8,
    I8,
}

impl Elem {
    fn dtype(self) -> DType {
        match self {
            Elem::F32 => DType::F32,
            Elem::F16 => DType::F16,
            Elem::BF16 => DType::BF16,
            Elem::F64 => DType::F64,
            Elem::I64 => DType::I64,
            Elem::U8 => DType::U8,
            Elem::I8 => DType::I8,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Elem::F32 => "f32",
            Elem::F16 => "f16",
            Elem::BF16 => "bf16",
            Elem::F64 => "f64",
            Elem::I64 => "i64",
            Elem::U8 => "u8",
            Elem::I8 => "i8",
        }
    }

    fn size(self) -> usize {
        self.dtype().size()
    }

    /// `n` elements as little-endian bytes. Floats of 4 and 8 bytes are an arange (exact: no
    /// case here has more than 2^24 elements); 2-byte floats are bit patterns of positive
    /// normal numbers, cycling with a prime period, so a wrong permutation shows; bytes cycle
    /// modulo 251.
    fn fill(self, n: usize) -> Vec<u8> {
        let mut out = Vec::with_capacity(n * self.size());
        for i in 0..n {
            match self {
                Elem::F32 => out.extend_from_slice(&(i as f32).to_le_bytes()),
                Elem::F64 => out.extend_from_slice(&(i as f64).to_le_bytes()),
                Elem::I64 => out.extend_from_slice(&(i as i64).to_le_bytes()),
                // 0x0400..0x7747: normal f16, below infinity (0x7C00).
                Elem::F16 => out.extend_from_slice(&(0x0400 + (i % 28_997) as u16).to_le_bytes()),
                // 0x0080..0x7E7B: normal bf16, below infinity (0x7F80).
                Elem::BF16 => out.extend_from_slice(&(0x0080 + (i % 32_251) as u16).to_le_bytes()),
                Elem::U8 | Elem::I8 => out.push((i % 251) as u8),
            }
        }
        out
    }
}

/// One case of wgpu-permute's default bench suite, with the burn element types that match
/// its element size, tried in order (the first the device supports runs).
struct Case {
    shape: Vec<usize>,
    perm: Vec<usize>,
    elem_size: usize,
    elems: Vec<Elem>,
}

impl Case {
    fn new(shape: &[usize], perm: &[usize], elem_size: usize, elems: &[Elem]) -> Self {
        Case {
            shape: shape.to_vec(),
            perm: perm.to_vec(),
            elem_size,
            elems: elems.to_vec(),
        }
    }

    /// The label wgpu-permute's bench prints for this case (`Case::label` in src/bench.rs).
    fn label(&self) -> String {
        let list = |v: &[usize]| {
            v.iter()
                .map(|x| x.to_string())
                .collect::<Vec<_>>()
                .join(",")
        };
        format!(
            "[{}] ({}) {}B",
            list(&self.shape),
            list(&self.perm),
            self.elem_size
        )
    }
}

/// wgpu-permute's `bench::default_suite(1)`, in its order, each with burn's dtypes of that
/// size. 16-byte elements have no burn dtype, so that case has none and is reported skipped.
fn suite() -> Vec<Case> {
    use Elem::*;
    vec![
        Case::new(&[4096, 4096], &[1, 0], 4, &[F32]),
        Case::new(&[64, 512, 512], &[0, 2, 1], 4, &[F32]),
        Case::new(&[64, 512, 512], &[0, 2, 1], 2, &[F16, BF16]),
        Case::new(&[64, 512, 512], &[0, 2, 1], 1, &[U8, I8]),
        Case::new(&[512, 512, 64], &[1, 0, 2], 4, &[F32]),
        Case::new(&[8, 512, 16, 64], &[0, 2, 1, 3], 4, &[F32]),
        Case::new(&[8, 512, 16, 64], &[0, 2, 1, 3], 2, &[F16, BF16]),
        Case::new(&[32, 64, 56, 56], &[0, 2, 3, 1], 4, &[F32]),
        Case::new(&[32, 56, 56, 64], &[0, 3, 1, 2], 4, &[F32]),
        Case::new(&[64, 64, 64, 64], &[3, 2, 1, 0], 4, &[F32]),
        Case::new(&[8, 8, 8, 8, 8, 32], &[2, 5, 0, 4, 1, 3], 4, &[F32]),
        Case::new(&[32, 512, 512], &[0, 2, 1], 8, &[F64, I64]),
        Case::new(&[2048, 2048], &[1, 0], 16, &[]),
        Case::new(&[3, 1000, 7], &[2, 0, 1], 4, &[F32]),
        Case::new(&[32, 224, 224, 3], &[0, 3, 1, 2], 1, &[U8, I8]),
        Case::new(&[32, 3, 224, 224], &[0, 2, 3, 1], 4, &[F32]),
    ]
}

/// Output dim `i` is source dim `perm[i]`, as in `Tensor::permute`: the CPU reference.
fn cpu_permute(src: &[u8], shape: &[usize], perm: &[usize], size: usize) -> Vec<u8> {
    let rank = shape.len();
    let mut src_strides = vec![1usize; rank];
    for d in (0..rank.saturating_sub(1)).rev() {
        src_strides[d] = src_strides[d + 1] * shape[d + 1];
    }
    let out_shape: Vec<usize> = perm.iter().map(|&p| shape[p]).collect();
    let out_strides: Vec<usize> = perm.iter().map(|&p| src_strides[p]).collect();
    let n: usize = shape.iter().product();
    let mut out = Vec::with_capacity(n * size);
    let mut idx = vec![0usize; rank];
    let mut offset = 0usize;
    for _ in 0..n {
        out.extend_from_slice(&src[offset * size..(offset + 1) * size]);
        for d in (0..rank).rev() {
            idx[d] += 1;
            offset += out_strides[d];
            if idx[d] < out_shape[d] {
                break;
            }
            offset -= out_strides[d] * out_shape[d];
            idx[d] = 0;
        }
    }
    out
}

fn upload(data: TensorData, float: bool, device: &Device) -> CubeTensor {
    if float {
        B::float_from_data(data, device)
    } else {
        B::int_from_data(data, device)
    }
}

fn permute(t: CubeTensor, axes: &[usize], float: bool) -> CubeTensor {
    if float {
        B::float_permute(t, axes)
    } else {
        B::int_permute(t, axes)
    }
}

fn read(t: CubeTensor, float: bool) -> TensorData {
    let data = if float {
        pollster::block_on(B::float_into_data(t))
    } else {
        pollster::block_on(B::int_into_data(t))
    };
    data.expect("read back")
}

struct Stats {
    median: Duration,
    min: Duration,
}

fn stats(mut v: Vec<Duration>) -> Stats {
    v.sort();
    let n = v.len();
    let median = if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2
    };
    Stats { median, min: v[0] }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

struct Row {
    label: String,
    elem: Elem,
    wall: Stats,
    device: Option<Stats>,
    bytes: u64,
}

struct Args {
    runs: usize,
    warmup: usize,
    filter: Option<String>,
    json: Option<String>,
}

fn parse_args() -> Args {
    let mut args = Args {
        runs: 10,
        warmup: 3,
        filter: None,
        json: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        let mut value = || {
            it.next()
                .unwrap_or_else(|| usage(&format!("{a} needs a value")))
        };
        match a.as_str() {
            "--runs" => args.runs = value().parse().unwrap_or_else(|_| usage("bad --runs")),
            "--warmup" => args.warmup = value().parse().unwrap_or_else(|_| usage("bad --warmup")),
            "--filter" => args.filter = Some(value()),
            "--json" => args.json = Some(value()),
            "-h" | "--help" => usage(""),
            other => usage(&format!("unknown argument {other}")),
        }
    }
    if args.runs == 0 {
        usage("--runs must be at least 1");
    }
    args
}

fn usage(msg: &str) -> ! {
    if !msg.is_empty() {
        eprintln!("error: {msg}");
    }
    eprintln!(
        "usage: burn-permute-compare [--runs N] [--warmup N] [--filter SUBSTR] [--json PATH]"
    );
    std::process::exit(if msg.is_empty() { 0 } else { 2 })
}

fn json_escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

fn main() {
    let args = parse_args();

    // Vulkan named explicitly (lavapipe here); the setup also tells which adapter it is.
    let wgpu_device = WgpuDevice::default();
    let setup = init_setup::<graphics::Vulkan>(&wgpu_device, RuntimeOptions::default());
    let info = setup.adapter.get_info();
    let device = Device::from(wgpu_device);
    println!(
        "burn 0.22.1 {} on {} ({:?}, {:?}); warmup {}, runs {}",
        B::name(&device),
        info.name,
        info.backend,
        info.device_type,
        args.warmup,
        args.runs
    );

    let mut rows = Vec::new();
    let mut clock = None;
    for case in suite() {
        let label = case.label();
        if let Some(f) = &args.filter
            && !label.contains(f.as_str())
        {
            continue;
        }
        let Some(&elem) = case
            .elems
            .iter()
            .find(|e| B::supports_dtype(&device, e.dtype()))
        else {
            let tried: Vec<_> = case.elems.iter().map(|e| e.name()).collect();
            println!(
                "{label:<34} skipped: no burn dtype of {} B on this device (tried: {})",
                case.elem_size,
                if tried.is_empty() {
                    "none exists".to_string()
                } else {
                    tried.join(", ")
                }
            );
            continue;
        };
        assert_eq!(elem.size(), case.elem_size);
        let float = elem.dtype().is_float();
        let n: usize = case.shape.iter().product();
        let host = elem.fill(n);
        let src = upload(
            TensorData::from_bytes_vec(host.clone(), case.shape.clone(), elem.dtype()),
            float,
            &device,
        );
        let view = permute(src, &case.perm, float);
        assert!(
            !view.is_contiguous(),
            "{label}: the permuted view is already contiguous"
        );

        // Correctness, once: every element against the CPU permutation.
        let out = into_contiguous(view.clone());
        assert!(out.is_contiguous());
        let got = read(out, float);
        let want = cpu_permute(&host, &case.shape, &case.perm, elem.size());
        let out_shape: Vec<usize> = case.perm.iter().map(|&p| case.shape[p]).collect();
        assert_eq!(got.shape().to_vec(), out_shape, "{label}: output shape");
        assert_eq!(got.dtype(), elem.dtype(), "{label}: output dtype");
        if got.as_bytes() != want.as_slice() {
            let first = got
                .as_bytes()
                .chunks(elem.size())
                .zip(want.chunks(elem.size()))
                .position(|(a, b)| a != b);
            panic!(
                "{label} {}: wrong result, first bad element {first:?}",
                elem.name()
            );
        }

        // Wall clock between syncs.
        for _ in 0..args.warmup {
            drop(into_contiguous(view.clone()));
        }
        B::sync(&device).expect("sync");
        let mut wall = Vec::with_capacity(args.runs);
        for _ in 0..args.runs {
            B::sync(&device).expect("sync");
            let start = Instant::now();
            let out = into_contiguous(view.clone());
            B::sync(&device).expect("sync");
            wall.push(start.elapsed());
            drop(out);
        }

        // burn's own profiling window: GPU timestamps where the adapter has them.
        let mut dev = Vec::with_capacity(args.runs);
        for _ in 0..args.runs {
            B::sync(&device).expect("sync");
            let (out, duration) = B::profile(&device, ProfileOptions::default().flush(), || {
                into_contiguous(view.clone())
            })
            .expect("profile");
            clock.get_or_insert(format!("{:?}", duration.timing_method()));
            if let Some(ticks) = pollster::block_on(duration.resolve()) {
                dev.push(ticks.duration());
            }
            drop(out);
        }
        B::sync(&device).expect("sync");

        let row = Row {
            label,
            elem,
            wall: stats(wall),
            device: (dev.len() == args.runs).then(|| stats(dev)),
            bytes: (n * elem.size()) as u64,
        };
        print_row(&row);
        rows.push(row);
    }

    println!(
        "checked: every result equals the CPU permutation; device clock: {}",
        clock.as_deref().unwrap_or("-")
    );

    if let Some(path) = &args.json {
        let mut s = String::from("[\n");
        for (i, r) in rows.iter().enumerate() {
            let dev = |f: fn(&Stats) -> Duration| {
                r.device
                    .as_ref()
                    .map_or("null".to_string(), |d| format!("{}", ms(f(d))))
            };
            s.push_str(&format!(
                "  {{\"case\": \"{}\", \"dtype\": \"{}\", \"median_ms\": {}, \"min_ms\": {}, \
                 \"device_median_ms\": {}, \"device_min_ms\": {}, \"runs\": {}, \"bytes\": {}}}{}\n",
                json_escape(&r.label),
                r.elem.name(),
                ms(r.wall.median),
                ms(r.wall.min),
                dev(|d| d.median),
                dev(|d| d.min),
                args.runs,
                r.bytes,
                if i + 1 < rows.len() { "," } else { "" }
            ));
        }
        s.push_str("]\n");
        std::fs::write(path, s).unwrap_or_else(|e| panic!("writing {path}: {e}"));
        println!("wrote {path}");
    }
}

fn print_row(r: &Row) {
    static HEADER: std::sync::Once = std::sync::Once::new();
    HEADER.call_once(|| {
        println!(
            "{:<34} {:<5} {:>11} {:>11} {:>12} {:>12} {:>8}",
            "case", "dtype", "median ms", "min ms", "dev med ms", "dev min ms", "GB/s"
        );
    });
    let (dmed, dmin) = r.device.as_ref().map_or(("-".into(), "-".into()), |d| {
        (format!("{:.2}", ms(d.median)), format!("{:.2}", ms(d.min)))
    });
    // Read plus write of the output's bytes over the wall-clock median, as wgpu-permute counts.
    let gbps = 2.0 * r.bytes as f64 / r.wall.median.as_secs_f64() / 1e9;
    println!(
        "{:<34} {:<5} {:>11.2} {:>11.2} {:>12} {:>12} {:>8.2}",
        r.label,
        r.elem.name(),
        ms(r.wall.median),
        ms(r.wall.min),
        dmed,
        dmin,
        gbps
    );
}
