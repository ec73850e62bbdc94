//! Host memory, a closed stdout, and what `model` and `plan` report.

use super::*;

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
