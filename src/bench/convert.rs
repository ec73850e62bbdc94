//! The conversions section: permutes that convert, each measured in the same run next to
//! the shader copy of the same traffic (bytes read plus written) and next to the two-pass
//! way (this crate's permute in the source type, then a conversion pass over its output).

use super::{Bench, BenchError, Stats, bench_bytes};
use crate::convert::{Conversion, Dtype};
use crate::view::View;
use crate::{Relayout, captured, reference, upload};

/// One conversion case: the fused operation and its two passes.
#[derive(Clone, Debug)]
pub struct ConvertCase {
    /// `[32,224,224,3] (0,3,1,2) u8 -> f32 normalised`.
    pub label: String,
    /// The permute that converts.
    pub fused: Relayout,
    /// The same permute in the source type.
    pub permute: Relayout,
    /// The conversion alone, over the permute's output.
    pub convert: Relayout,
}

impl ConvertCase {
    fn new(shape: &[usize], perm: &[usize], c: Conversion, what: &str) -> Self {
        let permute = Relayout::permute(shape, perm, c.from().size()).expect("a valid case");
        let label = format!("[{}] ({})", list(shape), list(perm));
        Self::of(permute, c, label, what)
    }

    /// The centre `keep` x `keep` pixels of images `[n, h, w, c]`, permuted by `perm`: the
    /// crop and normalisation that start a vision model.
    fn cropped(shape: [usize; 4], keep: usize, perm: &[usize], c: Conversion, what: &str) -> Self {
        let centre = |v: View, axis| {
            let start = (shape[axis] - keep) / 2;
            v.slice(axis, start..start + keep, 1)
        };
        let view = centre(View::contiguous(&shape), 1)
            .and_then(|v| centre(v, 2))
            .and_then(|v| v.permuted_axes(perm))
            .expect("a valid crop");
        let len = shape.iter().product();
        let crop = Relayout::view(view, len, c.from().size()).expect("a valid crop");
        let label = format!("[{}] crop {keep} ({})", list(&shape), list(perm));
        Self::of(crop, c, label, what)
    }

    /// The case of `moved` (in the source type) converting by `c`.
    fn of(moved: Relayout, c: Conversion, label: String, what: &str) -> Self {
        let out = moved.out_shape().to_vec();
        let identity: Vec<usize> = (0..out.len()).collect();
        let convert = Relayout::permute(&out, &identity, c.from().size())
            .and_then(|op| op.with_conversion(c.clone()))
            .expect("a valid conversion");
        let names = format!("{} -> {}", c.from().name(), c.to().name());
        ConvertCase {
            label: format!("{label} {names}{what}"),
            fused: moved
                .clone()
                .with_conversion(c)
                .expect("a valid conversion"),
            permute: moved,
            convert,
        }
    }

    /// Bytes the fused operation reads and writes.
    pub fn traffic(&self) -> u64 {
        let n: usize = self.fused.out_shape().iter().product();
        n as u64 * (self.fused.elem_size() + self.fused.dst_elem_size()) as u64
    }
}

/// `1,2,3`.
fn list(v: &[usize]) -> String {
    v.iter()
        .map(|x| x.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

/// The suite: an image batch into a vision model and back out, and attention heads
/// narrowed to f16. `scale` multiplies the outermost dim.
pub fn convert_suite(scale: usize) -> Vec<ConvertCase> {
    convert_suite_sized(&|n| n * scale.max(1), true)
}

/// The suite with each case's outermost dim `outer(n)` of its usual `n`; without
/// `affine`, the same moves and types without their affines (outputs that are exact on
/// every device, as the bench page checks them by checksum).
pub fn convert_suite_sized(outer: &dyn Fn(usize) -> usize, affine: bool) -> Vec<ConvertCase> {
    if !affine {
        let plain = |from, to| Conversion::new(from, to).expect("a valid conversion");
        return vec![
            ConvertCase::new(
                &[outer(32), 224, 224, 3],
                &[0, 3, 1, 2],
                plain(Dtype::U8, Dtype::F32),
                "",
            ),
            ConvertCase::new(
                &[outer(32), 3, 224, 224],
                &[0, 2, 3, 1],
                plain(Dtype::F32, Dtype::U8),
                "",
            ),
            ConvertCase::new(
                &[outer(8), 512, 16, 64],
                &[0, 2, 1, 3],
                plain(Dtype::F32, Dtype::F16),
                "",
            ),
        ];
    }
    let normalise = Conversion::new(Dtype::U8, Dtype::F32)
        .and_then(|c| c.normalized(1, &[0.485, 0.456, 0.406], &[0.229, 0.224, 0.225]))
        .expect("a valid normalisation");
    let to_bytes = Conversion::new(Dtype::F32, Dtype::U8)
        .and_then(|c| c.with_affine(3, &[255.0], &[0.0]))
        .expect("a valid affine");
    let narrow = Conversion::new(Dtype::F32, Dtype::F16).expect("a valid conversion");
    // Images of 299 pixels a side (Inception's): neither their pixel count nor their planes'
    // offsets are whole 16 bytes; one image (a model's input at inference) not even a whole
    // number of blocks.
    vec![
        ConvertCase::new(
            &[outer(32), 224, 224, 3],
            &[0, 3, 1, 2],
            normalise.clone(),
            " normalised",
        ),
        ConvertCase::new(
            &[outer(32), 3, 224, 224],
            &[0, 2, 3, 1],
            to_bytes.clone(),
            " * 255",
        ),
        ConvertCase::new(&[outer(8), 512, 16, 64], &[0, 2, 1, 3], narrow, ""),
        // Centre crops of 256 pixels to 224 (rows and the crop's corner in whole 16 bytes).
        ConvertCase::cropped(
            [outer(32), 256, 256, 3],
            224,
            &[0, 3, 1, 2],
            normalise.clone(),
            " normalised",
        ),
        ConvertCase::new(
            &[outer(32), 299, 299, 3],
            &[0, 3, 1, 2],
            normalise.clone(),
            " normalised",
        ),
        ConvertCase::new(
            &[outer(32), 3, 299, 299],
            &[0, 2, 3, 1],
            to_bytes.clone(),
            " * 255",
        ),
        ConvertCase::new(
            &[outer(1), 299, 299, 3],
            &[0, 3, 1, 2],
            normalise,
            " normalised",
        ),
        ConvertCase::new(&[outer(1), 3, 299, 299], &[0, 2, 3, 1], to_bytes, " * 255"),
    ]
}

/// The permute suite's cases converted to `to` (`bench --to`): each permute of 1, 2 or
/// 4-byte elements, read as u8, f16 or f32, without an affine.
pub fn convert_suite_to(cases: &[super::Case], to: Dtype) -> Vec<ConvertCase> {
    cases
        .iter()
        .filter(|c| c.view.is_none())
        .filter_map(|c| {
            let from = match c.op.elem_size() {
                1 => Dtype::U8,
                2 => Dtype::F16,
                4 => Dtype::F32,
                _ => return None,
            };
            let conversion = Conversion::new(from, to).ok()?;
            Some(ConvertCase::new(&c.shape, &c.perm, conversion, ""))
        })
        .collect()
}

/// Measurements of one conversion case.
#[derive(Clone, Debug)]
pub struct ConvertResult {
    pub case: ConvertCase,
    pub fused: Stats,
    pub two_pass: Stats,
    /// The shader copy of half the traffic (so that it reads and writes as many bytes).
    pub shader_copy: Stats,
}

impl ConvertResult {
    /// Bandwidth of the fused operation (bytes read plus written, over the median).
    pub fn gbps(&self) -> f64 {
        self.fused.gbps(self.case.traffic())
    }

    /// The fused operation's speed over the shader copy's (median times).
    pub fn vs_shader_copy(&self) -> f64 {
        self.shader_copy.median.as_secs_f64() / self.fused.median.as_secs_f64().max(1e-12)
    }

    /// How many times faster the fused operation is than the two passes.
    pub fn vs_two_pass(&self) -> f64 {
        self.two_pass.median.as_secs_f64() / self.fused.median.as_secs_f64().max(1e-12)
    }
}

impl Bench<'_> {
    /// Checks the fused case against the reference, then times it, the two passes and the
    /// shader copy.
    pub fn run_convert(&self, case: &ConvertCase) -> Result<ConvertResult, BenchError> {
        let p = self.permuter;
        let device = p.device();
        let src_bytes = case.fused.src_len() * case.fused.elem_size();
        let data = bench_bytes(src_bytes);
        let got = p.run(&case.fused, &data)?;
        if reference::first_mismatch(&case.fused, &data, &got)?.is_some() {
            return Err(BenchError::Mismatch(case.label.clone()));
        }
        let copy_bytes = (case.traffic() / 2).next_multiple_of(16);
        // At least the copy's size, as before the copies had their pair (`Bench::copy_pair`):
        // where buffers lie moves timings, so these stay comparable with earlier rounds.
        let storage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC;
        let buffer = |label: &str, size: u64| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size: size.next_multiple_of(16).max(copy_bytes),
                usage: storage | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            })
        };
        let (src, mid, dst) = captured(device, || {
            (
                upload(
                    device,
                    p.queue(),
                    "convert src",
                    &pad16(data, copy_bytes),
                    storage,
                ),
                buffer("convert mid", src_bytes as u64),
                buffer("convert dst", case.traffic()),
            )
        })?;
        let (fused, permute, convert) = (
            self.steady(p, &case.fused, &src, &dst)?,
            self.steady(p, &case.permute, &src, &mid)?,
            self.steady(p, &case.convert, &mid, &dst)?,
        );
        let record = |e: &mut wgpu::CommandEncoder, s: &wgpu::Buffer, d, op| {
            // Prepared and checked above: the same call cannot fail now.
            let _ = p.record(e, s, d, op);
        };
        let fused_time = self.time(&|e| record(e, &src, &dst, &fused))?;
        let two_pass = self.time(&|e| {
            record(e, &src, &mid, &permute);
            record(e, &mid, &dst, &convert);
        })?;
        let pair = self.copy_pair(copy_bytes)?;
        let at = pair.placement.dst_offset;
        // Recorded (and its pipeline compiled) when the pair was made: cannot fail now.
        let shader_copy = self.time(&|e| {
            let _ = p.record_shader_copy(e, &pair.src, &pair.dst, copy_bytes, at);
        })?;
        Ok(ConvertResult {
            case: case.clone(),
            fused: fused_time,
            two_pass,
            shader_copy,
        })
    }
}

/// `data` padded with zeros to at least `len` bytes.
fn pad16(mut data: Vec<u8>, len: u64) -> Vec<u8> {
    if (data.len() as u64) < len {
        data.resize(len as usize, 0);
    }
    data
}

/// The conversions section as a table.
pub fn convert_table(results: &[ConvertResult]) -> String {
    let mut out = String::from(
        "conversions (GB/s and the copy's ratio count bytes read plus written; / two-pass: the permute, then a conversion pass):\n",
    );
    out += &format!(
        "{:<52} {:>9} {:>7} {:>8} {:>11}\n",
        "case", "fused ms", "GB/s", "/ shader", "/ two-pass"
    );
    for r in results {
        out += &format!(
            "{:<52} {:>9.3} {:>7.2} {:>8.2} {:>11.2}\n",
            r.case.label,
            r.fused.median.as_secs_f64() * 1e3,
            r.gbps(),
            r.vs_shader_copy(),
            r.vs_two_pass()
        );
    }
    out
}
