//! The command-line tool end to end: numpy writes arrays, `wgpu-permute permute` permutes
//! them on the GPU, numpy checks the results against `np.transpose`. Needs the `cli`
//! feature and python3 with numpy (scripts/setup.sh installs it).
#![cfg(feature = "cli")]

#[path = "../common/mod.rs"]
mod common;
mod convert;
mod files;
mod reports;

use std::path::Path;
use std::process::Command;

use common::npy_file;

const BIN: &str = env!("CARGO_BIN_EXE_wgpu-permute");

/// Writes the test arrays and a manifest of `name perm` lines into `dir`.
const MAKE: &str = r#"
import sys, numpy as np
d = sys.argv[1]
rng = np.random.default_rng(7)
cases = []
def add(name, a, perm):
    np.save(f"{d}/{name}.npy", a)
    cases.append(f"{name} {','.join(map(str, perm))}")
shapes = [((37,), (0,)), ((5, 9), (1, 0)), ((3, 4, 6), (2, 0, 1)), ((2, 3, 5, 7), (0, 2, 3, 1)),
          ((2, 3, 2, 5, 3), (4, 1, 3, 0, 2)), ((33, 65), (1, 0)), ((4, 1, 6), (2, 1, 0))]
dtypes = ["u1", "i1", "u2", "i2", "f2", "u4", "i4", "f4", "u8", "i8", "f8", "c8", "c16", "?"]
for dt in dtypes:
    for i, (shape, perm) in enumerate(shapes):
        n = int(np.prod(shape))
        if dt == "?":
            a = rng.integers(0, 2, n).astype(bool)
        elif dt.startswith("c"):
            a = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(dt)
        elif dt.startswith("f"):
            a = rng.standard_normal(n).astype(dt)
        else:
            a = rng.integers(0, 100, n).astype(dt)
        add(f"{dt.replace('?', 'b')}_{i}", a.reshape(shape), perm)
add("fortran_f4", np.asfortranarray(rng.standard_normal((4, 5, 6)).astype("f4")), (1, 2, 0))
add("fortran_u2", np.asfortranarray(rng.integers(0, 999, (7, 3)).astype("u2")), (1, 0))
add("bigendian_f4", rng.standard_normal((6, 7)).astype(">f4"), (1, 0))
add("bigendian_i8", rng.integers(-99, 99, (3, 4, 5)).astype(">i8"), (2, 1, 0))
add("bigendian_c8", (rng.standard_normal(12) * 1j).astype(">c8").reshape(3, 4), (1, 0))
open(f"{d}/manifest", "w").write("\n".join(cases))
"#;

/// Checks every output against numpy's transpose; prints what it checked.
const CHECK: &str = r#"
import sys, numpy as np
d = sys.argv[1]
n = 0
for line in open(f"{d}/manifest").read().split("\n"):
    name, perm = line.split()
    perm = tuple(int(p) for p in perm.split(","))
    a = np.load(f"{d}/{name}.npy")
    b = np.load(f"{d}/{name}.out.npy")
    want = np.transpose(a, perm)
    assert b.shape == want.shape, (name, b.shape, want.shape)
    assert b.dtype.newbyteorder("=") == a.dtype.newbyteorder("="), (name, b.dtype, a.dtype)
    assert np.array_equal(b, want), name
    n += 1
print(f"numpy agrees on {n} arrays")
"#;

fn python(script: &str, dir: &Path) -> String {
    let out = Command::new("python3")
        .args(["-c", script])
        .arg(dir)
        .output()
        .expect("python3 is needed for the CLI round-trip test");
    assert!(
        out.status.success(),
        "python failed (is numpy installed? scripts/setup.sh installs it):\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn temp_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("wgpu-permute-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn numpy_round_trip_over_dtypes_ranks_and_layouts() {
    if common::gpu().is_none() {
        return;
    }
    let dir = temp_dir("numpy");
    python(MAKE, &dir);
    let manifest = std::fs::read_to_string(dir.join("manifest")).unwrap();
    let lines: Vec<&str> = manifest.lines().collect();
    // Each run makes its own device: one per core at a time.
    common::per_core(&lines, |line| {
        let (name, perm) = line.split_once(' ').unwrap();
        let out = Command::new(BIN)
            .args(["permute", "--check", "--perm", perm])
            .arg(dir.join(format!("{name}.npy")))
            .arg(dir.join(format!("{name}.out.npy")))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(String::from_utf8_lossy(&out.stdout).contains("check: equal to the CPU reference"));
    });
    let count = lines.len();
    let report = python(CHECK, &dir);
    assert!(
        report.contains(&format!("numpy agrees on {count} arrays")),
        "{report}"
    );
    assert!(count > 100);
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn errors_are_one_line_with_a_failing_exit() {
    let dir = temp_dir("errors");
    let bad = dir.join("bad.npy");
    std::fs::write(&bad, b"not an npy file").unwrap();
    let cases: [&[&str]; 4] = [
        &[
            "permute",
            "--perm",
            "1,0",
            bad.to_str().unwrap(),
            "/dev/null",
        ],
        &["permute", "--perm", "1,0", "/nonexistent.npy", "/dev/null"],
        &["plan", "--shape", "4,4", "--perm", "0,0", "--no-device"],
        &[
            "plan",
            "--shape",
            "4,4",
            "--perm",
            "1,0",
            "--dtype",
            "f7",
            "--no-device",
        ],
    ];
    for args in cases {
        let out = Command::new(BIN).args(args).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?}");
        assert!(
            stderr.starts_with("error: ") && stderr.lines().count() == 1,
            "{args:?}: {stderr}"
        );
    }
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn plan_explains_its_choices_without_a_device() {
    let out = Command::new(BIN)
        .args([
            "plan",
            "--shape",
            "8,512,16,64",
            "--perm",
            "0,2,1,3",
            "--dtype",
            "f16",
            "--no-device",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success());
    for part in ["16-byte units", "generic", "why:", "u32 index math"] {
        assert!(text.contains(part), "{text}");
    }
}

/// A choice forced for a CPU device's kernels (column runs) plans on a CPU adapter, and is
/// refused, as one line, for a GPU with the WebGPU limits.
#[test]
fn plan_takes_choices_forced_for_the_adapter() {
    let Some(p) = common::gpu() else { return };
    let args = [
        "plan",
        "--shape",
        "64,64,64,64",
        "--perm",
        "3,2,1,0",
        "--column-runs",
        "true",
    ];
    let out = Command::new(BIN).args(args).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    if p.caps().cpu {
        assert!(out.status.success(), "{text}");
        assert!(text.contains("along the columns"), "{text}");
    }
    let gpu: Vec<&str> = args.into_iter().chain(["--no-device"]).collect();
    let (code, stderr) = run(
        &gpu.iter().map(std::ffi::OsStr::new).collect::<Vec<_>>(),
        &[],
    );
    assert_eq!(code, 1);
    assert!(
        stderr.contains("forced column runs cannot be used here"),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
}

/// Runs `bench` with `args` and `--json` into `dir`; the report it wrote, and its stdout.
/// On a CPU adapter, NCHW -> CNHW of 224x224 planes plans as row copies, and says so;
/// `--row-copies false` keeps the kernel. Without a device (a GPU's limits), the kernel.
#[test]
fn plan_says_when_rows_move_as_buffer_copies() {
    let Some(p) = common::gpu() else { return };
    let shape = ["plan", "--shape", "2,3,224,224", "--perm", "1,0,2,3"];
    let text = |extra: &[&str]| {
        let out = Command::new(BIN).args(shape).args(extra).output().unwrap();
        assert!(out.status.success(), "{out:?}");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let said = "6 buffer copies of 200704 B";
    // The tool plans for the adapter as it reports itself.
    let cpu = wgpu_permute::caps_of(p.device()).cpu;
    assert_eq!(text(&[]).contains(said), cpu, "{}", text(&[]));
    assert!(!text(&["--row-copies", "false"]).contains(said));
    assert!(!text(&["--no-device"]).contains(said));
}

/// The benchmark times a case of row copies to the end (its steady state waits for no
/// shape constants, which copies never earn) and names its work `copies`.
#[test]
fn bench_times_row_copies() {
    let Some(p) = common::cpu_family() else {
        return;
    };
    let bench = wgpu_permute::bench::Bench::new(p, 3).unwrap();
    let case = wgpu_permute::bench::Case::new(&[2, 3, 64, 64], &[1, 0, 2, 3], 4);
    let result = bench.run_case(&case, Default::default()).unwrap();
    assert_eq!(result.kernels(), "copies");
}

fn bench_report(args: &[&str], dir: &Path) -> (serde_json::Value, String) {
    let json = dir.join("b.json");
    let out = Command::new(BIN)
        .arg("bench")
        .args(args)
        .arg("--json")
        .arg(&json)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    (report, String::from_utf8_lossy(&out.stdout).into_owned())
}

#[test]
fn bench_runs_a_case_and_writes_json_and_plot() {
    if common::gpu().is_none() {
        return;
    }
    let dir = temp_dir("bench");
    let svg = dir.join("b.svg");
    let svg_arg = svg.to_str().unwrap();
    let args = ["--runs", "2", "--filter", "[3,1000,7]", "--plot", svg_arg];
    let (report, text) = bench_report(&args, &dir);
    assert!(
        text.contains("[3,1000,7] (2,0,1) 4B") && text.contains("permute / shader copy"),
        "{text}"
    );
    assert_eq!(report["cases"].as_array().unwrap().len(), 1);
    assert!(report["cases"][0]["vs_buffer_copy"].as_f64().unwrap() > 0.0);
    assert!(std::fs::read_to_string(&svg).unwrap().starts_with("<svg"));
    std::fs::remove_dir_all(dir).ok();
}

/// Every case's copies run in one pair of buffers (`Bench::copy_pair`): a 4.6 MB case, an
/// 18 MB one, then conversions of both, each timed next to its copies; at the destination
/// offset where the pair's copy ran fastest, which the report names with every offset tried.
#[test]
fn bench_copies_share_one_pair_across_cases_and_conversions() {
    if common::gpu().is_none() {
        return;
    }
    let dir = temp_dir("bench-pair");
    let (report, text) = bench_report(&["--runs", "1", "--filter", "224"], &dir);
    let placement = &report["copy_placement"];
    let tried: Vec<(u64, f64)> = (placement["tried"].as_array().unwrap().iter())
        .map(|t| {
            (
                t["dst_offset"].as_u64().unwrap(),
                t["shader_copy_median_s"].as_f64().unwrap(),
            )
        })
        .collect();
    assert!(tried.len() >= 2 && tried[0].0 == 0, "{placement}");
    assert!(
        tried
            .iter()
            .all(|&(at, s)| wgpu_permute::bench::DST_OFFSETS.contains(&at) && s > 0.0)
    );
    let fastest = tried.iter().min_by(|a, b| a.1.total_cmp(&b.1)).unwrap().0;
    assert_eq!(
        placement["dst_offset"].as_u64(),
        Some(fastest),
        "{placement}"
    );
    assert!(
        placement["bytes"].as_u64().unwrap() >= 64 << 20,
        "{placement}"
    );
    assert!(
        text.contains("copies: in one pair of 64 MiB buffers"),
        "{text}"
    );
    let cases = report["cases"].as_array().unwrap();
    let sizes: Vec<u64> = cases.iter().map(|c| c["bytes"].as_u64().unwrap()).collect();
    assert!(sizes.len() == 2 && sizes[0] < sizes[1], "{sizes:?}");
    let conversions = report["conversions"].as_array().unwrap();
    assert!(!conversions.is_empty());
    for c in cases.iter().chain(conversions) {
        assert!(c["shader_copy_median_s"].as_f64().unwrap() > 0.0, "{c}");
        assert!(c["vs_shader_copy"].as_f64().unwrap() > 0.0, "{c}");
    }
    std::fs::remove_dir_all(dir).ok();
}

// ---- Reliability: bad input, lost files, memory. Files are made by hand (no numpy). ----

/// Little-endian u32 bytes of `0..n`.
fn iota_u32(n: u32) -> Vec<u8> {
    (0..n).flat_map(u32::to_le_bytes).collect()
}

/// Runs the tool; returns (exit code, stderr). A signal or a panic (101) fails the test.
fn run(args: &[&std::ffi::OsStr], env: &[(&str, &str)]) -> (i32, String) {
    let out = Command::new(BIN)
        .args(args)
        .envs(env.iter().copied())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let code = out.status.code();
    assert!(
        matches!(code, Some(0) | Some(1)),
        "{args:?}: crashed ({:?}): {stderr}",
        out.status
    );
    (code.unwrap(), stderr)
}

/// No adapter can be found under this environment (the Metal backend does not exist on
/// Linux), so anything that reaches for the GPU fails with "no GPU adapter found".
const NO_GPU: &[(&str, &str)] = &[("WGPU_BACKEND", "metal")];
