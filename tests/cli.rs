//! The command-line tool end to end: numpy writes arrays, `wgpu-permute permute` permutes
//! them on the GPU, numpy checks the results against `np.transpose`. Needs the `cli`
//! feature and python3 with numpy (scripts/setup.sh installs it).
#![cfg(feature = "cli")]

mod common;

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
    let mut count = 0;
    for line in manifest.lines() {
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
        count += 1;
    }
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

#[test]
fn bench_runs_a_case_and_writes_json_and_plot() {
    if common::gpu().is_none() {
        return;
    }
    let dir = temp_dir("bench");
    let (json, svg) = (dir.join("b.json"), dir.join("b.svg"));
    let out = Command::new(BIN)
        .args(["bench", "--runs", "2", "--filter", "[3,1000,7]", "--json"])
        .arg(&json)
        .arg("--plot")
        .arg(&svg)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("[3,1000,7] (2,0,1) 4B") && text.contains("permute / shader copy"),
        "{text}"
    );
    let report: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(report["cases"].as_array().unwrap().len(), 1);
    assert!(report["cases"][0]["vs_buffer_copy"].as_f64().unwrap() > 0.0);
    assert!(std::fs::read_to_string(&svg).unwrap().starts_with("<svg"));
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

#[test]
fn perm_errors_are_the_same_for_c_and_fortran_order_and_need_no_gpu() {
    let dir = temp_dir("perm-orders");
    let data = iota_u32(12);
    let c = dir.join("c.npy");
    let f = dir.join("f.npy");
    std::fs::write(&c, npy_file("<u4", false, "(3, 4)", &data)).unwrap();
    std::fs::write(&f, npy_file("<u4", true, "(3, 4)", &data)).unwrap();
    let out = dir.join("out.npy");
    let cases = [
        (
            "0,5",
            "permutation entry 5 is out of range for a tensor of rank 2",
        ),
        (
            "2,0",
            "permutation entry 2 is out of range for a tensor of rank 2",
        ),
        ("0,0", "permutation names dimension 0 more than once"),
        ("1,1", "permutation names dimension 1 more than once"),
    ];
    for input in [&c, &f] {
        for (perm, want) in cases {
            let args = [
                "permute".as_ref(),
                "--perm".as_ref(),
                perm.as_ref(),
                input.as_os_str(),
                out.as_os_str(),
            ];
            let (code, stderr) = run(&args, NO_GPU);
            assert_eq!(code, 1, "{input:?} --perm {perm}: {stderr}");
            assert_eq!(
                stderr,
                format!("error: {want}\n"),
                "{input:?} --perm {perm}"
            );
        }
        let args = [
            "permute".as_ref(),
            "--perm".as_ref(),
            "1,0,2".as_ref(),
            input.as_os_str(),
            out.as_os_str(),
        ];
        let (code, stderr) = run(&args, NO_GPU);
        assert_eq!(code, 1);
        assert!(
            stderr.contains("--perm has 3 entries but") && stderr.contains("has 2 dimensions"),
            "{stderr}"
        );
    }
    assert!(!out.exists());
    std::fs::remove_dir_all(dir).ok();
}

/// Header and data disagree: refused with both byte counts, without allocating what the
/// header claims and without reading what it does not declare. Run under a 1 GiB address
/// space limit, so that a reader that trusts the header fails here rather than hurting the
/// machine.
#[test]
fn npy_header_and_data_must_agree() {
    let dir = temp_dir("npy-sizes");
    let limited = |file: &Path| -> (i32, String) {
        let args = [
            "-c".as_ref(),
            "ulimit -v 1048576; exec \"$0\" \"$@\"".as_ref(),
            BIN.as_ref(),
            "permute".as_ref(),
            "--perm".as_ref(),
            "0".as_ref(),
            file.as_os_str(),
            dir.join("out.npy").into_os_string().leak() as &std::ffi::OsStr,
        ];
        let out = Command::new("sh")
            .args(args)
            .envs(NO_GPU.iter().copied())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(
            out.status.code(),
            Some(1),
            "{file:?} ({:?}): {stderr}",
            out.status
        );
        assert!(
            stderr.starts_with("error: ") && stderr.lines().count() == 1,
            "{stderr}"
        );
        (1, stderr)
    };
    // Claims 2^44 bytes, holds 16.
    let huge = dir.join("huge.npy");
    std::fs::write(&huge, npy_file("<f4", false, "(4398046511104,)", &[0; 16])).unwrap();
    let (_, e) = limited(&huge);
    assert!(e.contains("17592186044416") && e.contains(" 16"), "{e}");
    // 2^61 elements of 8 bytes: more bytes than a u64 counts.
    let overflow = dir.join("overflow.npy");
    std::fs::write(
        &overflow,
        npy_file("<f8", false, "(2305843009213693952,)", &[0; 16]),
    )
    .unwrap();
    let (_, e) = limited(&overflow);
    assert!(
        e.contains("2305843009213693952") && e.contains("too large"),
        "{e}"
    );
    // Claims 16 bytes, holds 8.
    let short = dir.join("short.npy");
    std::fs::write(&short, npy_file("<f4", false, "(4,)", &[0; 8])).unwrap();
    let (_, e) = limited(&short);
    assert!(e.contains("16") && e.contains(" 8"), "{e}");
    // Claims 4 bytes, followed by 4 GiB (a sparse file: no disk space used).
    let long = dir.join("long.npy");
    std::fs::write(&long, npy_file("<f4", false, "(1,)", &[0; 4])).unwrap();
    let f = std::fs::OpenOptions::new().write(true).open(&long).unwrap();
    let len = f.metadata().unwrap().len();
    f.set_len(len + (4 << 30)).unwrap();
    drop(f);
    let (_, e) = limited(&long);
    assert!(
        e.contains(" 4 ") && e.contains(&(4u64 + (4 << 30)).to_string()),
        "{e}"
    );
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn a_missing_output_folder_is_an_error_before_any_gpu_work() {
    let dir = temp_dir("missing-folder");
    let input = dir.join("in.npy");
    std::fs::write(&input, npy_file("<u4", false, "(3, 4)", &iota_u32(12))).unwrap();
    let missing = dir.join("no/such/folder/out.npy");
    let args = [
        "permute".as_ref(),
        "--perm".as_ref(),
        "1,0".as_ref(),
        input.as_os_str(),
        missing.as_os_str(),
    ];
    let (code, stderr) = run(&args, NO_GPU);
    assert_eq!(code, 1);
    assert!(
        stderr.contains("no/such/folder") && stderr.contains("does not exist"),
        "{stderr}"
    );
    // A folder as the output.
    let args = [
        "permute".as_ref(),
        "--perm".as_ref(),
        "1,0".as_ref(),
        input.as_os_str(),
        dir.as_os_str(),
    ];
    let (code, stderr) = run(&args, NO_GPU);
    assert_eq!(code, 1);
    assert!(stderr.contains("is a folder"), "{stderr}");
    // The benchmark's reports, before any case runs.
    for flag in ["--json", "--plot"] {
        let args = ["bench".as_ref(), flag.as_ref(), missing.as_os_str()];
        let (code, stderr) = run(&args, NO_GPU);
        assert_eq!(code, 1);
        assert!(
            stderr.contains("no/such/folder") && stderr.contains("does not exist"),
            "{stderr}"
        );
    }
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn permuting_a_file_onto_itself_gives_the_transpose() {
    if common::gpu().is_none() {
        return;
    }
    let dir = temp_dir("in-place");
    let a = dir.join("a.npy");
    std::fs::write(&a, npy_file("<u4", false, "(5, 7)", &iota_u32(35))).unwrap();
    for _ in 0..2 {
        let args = [
            "permute".as_ref(),
            "--check".as_ref(),
            "--perm".as_ref(),
            "1,0".as_ref(),
            a.as_os_str(),
            a.as_os_str(),
        ];
        let (code, stderr) = run(&args, &[]);
        assert_eq!(code, 0, "{stderr}");
    }
    // Twice transposed: the original again. Once more: numpy's transpose.
    let args = [
        "permute".as_ref(),
        "--perm".as_ref(),
        "1,0".as_ref(),
        a.as_os_str(),
        a.as_os_str(),
    ];
    assert_eq!(run(&args, &[]).0, 0);
    let report = python(
        "import sys, numpy as np\n\
         b = np.load(sys.argv[1] + '/a.npy')\n\
         assert b.dtype == np.uint32 and np.array_equal(b, np.arange(35, dtype=np.uint32).reshape(5, 7).T), b\n\
         print('transposed')",
        &dir,
    );
    assert!(report.contains("transposed"));
    // Nothing left behind but the file itself.
    let names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["a.npy"]);
    std::fs::remove_dir_all(dir).ok();
}

/// The output cannot be written in full (a file size limit, as on a full disk): the run
/// fails after the GPU work, and the file that was there before is left as it was.
#[test]
fn a_failed_write_leaves_the_existing_output_untouched() {
    if common::gpu().is_none() {
        return;
    }
    let dir = temp_dir("failed-write");
    let input = dir.join("in.npy");
    std::fs::write(&input, npy_file("<u4", false, "(64, 64)", &iota_u32(4096))).unwrap();
    let output = dir.join("out.npy");
    let before = b"precious: the result of an earlier run".repeat(10);
    std::fs::write(&output, &before).unwrap();
    // 4 blocks of 512 bytes at most per file; SIGXFSZ ignored, so writes fail with EFBIG.
    let out = Command::new("sh")
        .args(["-c", "trap '' XFSZ; ulimit -f 4; exec \"$0\" \"$@\""])
        .arg(BIN)
        .args(["permute", "--perm", "1,0"])
        .arg(&input)
        .arg(&output)
        .env("MESA_SHADER_CACHE_DISABLE", "true")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.starts_with("error: cannot write"), "{stderr}");
    assert_eq!(std::fs::read(&output).unwrap(), before);
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    names.sort();
    assert_eq!(names, ["in.npy", "out.npy"], "temporary file left behind");
    std::fs::remove_dir_all(dir).ok();
}

/// Peak resident memory (MiB) of the tool over `args`, measured by python's getrusage.
fn peak_rss_mib(args: &[&std::ffi::OsStr]) -> u64 {
    let out = Command::new("python3")
        .args([
            "-c",
            "import resource, subprocess, sys\n\
             r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL)\n\
             assert r.returncode == 0, r.returncode\n\
             print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024)",
            BIN,
        ])
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().parse().unwrap()
}

/// The tool holds few copies of a tensor. On top of a tiny run's footprint, a 64 MiB
/// permute may use 5 copies, with or without `--check`: the device's input, output and
/// readback buffers and the upload's staging memory, all host memory on lavapipe, and the
/// host input (freed once uploaded without `--check`) or the result. With `--check`, the
/// reference is made once the device buffers are freed. Before: 6 and 11 copies.
#[test]
fn host_memory_stays_within_a_few_copies_of_the_tensor() {
    if common::gpu().is_none() {
        return;
    }
    let dir = temp_dir("memory");
    let (small, big, out) = (
        dir.join("small.npy"),
        dir.join("big.npy"),
        dir.join("out.npy"),
    );
    std::fs::write(&small, npy_file("<u4", false, "(4, 4)", &iota_u32(16))).unwrap();
    std::fs::write(
        &big,
        npy_file("<u4", false, "(4096, 4096)", &iota_u32(4096 * 4096)),
    )
    .unwrap();
    let perm = ["permute".as_ref(), "--perm".as_ref(), "1,0".as_ref()];
    let baseline = peak_rss_mib(&[&perm[..], &[small.as_os_str(), out.as_os_str()]].concat());
    let plain = peak_rss_mib(&[&perm[..], &[big.as_os_str(), out.as_os_str()]].concat());
    let checked = peak_rss_mib(
        &[
            &perm[..],
            &["--check".as_ref(), big.as_os_str(), out.as_os_str()],
        ]
        .concat(),
    );
    eprintln!(
        "peak RSS: baseline {baseline} MiB, 64 MiB permute {plain} MiB, with --check {checked} MiB"
    );
    assert!(
        plain - baseline <= 5 * 64 + 32,
        "without --check: {plain} MiB over {baseline}"
    );
    assert!(
        checked - baseline <= 5 * 64 + 32,
        "with --check: {checked} MiB over {baseline}"
    );
    std::fs::remove_dir_all(dir).ok();
}

/// stdout closed by its reader (`wgpu-permute plan ... | head -1`): no panic, and the
/// command still does its work.
#[test]
fn a_closed_stdout_is_not_a_crash() {
    let out = Command::new("python3")
        .args([
            "-c",
            "import os, subprocess, sys\n\
             r, w = os.pipe()\n\
             os.close(r)\n\
             p = subprocess.run(sys.argv[1:], stdout=w, stderr=subprocess.PIPE)\n\
             print(p.returncode, p.stderr.decode())",
            BIN,
            "plan",
            "--shape",
            "8,512,16,64",
            "--perm",
            "0,2,1,3",
            "--no-device",
        ])
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(report.trim(), "0", "exit code and stderr: {report}");
}

#[test]
fn model_reports_each_kernel_as_json_and_the_padding_it_needs() {
    let model = |extra: &[&str]| -> serde_json::Value {
        let out = Command::new(BIN)
            .args(["model", "--shape", "256,256", "--perm", "1,0", "--json"])
            .args(extra)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let all = model(&[]);
    let kernels = all["kernels"].as_array().unwrap();
    let find = |name: &str| {
        kernels
            .iter()
            .find(|k| k["kernel"] == name)
            .unwrap()
            .clone()
    };
    let (tiled, generic) = (find("tiled"), find("generic"));
    assert_eq!(tiled["load_efficiency"], 1.0);
    assert_eq!(tiled["store_efficiency"], 1.0);
    assert_eq!(tiled["bank_conflict_ways"], 1);
    assert_eq!(generic["bank_conflict_ways"], 1);
    assert!(
        generic["load_efficiency"].as_f64().unwrap() < 0.2,
        "{generic}"
    );
    assert_eq!(all["chosen"], "tiled");
    assert_eq!(all["bytes_moved"], 2 * 256 * 256 * 4);
    let unpadded = model(&["--kernel", "tiled", "--no-padding"]);
    let ways = unpadded["kernels"][0]["bank_conflict_ways"]
        .as_u64()
        .unwrap();
    assert!(ways >= 16, "{unpadded}");
}

#[test]
fn plan_quotes_the_model_for_its_choice() {
    let plan = |extra: &[&str], env: &[(&str, &str)]| -> String {
        let out = Command::new(BIN)
            .args(["plan", "--shape", "512,384", "--perm", "1,0"])
            .args(extra)
            .envs(env.iter().copied())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    // For a GPU, the model chooses and its figures are the reason.
    let gpu = plan(&["--no-device"], &[]);
    assert!(gpu.contains("kernel tiled"), "{gpu}");
    assert!(
        gpu.contains("modelled: tiled: loads 1.00, stores 1.00"),
        "{gpu}"
    );
    assert!(gpu.contains("modelled: generic"), "{gpu}");
    // On the test adapter its own choice stands, and the model is quoted for it.
    let here = plan(&[], &[]);
    assert!(here.contains("modelled on GPUs:"), "{here}");
    // Without any adapter, --no-device still plans, and says why nothing is modelled.
    let none = plan(&["--no-device"], NO_GPU);
    assert!(
        none.contains("no adapter to trace the memory model on"),
        "{none}"
    );
    assert!(none.contains("kernel tiled"), "{none}");
}
