//! Views against numpy itself: `tests/numpy_views.py` makes views the way numpy users do
//! (`as_strided` with strides of any sign and 0, slicing with steps of either sign,
//! transposes, `broadcast_to`, `np.pad` with constant values, padded channel blocks, and
//! assignment into a strided window of a larger array), with random bytes and a fixed seed.
//! For each it gives the base array's bytes, the view as numpy holds it (shape, strides and
//! offset read from numpy's own `strides` and data pointers; np.pad's source ranges) and
//! numpy's bytes of the result. Both the CPU reference and the GPU must give those bytes.
//! The `pad-empty` and `pad-window` cases are regressions of bugs this test found.

mod common;

use std::process::Command;
use std::time::Instant;

use wgpu_permute::{Bound, PermuteError, Relayout, View, reference};

/// Set to `1` to skip the comparison on a machine without python3 or numpy.
const SKIP_VAR: &str = "WGPU_PERMUTE_SKIP_PYTHON";

/// The generator, run as a script.
const SCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/numpy_views.py");

/// One view of numpy's: the base array's bytes, the view over them, np.pad's fill value
/// (one element's bytes, empty without bounds) and numpy's bytes of the result.
struct Case {
    name: String,
    elem: usize,
    src: Vec<u8>,
    view: View,
    fill: Vec<u8>,
    want: Vec<u8>,
}

fn hex(text: &str) -> Result<Vec<u8>, String> {
    if !text.len().is_multiple_of(2) {
        return Err(format!("odd hex length {}", text.len()));
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).map_err(|e| e.to_string()))
        .collect()
}

fn list<T: std::str::FromStr>(text: &str) -> Result<Vec<T>, String> {
    text.split(',')
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().map_err(|_| format!("bad number {s:?}")))
        .collect()
}

/// Parses `name;itemsize;source;shape;strides;offset;bounds;fill;dst_strides;expected`.
fn parse(line: &str) -> Result<Case, String> {
    let f: Vec<&str> = line.split(';').collect();
    let [
        name,
        elem,
        src,
        shape,
        strides,
        offset,
        bounds,
        fill,
        dst,
        want,
    ] = f[..]
    else {
        return Err(format!("{} fields", f.len()));
    };
    let bounds = bounds
        .split('/')
        .filter(|b| !b.is_empty())
        .map(|b| -> Result<Bound, String> {
            let [dims, lo, hi] = b.split(':').collect::<Vec<_>>()[..] else {
                return Err(format!("bad bound {b:?}"));
            };
            Ok(Bound {
                dims: dims
                    .split('.')
                    .map(|d| d.parse().map_err(|_| format!("bad dim {d:?}")))
                    .collect::<Result<_, _>>()?,
                valid: lo.parse().map_err(|_| "bad lo")?..hi.parse().map_err(|_| "bad hi")?,
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Case {
        name: name.to_string(),
        elem: elem.parse().map_err(|_| format!("bad itemsize {elem:?}"))?,
        src: hex(src)?,
        view: View {
            shape: list(shape)?,
            strides: list(strides)?,
            offset: offset
                .parse()
                .map_err(|_| format!("bad offset {offset:?}"))?,
            bounds,
            dst_strides: if dst == "-" { None } else { Some(list(dst)?) },
        },
        fill: hex(fill)?,
        want: hex(want)?,
    })
}

/// numpy's cases, or why there are none (python3 or numpy missing, the script failing).
fn numpy_cases() -> Result<Vec<Case>, String> {
    let output = Command::new("python3")
        .arg(SCRIPT)
        .output()
        .map_err(|e| format!("cannot run python3: {e}"))?;
    let text = String::from_utf8_lossy(&output.stdout);
    if let Some(why) = text.strip_prefix("missing;") {
        return Err(format!("python3 lacks numpy: {}", why.trim()));
    }
    if !output.status.success() {
        return Err(format!(
            "python3 {SCRIPT} failed ({}): {}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    text.lines()
        .enumerate()
        .map(|(i, line)| {
            parse(line).map_err(|e| format!("line {} of {SCRIPT}'s output: {e}", i + 1))
        })
        .collect()
}

/// Where `got` first differs from numpy's `want`, if it does.
fn difference(case: &Case, got: &[u8]) -> Option<String> {
    if got == case.want {
        return None;
    }
    if got.len() != case.want.len() {
        return Some(format!(
            "{} bytes, numpy has {}",
            got.len(),
            case.want.len()
        ));
    }
    let first = got.iter().zip(&case.want).position(|(a, b)| a != b)?;
    let at = first / case.elem * case.elem;
    let bad = (0..got.len() / case.elem)
        .filter(|&i| got[i * case.elem..][..case.elem] != case.want[i * case.elem..][..case.elem])
        .count();
    Some(format!(
        "{bad} of {} elements differ, first element {}: got {:02x?}, numpy {:02x?}",
        got.len() / case.elem,
        first / case.elem,
        &got[at..at + case.elem],
        &case.want[at..at + case.elem]
    ))
}

#[test]
fn views_match_numpy() {
    let cases = match numpy_cases() {
        Ok(cases) => cases,
        Err(why) if std::env::var(SKIP_VAR).is_ok_and(|v| v == "1") => {
            eprintln!("skipped: {SKIP_VAR}=1 is set and {why}; the numpy comparison did not run");
            return;
        }
        Err(why) => panic!(
            "the numpy comparison needs python3 with numpy ({why}): pip install numpy, or set \
             {SKIP_VAR}=1 to skip it"
        ),
    };

    // The generator covers what it claims (so a change to it cannot quietly thin it out).
    let views = || cases.iter().map(|c| &c.view);
    let has = |what: &str, n: usize| assert!(n > 0, "numpy gave no case with {what}");
    assert!(cases.len() >= 200, "only {} cases", cases.len());
    for elem in [1, 2, 4, 8, 16] {
        has(
            &format!("{elem}-byte elements"),
            cases.iter().filter(|c| c.elem == elem).count(),
        );
    }
    has(
        "a negative stride",
        views().filter(|v| v.strides.iter().any(|&s| s < 0)).count(),
    );
    has(
        "a broadcast dim",
        views()
            .filter(|v| {
                v.shape
                    .iter()
                    .zip(&v.strides)
                    .any(|(&n, &s)| n > 1 && s == 0)
            })
            .count(),
    );
    has("padding", views().filter(|v| !v.bounds.is_empty()).count());
    has(
        "padding before the source",
        views().filter(|v| v.offset < 0).count(),
    );
    has(
        "a split bound",
        views()
            .filter(|v| v.bounds.iter().any(|b| b.dims.len() > 1))
            .count(),
    );
    has(
        "a strided output",
        views().filter(|v| v.dst_strides.is_some()).count(),
    );
    has(
        "a strided output of 8/16-bit data the GPU takes",
        cases
            .iter()
            .filter(|c| c.name.contains("-words") && c.elem < 4)
            .count(),
    );
    has("an empty view", views().filter(|v| v.is_empty()).count());
    has("rank 0", views().filter(|v| v.shape.is_empty()).count());

    let gpu = common::gpu();
    let start = Instant::now();
    let mut failures = Vec::new();
    let mut refused = 0;
    for case in &cases {
        let v = &case.view;
        let dst_len = case.want.len() / case.elem;
        let mut fail = |who: &str, why: String| {
            failures.push(format!("{} ({who}): {why}\n  view: {v:?}", case.name));
        };
        match reference::materialize_bytes(&case.src, v, case.elem, &case.fill, dst_len) {
            Ok(got) => {
                if let Some(why) = difference(case, &got) {
                    fail("reference", why);
                }
            }
            Err(e) => fail("reference", format!("refused: {e}")),
        }
        let Some(p) = gpu else { continue };
        let ran = Relayout::view(v.clone(), case.src.len() / case.elem, case.elem)
            .and_then(|op| p.prepare(&op.with_fill(&case.fill)))
            .and_then(|op| Ok((p.run(&op, &case.src)?, op)));
        match ran {
            Ok((got, op)) => {
                if let Some(why) = difference(case, &got) {
                    fail("GPU", format!("{why}\n  plan: {}", op.plans()[0]));
                }
            }
            // The one refusal allowed: 8/16-bit data are written in whole 32-bit words, so
            // a strided output of such data needs word-aligned rows (the `window-words`
            // cases are chosen so; the others are random).
            Err(PermuteError::InvalidView(why))
                if case.elem < 4
                    && v.dst_strides.is_some()
                    && why.contains("whole 32-bit words")
                    && !case.name.contains("-words") =>
            {
                refused += 1;
            }
            Err(e) => fail("GPU", format!("refused: {e}")),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} numpy views fail:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
    let checked = match gpu {
        Some(_) => format!(
            "reference and GPU; the GPU refused {refused} strided outputs of 8/16-bit data \
             whose rows are not whole words"
        ),
        None => "reference only".into(),
    };
    eprintln!(
        "{} numpy views match ({checked}) in {:.2?}",
        cases.len(),
        start.elapsed()
    );
}
