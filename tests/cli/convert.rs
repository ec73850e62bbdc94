//! `permute --to`: every source dtype a .npy file can hold into float32, float16 and uint8,
//! and a normalised image, checked by numpy.

use std::process::Command;

use super::{BIN, common, python, temp_dir};

/// Arrays of every dtype (with NaN, infinities, signed zeros, subnormals and rounding ties
/// among the floats), and the manifest of conversions to run.
const MAKE: &str = r#"
import sys, numpy as np
d = sys.argv[1]
rng = np.random.default_rng(11)
lines = []
special = [np.nan, np.inf, -np.inf, -0.0, 0.5, 1.5, 2.5, 254.5, 255.5, -0.5, 65504.0, 65520.0,
           1e-8, 6e-8, 3e-5, 1.0 + 2.0**-11, 300.0, -300.0, 1e10]
for dt in ["u1", "i1", "u2", "i2", "u4", "i4", "f2", "f4"]:
    n = 3 * 4 * 5
    if dt.startswith("f"):
        a = np.concatenate([np.array(special), rng.standard_normal(n - len(special)) * 100])
    else:
        info = np.iinfo(dt)
        a = rng.integers(info.min, info.max, n, endpoint=True, dtype=np.int64)
    np.save(f"{d}/{dt}.npy", a.astype(dt).reshape(3, 4, 5))
    for to in ["float32", "float16", "uint8"]:
        lines.append(f"{dt} {to}")
open(f"{d}/manifest", "w").write("\n".join(lines))
img = rng.integers(0, 256, (2, 6, 5, 3), dtype=np.uint8)
np.save(f"{d}/img.npy", img)
"#;

/// numpy's casts of the transposed arrays (uint8 as clip(rint), NaN as 0), and the image's
/// normalisation within f32 rounding.
const CHECK: &str = r#"
import sys, numpy as np
d = sys.argv[1]
n = 0
for line in open(f"{d}/manifest").read().split("\n"):
    dt, to = line.split()
    a = np.load(f"{d}/{dt}.npy").transpose(2, 0, 1)
    b = np.load(f"{d}/{dt}_{to}.npy")
    assert b.dtype == np.dtype(to) and b.shape == a.shape, (dt, to, b.dtype, b.shape)
    with np.errstate(all="ignore"):
        if to == "uint8":
            y = a.astype(np.float64)
            want = np.clip(np.rint(y), 0, 255)
            want[np.isnan(y)] = 0
            want = want.astype(np.uint8)
            assert np.array_equal(b, want), (dt, to, a[b != want], b[b != want])
        else:
            want = a.astype(to)
            assert np.array_equal(b, want, equal_nan=True), (dt, to)
            assert np.array_equal(np.signbit(b), np.signbit(want)), (dt, to)
    n += 1
img = np.load(f"{d}/img.npy").transpose(0, 3, 1, 2) / 255.0
mean = np.array([0.485, 0.456, 0.406]).reshape(1, 3, 1, 1)
std = np.array([0.229, 0.224, 0.225]).reshape(1, 3, 1, 1)
got = np.load(f"{d}/img_f32.npy")
assert got.dtype == np.float32 and got.shape == (2, 3, 6, 5)
assert np.abs(got - (img - mean) / std).max() < 1e-5, np.abs(got - (img - mean) / std).max()
half = np.load(f"{d}/img_f16.npy")
assert half.dtype == np.float16 and half.shape == (2, 3, 30), half.shape
want = ((img - mean) / std).reshape(2, 3, 30)
assert np.abs(half.astype(np.float64) - want).max() < 2e-3, np.abs(half - want).max()
blocked = np.load(f"{d}/img_blocked.npy")
assert blocked.dtype == np.float16 and blocked.shape == (2, 1, 6, 5, 4), blocked.shape
raw = np.load(f"{d}/img.npy").astype(np.float16)
want = np.pad(raw, ((0, 0), (0, 0), (0, 0), (0, 1)), constant_values=-1)
assert np.array_equal(blocked, want.reshape(2, 6, 5, 1, 4).transpose(0, 3, 1, 2, 4))
print(f"numpy agrees on {n + 3} conversions")
"#;

#[test]
fn permute_to_converts_as_numpy_casts() {
    if common::gpu().is_none() {
        return;
    }
    let dir = temp_dir("convert");
    python(MAKE, &dir);
    let manifest = std::fs::read_to_string(dir.join("manifest")).unwrap();
    let run = |args: &[&str], input: &str, output: &str| {
        let out = Command::new(BIN)
            .args(["permute", "--check"])
            .args(args)
            .arg(dir.join(input))
            .arg(dir.join(output))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    for line in manifest.lines() {
        let (dt, to) = line.split_once(' ').unwrap();
        run(
            &["--perm", "2,0,1", "--to", to],
            &format!("{dt}.npy"),
            &format!("{dt}_{to}.npy"),
        );
    }
    let normalise = [
        "--perm",
        "0,3,1,2",
        "--to",
        "float32",
        "--mean",
        "0.485,0.456,0.406",
        "--std",
        "0.229,0.224,0.225",
        "--channel-axis",
        "1",
    ];
    run(&normalise, "img.npy", "img_f32.npy");
    // The same through an einops pattern, its channel axis by name, into f16 planes.
    let out = Command::new(BIN)
        .args(["rearrange", "--check", "b h w c -> b c (h w)"])
        .arg(dir.join("img.npy"))
        .arg(dir.join("img_f16.npy"))
        .args(["--to", "float16", "--mean", "0.485,0.456,0.406"])
        .args(["--std", "0.229,0.224,0.225", "--channel-axis", "c"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Padded into blocks of 4 channels, the pad given as a float16.
    let out = Command::new(BIN)
        .args(["rearrange", "--check", "b h w (cb c) -> b cb h w c"])
        .arg(dir.join("img.npy"))
        .arg(dir.join("img_blocked.npy"))
        .args(["--axis", "c=4", "--pad", "-1", "--to", "float16"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report = python(CHECK, &dir);
    assert!(
        report.contains("numpy agrees on 27 conversions"),
        "{report}"
    );
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn bad_conversions_are_one_line_errors() {
    let dir = temp_dir("convert-errors");
    python(MAKE, &dir);
    for (args, says) in [
        (&["--mean", "1", "--std", "2"][..], "need --to"),
        (&["--to", "bfloat16"], "no bfloat16"),
        (&["--to", "int16"], "float32, float16, bfloat16 or uint8"),
        (&["--to", "float16", "--mean", "0"], "go together"),
        (
            &["--to", "float16", "--mean", "0", "--std", "0"],
            "non-zero",
        ),
        (&["--to", "float16", "--scale", "1,2"], "--channel-axis"),
        (
            &["--to", "float16", "--scale", "1,2", "--channel-axis", "0"],
            "2 channel values",
        ),
        (
            &["--to", "float16", "--scale", "1", "--channel-axis", "7"],
            "does not exist",
        ),
    ] {
        let out = Command::new(BIN)
            .args(["permute", "--perm", "2,0,1"])
            .args(args)
            .arg(dir.join("f4.npy"))
            .arg(dir.join("out.npy"))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?} was accepted");
        assert!(stderr.contains(says), "{args:?}: {stderr}");
        assert_eq!(stderr.trim().lines().count(), 1, "{args:?}: {stderr}");
        assert!(!dir.join("out.npy").exists());
    }
    std::fs::remove_dir_all(dir).ok();
}

/// `plan`, `shader` and `model` take the conversion as `permute` does: the image case
/// plans on the micro kernel on a CPU adapter (the generic kernel on a GPU), says what it
/// converts, and its shader converts (`cvt`).
#[test]
fn plan_shader_and_model_take_to() {
    let image = [
        "--shape",
        "32,224,224,3",
        "--perm",
        "0,3,1,2",
        "--dtype",
        "u8",
        "--to",
        "float32",
        "--mean",
        "0.485,0.456,0.406",
        "--std",
        "0.229,0.224,0.225",
        "--channel-axis",
        "1",
    ];
    let run = |command: &str, extra: &[&str]| {
        let out = Command::new(BIN)
            .arg(command)
            .args(image)
            .args(extra)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(out.status.success(), "{command}: {stderr}");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let gpu = run("plan", &["--no-device"]);
    for part in [
        "4816896 bytes read and 19267584 written",
        "converted from uint8 to float32 in one pass",
        "kernel tiled",
    ] {
        assert!(gpu.contains(part), "{gpu}");
    }
    if common::gpu().is_none() {
        return;
    }
    let cpu = run("plan", &[]);
    assert!(cpu.contains("kernel micro (16x3 strip blocks"), "{cpu}");
    let wgsl = run("shader", &[]);
    assert!(
        wgsl.contains("fn cvt(bits: u32, scale: f32, bias: f32)"),
        "{wgsl}"
    );
    let model = run("model", &[]);
    assert!(
        model.contains("converted from uint8 to float32: 24084480 bytes moved"),
        "{model}"
    );
    let out = Command::new(BIN)
        .args(["plan", "--shape", "4,4", "--perm", "1,0", "--dtype", "f64"])
        .args(["--to", "float16"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && stderr.contains("not a type conversions read"),
        "{stderr}"
    );
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
}
