//! The planner against einops itself. One python3 process runs `einops.rearrange` on
//! `numpy.arange` for every case (cases in as JSON on stdin, one answer line per case out);
//! each result is compared element by element with what the [`Rearrangement`] implies, and
//! each error with an error from einops.

use std::io::Write;
use std::process::{Command, Stdio};

use super::*;

/// Set to `1` to skip the comparison on a machine without python3, numpy or einops.
const SKIP_VAR: &str = "WGPU_PERMUTE_SKIP_PYTHON";

type Sizes<'a> = &'a [(&'a str, usize)];

/// Cases einops and the planner must both accept.
const GOOD: &[(&str, &[usize], Sizes)] = &[
    ("b c h w -> b h w c", &[2, 3, 4, 5], &[]),
    ("b s (h d) -> b h s d", &[2, 3, 16], &[("h", 8)]),
    ("b (h w) c -> b c h w", &[2, 64, 3], &[("h", 32)]),
    ("b h s d -> b s (h d)", &[2, 8, 3, 2], &[]),
    ("... h w -> ... w h", &[2, 3, 4, 5], &[]),
    ("b c h w -> b (c h w)", &[2, 3, 4, 5], &[]),
    (
        "b c (h p1) (w p2) -> b (h w) (p1 p2 c)",
        &[2, 3, 8, 6],
        &[("p1", 2), ("p2", 2)],
    ),
    ("b 1 c -> b c", &[2, 1, 3], &[]),
    ("b c -> b 1 c", &[2, 3], &[]),
    ("() h w -> h w", &[1, 4, 5], &[]),
    ("a b c -> a b c", &[2, 3, 4], &[]),
    ("a b -> a b", &[2, 3], &[("a", 2), ("b", 3)]),
    ("... -> ...", &[], &[]),
    ("... -> ...", &[3, 2], &[]),
    ("a ... -> ... a", &[2, 3, 4], &[]),
    ("a ... -> ... a", &[2], &[]),
    ("a ... -> (... a)", &[2, 3, 4], &[]),
    ("... -> (...)", &[], &[]),
    ("... -> (...)", &[2, 3], &[]),
    ("b ... c -> b c ...", &[2, 3, 4, 5], &[]),
    ("... (h w) -> ... w h", &[3, 4], &[("h", 2)]),
    ("(h w) ... -> w ... h", &[6, 2, 2], &[("w", 2)]),
    ("a ... b -> (b ...) a", &[2, 3, 4, 5], &[]),
    (" -> ", &[], &[]),
    (" -> 1", &[], &[]),
    ("a -> a 1 ()", &[2], &[]),
    ("01 a -> a", &[1, 3], &[]),
    ("(1 a) -> a", &[3], &[]),
    ("(1) a -> a", &[1, 3], &[]),
    ("a b -> (a 1 b)", &[2, 3], &[]),
    ("a (b 1) -> a b", &[2, 3], &[]),
    ("a(b)->a b", &[2, 3], &[]),
    ("a b ->a b()", &[2, 3], &[]),
    ("(a b) -> b a", &[0], &[("a", 2)]),
    ("(a b) -> a b", &[0], &[("a", 0), ("b", 5)]),
    ("a b -> b a", &[0, 3], &[]),
    ("for a__b A1 -> A1 (a__b for)", &[2, 3, 4], &[]),
    ("(a b) (c d) -> (d a) (b c)", &[4, 6], &[("a", 2), ("c", 3)]),
];

/// Padded cases: einops runs on the input padded with -1 to the planned extents.
const PADDED: &[(&str, &[usize], Sizes)] = &[
    ("n (cb c) h w -> n cb h w c", &[2, 6, 5, 5], &[("c", 4)]),
    ("(a b) -> a b", &[6], &[("a", 2), ("b", 4)]),
    ("(a b) c -> c (b a)", &[4, 2], &[("b", 3)]),
    ("a -> a", &[3], &[("a", 5)]),
    ("... (c k) -> k ... c", &[2, 3, 5], &[("k", 4)]),
    ("(a b) (c d) -> d b c a", &[5, 7], &[("a", 2), ("d", 3)]),
];

/// Cases einops and the planner must both refuse (none gives a size twice, which Python
/// keyword arguments cannot say).
const BAD: &[(&str, &[usize], Sizes)] = &[
    ("a b", &[2, 3], &[]),
    ("a -> a -> a", &[2], &[]),
    ("a\tb -> b a", &[2, 3], &[]),
    ("_a -> _a", &[2], &[]),
    ("a_ -> a_", &[2], &[]),
    ("1a -> 1a", &[2], &[]),
    ("a...b -> a...b", &[2], &[]),
    ("a... -> a...", &[2], &[]),
    ("(a ...) -> a ...", &[2], &[]),
    ("(...) -> ...", &[2], &[]),
    ("a 2 -> a", &[3, 2], &[]),
    ("a 0 -> a", &[3, 2], &[]),
    ("((a)) -> a", &[2], &[]),
    ("(a -> a", &[2], &[]),
    ("a) -> a", &[2], &[]),
    ("a . -> a", &[2], &[]),
    (".... -> ....", &[2], &[]),
    ("... ... -> ... ...", &[2], &[]),
    ("a - b -> a b", &[2, 3], &[]),
    ("a -> a ...", &[2], &[]),
    ("a ... -> a", &[2], &[]),
    ("a -> b", &[2], &[]),
    ("a b -> a", &[2, 3], &[]),
    ("a a -> a a", &[2, 2], &[]),
    ("a -> a a", &[2], &[]),
    ("a -> a", &[2], &[("c", 1)]),
    ("(a b) -> a b", &[6], &[]),
    ("(a b) -> a b", &[6], &[("a", 4)]),
    ("a b -> a b", &[2, 3], &[("a", 3)]),
    ("(a b) -> a b", &[6], &[("a", 2), ("b", 2)]),
    ("(a b) -> a b", &[6], &[("a", 2), ("b", 4)]),
    ("a b -> a b", &[2], &[]),
    ("a b -> a b", &[2, 3, 4], &[]),
    ("a b ... -> a b ...", &[2], &[]),
    ("a 1 -> a", &[2, 3], &[]),
    ("() a -> a", &[0, 2], &[]),
    ("(a b) -> a b", &[0], &[("a", 0)]),
    ("(a b) -> a b", &[4], &[("a", 0)]),
    ("a -> a", &[3], &[("a", 0)]),
];

struct Case {
    pattern: String,
    shape: Vec<usize>,
    axes: Vec<(String, usize)>,
    pad: bool,
}

impl Case {
    fn new(&(pattern, shape, axes): &(&str, &[usize], Sizes), pad: bool) -> Self {
        let axes = axes.iter().map(|&(n, s)| (n.to_string(), s)).collect();
        let (pattern, shape) = (pattern.to_string(), shape.to_vec());
        Case {
            pattern,
            shape,
            axes,
            pad,
        }
    }

    fn run(&self) -> Result<Rearrangement, RearrangeError> {
        let axes: Vec<(&str, usize)> = self.axes.iter().map(|(n, s)| (n.as_str(), *s)).collect();
        rearrange(&self.pattern, &self.shape, &axes, self.pad)
    }
}

/// What `r` makes of `arange` over the input, flattened: each input element is its
/// row-major index, and a padded position is -1.
fn apply(r: &Rearrangement) -> Vec<i64> {
    let out_axes: Vec<usize> = r.perm.iter().map(|&a| r.split_shape[a]).collect();
    let mut split_index = vec![0; r.split_shape.len()];
    let value = |split_index: &[usize]| {
        let mut value = 0;
        for d in &r.input_dims {
            let at = d
                .axes
                .clone()
                .fold(0, |at, a| at * r.split_shape[a] + split_index[a]);
            if at >= d.extent {
                return -1;
            }
            value = value * d.extent as i64 + at as i64;
        }
        value
    };
    (0..out_axes.iter().product())
        .map(|flat: usize| {
            let mut rest = flat;
            for (i, &extent) in out_axes.iter().enumerate().rev() {
                split_index[r.perm[i]] = rest % extent;
                rest /= extent;
            }
            value(&split_index)
        })
        .collect()
}

/// xorshift64: the random cases are the same on every run.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }

    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            items.swap(i, self.below(i + 1));
        }
    }

    /// `items` cut into consecutive non-empty groups.
    fn groups<'a>(&mut self, items: &[&'a str]) -> Vec<Vec<&'a str>> {
        let mut groups: Vec<Vec<&str>> = Vec::new();
        for &item in items {
            match groups.last_mut() {
                Some(last) if self.chance(40) => last.push(item),
                _ => groups.push(vec![item]),
            }
        }
        groups
    }
}

fn render(group: &[&str], parens: bool) -> String {
    match parens {
        true => format!("({})", group.join(" ")),
        false => group.join(" "),
    }
}

/// A random well-formed case (axes of extent 0 to 3, units, ellipsis in every place einops
/// allows), then in a third of the cases one random change to its pattern, shape or sizes,
/// so that both results and errors get compared.
fn random_case(rng: &mut Rng) -> Case {
    let mut names = ["a", "b", "c", "d", "e"][..rng.below(6)].to_vec();
    rng.shuffle(&mut names);
    let sizes: Vec<usize> = names
        .iter()
        .map(|_| if rng.chance(5) { 0 } else { 1 + rng.below(3) })
        .collect();
    let size_of = |name: &str| sizes[names.iter().position(|&n| n == name).unwrap_or(0)];
    let ellipsis = rng.chance(40);

    // The left side as (text, input dims) elements.
    let mut left: Vec<(String, Vec<usize>)> = Vec::new();
    let mut axes = Vec::new();
    for group in rng.groups(&names) {
        let unknown = if group.len() > 1 && rng.chance(15) {
            group.len()
        } else {
            rng.below(group.len())
        };
        for (i, &name) in group.iter().enumerate() {
            if i != unknown && (group.len() > 1 || rng.chance(20)) {
                axes.push((name.to_string(), size_of(name)));
            }
        }
        let dim = group.iter().map(|&n| size_of(n)).product();
        left.push((render(&group, group.len() > 1 || rng.chance(20)), vec![dim]));
    }
    if rng.chance(20) {
        let unit = if rng.chance(50) { "1" } else { "()" };
        left.insert(rng.below(left.len() + 1), (unit.into(), vec![1]));
    }
    if ellipsis {
        let dims = (0..rng.below(3)).map(|_| 1 + rng.below(3)).collect();
        left.insert(rng.below(left.len() + 1), ("...".into(), dims));
    }

    rng.shuffle(&mut names);
    let mut right: Vec<String> = Vec::new();
    let mut groups = rng.groups(&names);
    if ellipsis && !groups.is_empty() && rng.chance(30) {
        let group = rng.below(groups.len());
        let at = rng.below(groups[group].len() + 1);
        groups[group].insert(at, "...");
    } else if ellipsis {
        let at = rng.below(groups.len() + 1);
        groups.insert(at, vec!["..."]);
    }
    for group in &groups {
        right.push(render(group, group.len() > 1 || rng.chance(20)));
    }
    if rng.chance(20) {
        let unit = if rng.chance(50) { "1" } else { "()" };
        right.insert(rng.below(right.len() + 1), unit.into());
    }

    let left_text: Vec<&str> = left.iter().map(|(t, _)| t.as_str()).collect();
    let mut case = Case {
        pattern: format!("{} -> {}", left_text.join(" "), right.join(" ")),
        shape: left.into_iter().flat_map(|(_, dims)| dims).collect(),
        axes,
        pad: false,
    };
    if rng.chance(33) {
        mutate(rng, &mut case);
    }
    case
}

fn mutate(rng: &mut Rng, case: &mut Case) {
    let (pattern, shape, axes) = (&mut case.pattern, &mut case.shape, &mut case.axes);
    match rng.below(6) {
        0 => {
            pattern.remove(rng.below(pattern.len()));
        }
        1 => {
            let pieces = ["a", "z", "1", "2", "(", ")", "...", " ", "()", "_", "->"];
            let piece = pieces[rng.below(pieces.len())];
            pattern.insert_str(rng.below(pattern.len() + 1), piece);
        }
        2 if !shape.is_empty() => {
            let i = rng.below(shape.len());
            shape[i] += 1;
        }
        3 if rng.chance(50) => shape.push(2),
        3 => {
            shape.pop();
        }
        4 if !axes.is_empty() => {
            let i = rng.below(axes.len());
            if rng.chance(50) {
                axes[i].1 += 1;
            } else {
                axes.remove(i);
            }
        }
        _ => axes.push(("z".into(), 2)),
    }
}

fn json_str(s: &str) -> String {
    let mut out = String::from('"');
    for c in s.chars() {
        match c {
            '"' | '\\' => out.extend(['\\', c]),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn json_dims(dims: &[usize]) -> String {
    let dims: Vec<String> = dims.iter().map(usize::to_string).collect();
    format!("[{}]", dims.join(","))
}

/// Runs every case in one process; prints `ok;<shape>;<values>` or `err;<message>` per case.
const SCRIPT: &str = r#"
import json, sys, warnings
warnings.simplefilter("ignore")
try:
    import numpy as np, einops
except ImportError as e:
    print("missing;" + ascii(str(e)))
    sys.exit(0)
for case in json.loads(sys.stdin.buffer.read().decode()):
    try:
        shape, padded = case["shape"], case["padded"]
        x = np.arange(int(np.prod(shape, dtype=np.int64))).reshape(shape)
        if padded != shape:
            y = np.full(padded, -1, dtype=x.dtype)
            y[tuple(slice(0, s) for s in shape)] = x
            x = y
        r = einops.rearrange(x, case["pattern"], **dict(case["axes"]))
        print("ok;" + ",".join(map(str, r.shape)) + ";" + ",".join(map(str, r.ravel().tolist())))
    except Exception as e:
        print("err;" + ascii(type(e).__name__ + ": " + str(e)).replace("\\n", " "))
"#;

/// einops' answer line for each case (on the input padded to `padded[i]`), or why there is
/// none (python3, numpy or einops missing).
fn einops_answers(cases: &[&Case], padded: &[Vec<usize>]) -> Result<Vec<String>, String> {
    let json: Vec<String> = cases
        .iter()
        .zip(padded)
        .map(|(case, padded)| {
            let axes: Vec<String> = case
                .axes
                .iter()
                .map(|(n, s)| format!("[{},{s}]", json_str(n)))
                .collect();
            format!(
                r#"{{"pattern":{},"shape":{},"padded":{},"axes":[{}]}}"#,
                json_str(&case.pattern),
                json_dims(&case.shape),
                json_dims(padded),
                axes.join(",")
            )
        })
        .collect();
    let mut child = Command::new("python3")
        .args(["-c", SCRIPT])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run python3: {e}"))?;
    if let Some(mut stdin) = child.stdin.take() {
        // A failed write shows as missing answers below.
        let _ = stdin.write_all(format!("[{}]", json.join(",")).as_bytes());
    }
    let output = child
        .wait_with_output()
        .map_err(|e| format!("python3 failed: {e}"))?;
    let text = String::from_utf8_lossy(&output.stdout);
    let lines: Vec<String> = text.lines().map(str::to_string).collect();
    match lines.first() {
        Some(line) if line.starts_with("missing;") => {
            Err(format!("python3 lacks a module: {line}"))
        }
        _ if lines.len() != cases.len() => Err(format!(
            "python3 answered {} of {} cases (status {}): {text}",
            lines.len(),
            cases.len(),
            output.status
        )),
        _ => Ok(lines),
    }
}

/// Why `ours` and einops' `answer` disagree, if they do.
fn disagreement(ours: &Result<Rearrangement, RearrangeError>, answer: &str) -> Option<String> {
    let parse = |text: &str| -> Vec<i64> {
        text.split(',')
            .filter(|s| !s.is_empty())
            .map(|s| s.parse().unwrap_or(i64::MIN))
            .collect()
    };
    match (ours, answer.split_once(';')) {
        (Err(_), Some(("err", _))) => None,
        (Err(e), _) => Some(format!("we refuse ({e}), einops gives {answer:.80}")),
        (Ok(r), Some(("ok", rest))) => {
            let (shape, values) = rest.split_once(';').unwrap_or((rest, ""));
            let shape: Vec<i64> = parse(shape);
            let ours: Vec<i64> = r.out_shape.iter().map(|&d| d as i64).collect();
            if shape != ours {
                return Some(format!("shape {ours:?}, einops {shape:?}"));
            }
            (apply(r) != parse(values)).then(|| format!("values differ from einops' {values:.80}"))
        }
        (Ok(r), _) => Some(format!("we give {:?}, einops {answer}", r.out_shape)),
    }
}

#[test]
fn rearrange_matches_einops() {
    let good = GOOD.iter().map(|c| Case::new(c, false));
    let padded = PADDED.iter().map(|c| Case::new(c, true));
    let bad = BAD.iter().map(|c| Case::new(c, false));
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let random: Vec<Case> = (0..600).map(|_| random_case(&mut rng)).collect();
    let fixed: Vec<Case> = good.chain(padded).collect();
    let bad: Vec<Case> = bad.collect();

    // The fixed cases are what they claim, python or not.
    for case in &fixed {
        if let Err(e) = case.run() {
            panic!("{:?} on {:?}: {e}", case.pattern, case.shape);
        }
    }
    for case in &bad {
        assert!(
            case.run().is_err(),
            "{:?} on {:?} is accepted",
            case.pattern,
            case.shape
        );
    }
    let random_ok = random.iter().filter(|c| c.run().is_ok()).count();
    assert!(
        (200..500).contains(&random_ok),
        "{random_ok} of 600 random cases pass: too uniform"
    );

    let cases: Vec<&Case> = fixed.iter().chain(&bad).chain(&random).collect();
    let results: Vec<_> = cases.iter().map(|c| c.run()).collect();
    let padded: Vec<Vec<usize>> = results
        .iter()
        .zip(&cases)
        .map(|(r, c)| match r {
            Ok(r) => r.input_dims.iter().map(|d| d.padded_extent).collect(),
            Err(_) => c.shape.clone(),
        })
        .collect();
    let answers = match einops_answers(&cases, &padded) {
        Ok(answers) => answers,
        Err(why) if std::env::var(SKIP_VAR).is_ok_and(|v| v == "1") => {
            eprintln!("skipped: {SKIP_VAR}=1 is set and {why}; the einops comparison did not run");
            return;
        }
        Err(why) => panic!(
            "the einops comparison needs python3 with numpy and einops ({why}): \
             pip install numpy einops, or set {SKIP_VAR}=1 to skip it"
        ),
    };
    let failures: Vec<String> = cases
        .iter()
        .zip(&results)
        .zip(&answers)
        .filter_map(|((case, ours), answer)| {
            let why = disagreement(ours, answer)?;
            Some(format!(
                "{:?} on {:?} with {:?}: {why}",
                case.pattern, case.shape, case.axes
            ))
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} cases differ from einops:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
    eprintln!(
        "{} cases agree with einops ({random_ok} of 600 random ones accepted)",
        cases.len()
    );
}
