//! `wgpu-permute rearrange` end to end: python writes arrays of many dtypes and
//! layouts, the tool rearranges them, python checks each with `einops.rearrange`.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::{self, npy_file};

const BIN: &str = env!("CARGO_BIN_EXE_wgpu-permute");

/// Set to `1` to skip the tests that need python3 with numpy and einops.
const SKIP_VAR: &str = "WGPU_PERMUTE_SKIP_PYTHON";

/// Writes the arrays and a manifest of `name|pattern|axes` lines (axes as `h=2 w=3`).
const MAKE: &str = r#"
import sys
try:
    import numpy as np, einops
except ImportError as e:
    print("missing;" + str(e))
    sys.exit(0)
d = sys.argv[1]
rng = np.random.default_rng(11)
cases = []
def array(dt, shape):
    n = int(np.prod(shape))
    if dt == "?":
        a = rng.integers(0, 2, n).astype(bool)
    elif dt.lstrip("<>").startswith("c"):
        a = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(dt)
    elif dt.lstrip("<>").startswith("f"):
        a = rng.standard_normal(n).astype(dt)
    else:
        a = rng.integers(0, 100, n).astype(dt)
    return a.reshape(shape)
def add(name, a, pattern, extra="", want=None, **axes):
    np.save(f"{d}/{name}.npy", a)
    if want is not None:
        np.save(f"{d}/{name}.want.npy", want)
    cases.append(f"{name}|{pattern}|{' '.join(f'{k}={v}' for k, v in axes.items())}|{extra}")
# Padding (np.pad, then einops) to a blocked layout, and cropping back (einops, then a slice).
blocked = "n (cb c) h w -> n cb h w c"
for dt, pad in [("f4", "-1.5"), ("u1", "255"), ("i2", "-7"), ("f2", "0.5"), ("f8", "2")]:
    a = array(dt, (2, 6, 3, 4))
    value = float(pad) if dt.startswith("f") else int(pad)
    grown = np.pad(a, [(0, 0), (0, 2), (0, 0), (0, 0)], constant_values=value)
    add(f"pad_{dt}", a, blocked, f"--pad {pad}", einops.rearrange(grown, blocked, c=4), c=4)
    f = np.asfortranarray(a)
    add(f"pad_fortran_{dt}", f, blocked, f"--pad {pad}", einops.rearrange(grown, blocked, c=4), c=4)
    b = array(dt, (2, 2, 3, 4, 4))
    back = "n cb h w c -> n (cb c) h w"
    add(f"crop_{dt}", b, back, "--crop 2,6,3,4", einops.rearrange(b, back)[:, :6])
be = array(">c8", (5, 3))
split = "(a b) c -> c a b"
grown = np.pad(be, [(0, 1), (0, 0)], constant_values=-2)
add("pad_bigendian_c8", be, split, "--pad -2", einops.rearrange(grown, split, b=2), b=2)
heads = ("b s (h d) -> b h s d", (2, 3, 16), {"h": 4})
nhwc = ("b c h w -> b h w c", (2, 3, 4, 5), {})
patches = ("b c (h p1) (w p2) -> b (h w) (p1 p2 c)", (2, 3, 4, 6), {"p1": 2, "p2": 3})
merge = ("b h s d -> b s (h d)", (2, 3, 4, 5), {})
unflatten = ("b (h w) c -> b c h w", (2, 12, 3), {"h": 3})
ellipsis = ("... h w -> ... w h", (2, 3, 4, 5), {})
reshape = ("a b c -> a (b c)", (3, 4, 5), {})
for dt in ["u1", "i1", "u2", "i2", "f2", "u4", "i4", "f4", "u8", "i8", "f8", "c8", "c16", "?"]:
    for i, (pattern, shape, axes) in enumerate([heads, nhwc, patches]):
        add(f"{dt.replace('?', 'b')}_{i}", array(dt, shape), pattern, **axes)
for i, (pattern, shape, axes) in enumerate([merge, unflatten, ellipsis, reshape]):
    add(f"more_f4_{i}", array("f4", shape), pattern, **axes)
    add(f"more_u1_{i}", array("u1", shape), pattern, **axes)
add("fortran_split_f4", np.asfortranarray(array("f4", (6, 4))), "(h w) c -> c h w", h=2)
add("fortran_split_i2", np.asfortranarray(array("i2", (5, 12))), "c (h w) -> w c h", w=4)
add("fortran_patches_f2", np.asfortranarray(array("f2", patches[1])), patches[0], **patches[2])
add("fortran_heads_u1", np.asfortranarray(array("u1", heads[1])), heads[0], **heads[2])
add("fortran_reshape_i4", np.asfortranarray(array("i4", (3, 4))), "a b -> (a b)")
add("bigendian_f4", array(">f4", nhwc[1]), nhwc[0])
add("bigendian_i8", array(">i8", heads[1]), heads[0], **heads[2])
add("bigendian_c8", array(">c8", patches[1]), patches[0], **patches[2])
add("fortran_bigendian_f8", np.asfortranarray(array(">f8", (4, 6))), "(a b) c -> c b a", b=2)
open(f"{d}/manifest", "w").write("\n".join(cases))
"#;

/// Checks every output against `einops.rearrange` of the numpy array.
const CHECK: &str = r#"
import sys, numpy as np, einops
d = sys.argv[1]
n = 0
for line in open(f"{d}/manifest").read().split("\n"):
    name, pattern, axes, extra = line.split("|")
    axes = {k: int(v) for k, v in (a.split("=") for a in axes.split())}
    a = np.load(f"{d}/{name}.npy")
    b = np.load(f"{d}/{name}.out.npy")
    if extra:
        want = np.load(f"{d}/{name}.want.npy")
    else:
        want = einops.rearrange(a, pattern, **axes)
    assert b.shape == want.shape, (name, b.shape, want.shape)
    assert b.dtype.newbyteorder("=") == a.dtype.newbyteorder("="), (name, b.dtype, a.dtype)
    assert np.array_equal(b, want), name
    n += 1
print(f"einops agrees on {n} arrays")
"#;

/// Runs a python script on `dir`; `None` (having said so) when python3, numpy or einops
/// is missing and the skip variable is set. Without it, a missing module fails loudly.
fn python(script: &str, dir: &Path) -> Option<String> {
    let out = Command::new("python3")
        .args(["-c", script])
        .arg(dir)
        .output();
    let why = match &out {
        Err(e) => format!("cannot run python3: {e}"),
        Ok(o) if String::from_utf8_lossy(&o.stdout).starts_with("missing;") => {
            format!(
                "python3 lacks a module: {}",
                String::from_utf8_lossy(&o.stdout).trim()
            )
        }
        Ok(o) => {
            assert!(
                o.status.success(),
                "python failed:\n{}",
                String::from_utf8_lossy(&o.stderr)
            );
            return Some(String::from_utf8_lossy(&o.stdout).into_owned());
        }
    };
    if std::env::var(SKIP_VAR).is_ok_and(|v| v == "1") {
        eprintln!("skipped: {SKIP_VAR}=1 is set and {why}; the einops round trip did not run");
        return None;
    }
    panic!(
        "this test needs python3 with numpy and einops ({why}): scripts/setup.sh installs \
             them, or set {SKIP_VAR}=1 to skip it"
    );
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "wgpu-permute-rearrange-{name}-{}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs the tool; returns (exit code, stdout, stderr). A signal or a panic fails the test.
fn run(args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
    let out = Command::new(BIN)
        .args(args)
        .envs(env.iter().copied())
        .output()
        .unwrap();
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    let code = out.status.code();
    assert!(
        matches!(code, Some(0 | 1)),
        "{args:?}: crashed ({:?}): {}",
        out.status,
        text(&out.stderr)
    );
    (code.unwrap(), text(&out.stdout), text(&out.stderr))
}

#[test]
fn einops_agrees_over_dtypes_patterns_and_layouts() {
    if common::gpu().is_none() {
        return;
    }
    let dir = temp_dir("einops");
    let Some(_) = python(MAKE, &dir) else { return };
    let manifest = std::fs::read_to_string(dir.join("manifest")).unwrap();
    let mut count = 0;
    for line in manifest.lines() {
        let [name, pattern, axes, extra] = line.split('|').collect::<Vec<_>>()[..] else {
            panic!("bad manifest line {line:?}");
        };
        let (input, output) = (
            dir.join(format!("{name}.npy")),
            dir.join(format!("{name}.out.npy")),
        );
        let mut args = vec![
            "rearrange",
            "--check",
            pattern,
            input.to_str().unwrap(),
            output.to_str().unwrap(),
        ];
        for axis in axes.split_whitespace() {
            args.extend(["--axis", axis]);
        }
        args.extend(extra.split_whitespace());
        let (code, stdout, stderr) = run(&args, &[]);
        assert_eq!(code, 0, "{name}: {stderr}");
        assert!(
            stdout.contains("check: equal to the CPU reference"),
            "{name}: {stdout}"
        );
        count += 1;
    }
    let report = python(CHECK, &dir).unwrap();
    assert!(
        report.contains(&format!("einops agrees on {count} arrays")),
        "{report}"
    );
    assert!(count >= 59, "{count}");
    std::fs::remove_dir_all(dir).ok();
}

/// No adapter can be found under this environment (no Metal on Linux): the refusals
/// below happen before any GPU work.
const NO_GPU: &[(&str, &str)] = &[("WGPU_BACKEND", "metal")];

#[test]
fn bad_input_is_refused_in_one_line_before_any_gpu_work() {
    let dir = temp_dir("errors");
    let write = |name: &str, descr: &str, data: &[u8]| {
        let path = dir.join(name);
        std::fs::write(&path, npy_file(descr, false, "(3, 4)", data)).unwrap();
        path.to_str().unwrap().to_string()
    };
    let u8_file = write("u8.npy", "|u1", &[7; 12]);
    let i8_file = write("i8.npy", "|i1", &[7; 12]);
    let f4_file = write("f4.npy", "<f4", &[0; 48]);
    let out = dir.join("out.npy");
    let out = out.to_str().unwrap();
    let missing = dir.join("no/such/out.npy");
    let split = "a (b p) -> a b p";
    let cases: &[(&[&str], &str, &str)] = &[
        (
            &["a b -> a q"],
            &u8_file,
            "axis `q` is on the right of `->`",
        ),
        (&["a b -> a"], &u8_file, "axis `b` is on the left of `->`"),
        (
            &[split, "--axis", "p=3"],
            &u8_file,
            "cannot infer axis `b`: input dim 1 of extent 4 is not a multiple of 3",
        ),
        (
            &["a b c -> c b a"],
            &u8_file,
            "the pattern's left side has 3 dims but the shape has 2",
        ),
        (
            &["a b -> b a", "--axis", "z=2"],
            &u8_file,
            "a size is given for axis `z`",
        ),
        (
            &[split, "--axis", "p"],
            &u8_file,
            "--axis \"p\" is not NAME=SIZE",
        ),
        (
            &[split, "--axis", "p=two"],
            &u8_file,
            "--axis \"p=two\" is not NAME=SIZE",
        ),
        (
            &[split, "--axis", "=2"],
            &u8_file,
            "--axis \"=2\" is not NAME=SIZE",
        ),
        (
            &[split, "--axis", "p=2", "--pad", "1.5"],
            &i8_file,
            "--pad 1.5 is not an integer (the file's dtype is int8)",
        ),
        (
            &[split, "--axis", "p=2", "--pad", "300"],
            &u8_file,
            "--pad 300 is out of range for uint8 (0 to 255)",
        ),
        (
            &[split, "--axis", "p=2", "--pad", "-1"],
            &u8_file,
            "--pad -1 is out of range for uint8 (0 to 255)",
        ),
        (
            &[split, "--axis", "p=2", "--pad", "true"],
            &f4_file,
            "--pad true is not a number (the file's dtype is float32)",
        ),
        (
            &["a b -> b a", "--crop", "4,9"],
            &f4_file,
            "output dim 1 has extent 3, so it cannot be cropped to 9",
        ),
        (
            &["a b -> b a", "--crop", "4"],
            &f4_file,
            "the crop has 1 extents for an output of 2 dims",
        ),
    ];
    for (extra, input, want) in cases {
        let mut args = vec!["rearrange", extra[0], input, out];
        args.extend(&extra[1..]);
        let (code, _, stderr) = run(&args, NO_GPU);
        assert_eq!(code, 1, "{args:?}: {stderr}");
        assert!(
            stderr.starts_with("error: ") && stderr.lines().count() == 1,
            "{args:?}: {stderr}"
        );
        assert!(stderr.contains(want), "{args:?}: {stderr}");
        assert!(!Path::new(out).exists(), "{args:?} wrote {out}");
    }
    // The output target is checked first, before the input is even read.
    let (code, _, stderr) = run(
        &[
            "rearrange",
            "a b -> b a",
            "/nonexistent.npy",
            missing.to_str().unwrap(),
        ],
        NO_GPU,
    );
    assert_eq!(code, 1);
    assert!(
        stderr.contains("does not exist") && stderr.contains("no/such"),
        "{stderr}"
    );
    std::fs::remove_dir_all(dir).ok();
}

/// `--pad -1` as people type it, on an int8 file whose pattern needs no padding: taken,
/// and the result is einops' (here a reshape: the same bytes under a new shape).
#[test]
fn a_pad_value_is_accepted_where_nothing_needs_padding() {
    if common::gpu().is_none() {
        return;
    }
    let dir = temp_dir("pad");
    let input = dir.join("i8.npy");
    let data: Vec<u8> = (0..12).map(|i| (i as i8 - 6) as u8).collect();
    std::fs::write(&input, npy_file("|i1", false, "(3, 4)", &data)).unwrap();
    let output = dir.join("out.npy");
    let (input, output) = (input.to_str().unwrap(), output.to_str().unwrap());
    for pad in [&["--pad", "-1"][..], &["--pad=-1"], &["--pad", "-128"]] {
        let mut args = vec!["rearrange", "a (b p) -> a b p", input, output];
        args.extend(["--axis", "p=2", "--check"]);
        args.extend(pad);
        let (code, stdout, stderr) = run(&args, &[]);
        assert_eq!(code, 0, "{pad:?}: {stderr}");
        assert!(
            stdout.contains("[3, 4] -> ") && stdout.contains("[3, 2, 2]"),
            "{stdout}"
        );
        let written = std::fs::read(output).unwrap();
        assert!(written.ends_with(&data), "{pad:?}");
        let header = String::from_utf8_lossy(&written[..written.len() - data.len()]);
        assert!(header.contains("'shape': (3, 2, 2"), "{header}");
        std::fs::remove_file(output).unwrap();
    }
    std::fs::remove_dir_all(dir).ok();
}
