//! The bench page's suite (`web/bench.html`, `web/suite.js`): cases planned for the WebGPU
//! profile and recorded ([`Recorded`]), with what the page needs to check each one without
//! a CPU reference of its own: the source is a fixed pattern ([`pattern`]) and the expected
//! destination buffer, guard bytes included, is given as a checksum ([`checksum`]) computed
//! here from the reference. The tests write suites of their own cases the same way.

use serde_json::{Value, json};

use crate::bench::{Case, ConvertCase};
use crate::plan::{DeviceCaps, Options, SpecializeReason};
use crate::work::{Recorded, Work};
use crate::{PermuteError, Relayout, reference};

/// The byte the page fills the destination buffer with before the checked run: any other
/// byte outside the operation's region is a write outside it.
pub const GUARD: u8 = 0xA7;

/// Guard bytes past the region in the destination buffer.
pub const TAIL: u64 = 256;

/// Word `i` of every source buffer: lowbias32 of the index, well mixed so that a misplaced
/// element shows (web/replay.js computes the same).
pub fn pattern(i: u32) -> u32 {
    let mut x = i;
    x ^= x >> 16;
    x = x.wrapping_mul(0x7feb_352d);
    x ^= x >> 15;
    x = x.wrapping_mul(0x846c_a68b);
    x ^= x >> 16;
    x
}

/// FNV-1a over the little-endian 32-bit words of `bytes` (a last partial word padded with
/// zeros), as 8 hex digits: the page's check of a destination buffer.
pub fn checksum(bytes: &[u8]) -> String {
    let hash = bytes.chunks(4).fold(0x811c_9dc5u32, |h, chunk| {
        let mut word = [0u8; 4];
        word[..chunk.len()].copy_from_slice(chunk);
        (h ^ u32::from_le_bytes(word)).wrapping_mul(0x0100_0193)
    });
    format!("{hash:08x}")
}

/// One case of a page suite: `op` planned for `caps` (a shape that would earn its own
/// pipeline in steady use gets it, as in the benchmark's warm figures), recorded, with
/// buffer sizes, the expected checksum, and a shader copy of the output's bytes to compare
/// with. `about` holds what reports say of the case (`label`, `shape`, ...).
pub fn case(about: Value, op: &Relayout, caps: &DeviceCaps) -> Result<Value, PermuteError> {
    let mut op = op.clone();
    let mut plans = op.plan(caps)?;
    if plans
        .iter()
        .any(|p| p.reasons.specialize == Some(SpecializeReason::Unpaid))
    {
        op = op.clone().with_options(Options {
            specialize: Some(true),
            ..op.options()
        });
        plans = op.plan(caps)?;
    }
    let (elem, dst_elem) = (op.elem_size() as u64, op.dst_elem_size() as u64);
    let (src_offset, dst_offset) = op.offsets();
    let (source_bytes, bytes) = (op.src_len() as u64 * elem, op.dst_len() as u64 * dst_elem);
    let size = |n: u64| usize::try_from(n).map_err(|_| PermuteError::SizeOverflow);
    // The bytes a case counts as moved: the output's twice, as the benchmark counts them,
    // or a conversion's read plus written. The copies move half of them in whole 16-byte
    // units from offset 0 (reading and writing as many bytes).
    let traffic = match op.conversion() {
        Some(_) => source_bytes + bytes,
        None => 2 * bytes,
    };
    let copy_bytes = (traffic / 2).next_multiple_of(16).max(16);
    let src_size = (src_offset + source_bytes)
        .next_multiple_of(16)
        .max(copy_bytes);
    let dst_size = ((dst_offset + bytes).next_multiple_of(16) + TAIL).max(copy_bytes);
    let words = u32::try_from(src_size / 4).map_err(|_| PermuteError::SizeOverflow)?;
    let input: Vec<u8> = (0..words).flat_map(|i| pattern(i).to_le_bytes()).collect();
    let source = &input[size(src_offset)?..size(src_offset + source_bytes)?];
    let mut want = vec![GUARD; size(dst_size)?];
    let region = reference::run(&op, source)?;
    want[size(dst_offset)?..][..region.len()].copy_from_slice(&region);
    let mut copy = Recorded::of_plans(&[]);
    copy.push(Work::shader_copy(copy_bytes, 0, caps)?);
    let mut case = about;
    let fields = json!({
        "elem_size": elem,
        "bytes": bytes,
        "source_bytes": source_bytes,
        "traffic": traffic,
        "kernel": plans.first().map(|p| p.kernel.name()),
        "plan": plans.first().map(|p| p.to_string()),
        "src_size": src_size,
        "dst_size": dst_size,
        "checksum": checksum(&want),
        "work": Recorded::of_plans(&plans).to_json()?,
        "copy_bytes": copy_bytes,
        "shader_copy": copy.to_json()?,
    });
    if let (Some(case), Value::Object(fields)) = (case.as_object_mut(), fields) {
        case.extend(fields);
    }
    Ok(case)
}

/// A benchmark case for the page, described as `wgpu-permute bench --json` describes it.
pub fn bench_case(case: &Case, caps: &DeviceCaps) -> Result<Value, PermuteError> {
    let about = json!({
        "label": case.label(),
        "case": case.label(),
        "shape": case.shape,
        "perm": case.perm,
        "view": case.view,
    });
    self::case(about, &case.op, caps)
}

/// A conversion case for the page, described as `wgpu-permute bench --json` describes the
/// conversions section's rows.
pub fn convert_case(case: &ConvertCase, caps: &DeviceCaps) -> Result<Value, PermuteError> {
    let c = case.fused.conversion();
    let about = json!({
        "label": case.label,
        "case": case.label,
        "from": c.map(|c| c.from().name()),
        "to": c.map(|c| c.to().name()),
    });
    self::case(about, &case.fused, caps)
}

/// What a suite is planned for: the WebGPU profile on a GPU, or the same limits on a CPU
/// adapter (a browser's fallback adapter, such as SwiftShader), where the page runs the
/// CPU family's kernels (`web/suite-cpu.js`): the GPU plans' tiles crawl there.
pub fn profile_caps(cpu: bool) -> DeviceCaps {
    DeviceCaps {
        cpu,
        ..DeviceCaps::webgpu()
    }
}

/// The page's suite, each case's outermost dim divided by `shrink`: the permutes, the
/// views, then the conversions (without their affines: the page checks outputs by
/// checksum, and an affine's results may differ in the last bit between devices, within
/// its bound), planned for the WebGPU profile ([`profile_caps`]).
pub fn suite_cases(shrink: usize, cpu: bool) -> Result<Vec<Value>, PermuteError> {
    let outer = |n: usize| n / shrink.max(1);
    let caps = profile_caps(cpu);
    let moves = crate::bench::default_suite_sized(&outer)
        .into_iter()
        .chain(crate::bench::view_suite_sized(&outer));
    let conversions = crate::bench::convert_suite_sized(&|n| outer(n).max(1), false);
    moves
        .map(|case| bench_case(&case, &caps))
        .chain(conversions.iter().map(|case| convert_case(case, &caps)))
        .collect()
}

/// The suite as the classic script the page loads (pages opened from `file://` cannot
/// fetch files): it sets `globalThis.WGPU_PERMUTE_SUITE`.
pub fn suite_script(cases: Vec<Value>, made_by: &str, cpu: bool) -> String {
    let profile = match cpu {
        false => "WebGPU default limits, no optional features",
        true => "WebGPU default limits, no optional features, planned as a CPU adapter",
    };
    let suite = json!({
        "profile": profile,
        "cpu": cpu,
        "made_by": made_by,
        "guard": GUARD,
        "cases": cases,
    });
    format!(
        "// The bench page's suite, made by `{made_by}`: do not edit.\nglobalThis.WGPU_PERMUTE_SUITE = {suite};\n"
    )
}
