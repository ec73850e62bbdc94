//! Fuzzes what the command-line tool does before it opens a GPU: the `.npy` reader on
//! arbitrary bytes (as a file of known length and as a stream), and the command line
//! (clap's parsing of argument vectors built from the input, then every check that runs
//! before the GPU, and the planning those arguments lead to on default limits). No GPU, no
//! files. Nothing may panic, overflow or allocate more than the input justifies. See
//! docs/FUZZING.md.
#![no_main]

use arbitrary::Arbitrary;
use clap::Parser;
use libfuzzer_sys::fuzz_target;
use wgpu_permute::plan::{self, DeviceCaps, ELEM_SIZES, Request};

#[allow(dead_code)]
#[path = "../../src/bin/wgpu-permute/args.rs"]
mod args;
#[allow(dead_code)]
#[path = "../../src/bin/wgpu-permute/convert.rs"]
mod convert;
#[allow(dead_code)]
#[path = "../../src/bin/wgpu-permute/npy.rs"]
mod npy;

/// What the argument vector is mostly made of, so that parsing gets past the flags.
#[rustfmt::skip]
const WORDS: &[&str] = &[
    "info", "plan", "permute", "bench", "--shape", "--perm", "--dtype", "--no-device",
    "--check", "--kernel", "--index", "--specialize", "--json", "--plot", "--scale", "--runs",
    "--filter", "--autotune", "copy", "generic", "tiled", "micro", "u32", "u64", "u32-pair",
    "true", "false", "f16", "c128", "bool", "f32", "16", "3", "0", "1", "2", "0,1", "1,0",
    "2,0,1", "0,2,1,3", "8,512,16,64", "in.npy", "out.npy", "--help", "--version", "",
    "rearrange", "--axis", "--pad", "h=2", "w=3", "-1", "b c h w -> b h w c",
    "(h w) c -> c h w", "b c (h p1) (w p2) -> b (h w) (p1 p2 c)", "... a -> a ...",
    "--to", "--mean", "--std", "--bias", "--channel-axis", "float16", "uint8", "bfloat16",
    "0.5,0.5,0.5", "web-suite", "--shrink",
];

#[derive(Arbitrary, Debug)]
enum Arg<'a> {
    Word(u8),
    Number(u64),
    List(Vec<u16>),
    Text(&'a str),
}

impl Arg<'_> {
    fn render(&self) -> String {
        match self {
            Arg::Word(i) => WORDS[*i as usize % WORDS.len()].to_string(),
            Arg::Number(n) => n.to_string(),
            Arg::List(v) => v.iter().map(u16::to_string).collect::<Vec<_>>().join(","),
            Arg::Text(s) => s.to_string(),
        }
    }
}

#[derive(Arbitrary, Debug)]
struct Input<'a> {
    args: Vec<Arg<'a>>,
    /// Read the file as a stream (unknown length) rather than as a file of known length.
    stream: bool,
    file: &'a [u8],
}

fuzz_target!(|input: Input| {
    let len = (!input.stream).then_some(input.file.len() as u64);
    let tensor = npy::parse(input.file, len);
    if let Ok(t) = &tensor {
        let n: usize = t.shape.iter().product();
        assert!(ELEM_SIZES.contains(&t.elem_size));
        assert_eq!(t.data.len(), n * t.elem_size);
        assert!(t.data.len() <= input.file.len());
        // Written back (C order, little-endian), it reads as the same tensor.
        let mut bytes = Vec::new();
        npy::write(&mut bytes, &t.dtype, &t.shape, &t.data).unwrap();
        let again = npy::parse(&bytes[..], Some(bytes.len() as u64)).unwrap();
        assert_eq!((&again.shape, &again.data), (&t.shape, &t.data));
        assert_eq!(again.dtype, t.dtype);
        assert!(!again.fortran_order);
    }

    let argv =
        std::iter::once("wgpu-permute".to_string()).chain(input.args.iter().map(Arg::render));
    let Ok(cli) = args::Cli::try_parse_from(argv) else {
        return;
    };
    if args::validate(&cli).is_err() {
        return;
    }
    let caps = DeviceCaps::default();
    match cli.command {
        // The memory model traces on a device, and `compare` reads files: nothing to run
        // here.
        args::Command::Info | args::Command::Model { .. } | args::Command::Compare { .. } => {}
        args::Command::Plan(args::Planned {
            shape,
            perm,
            dtype,
            force,
            ..
        })
        | args::Command::Shader(args::Planned {
            shape,
            perm,
            dtype,
            force,
            ..
        }) => {
            let elem_size = args::elem_size(&dtype).expect("validated");
            let req = Request::new(&shape, &perm, elem_size).with_options(force.options());
            if let Ok(p) = plan::plan(&req, &caps) {
                let _ = (p.to_string(), p.explain());
            }
        }
        args::Command::Permute {
            perm,
            input,
            force,
            convert,
            ..
        } => {
            let Ok(t) = tensor else { return };
            let Ok(stored) = args::stored_perm(&perm, t.shape.len(), t.fortran_order, &input)
            else {
                return;
            };
            assert!(plan::check_perm(t.shape.len(), &stored).is_ok());
            // A conversion the arguments describe is refused with a reason or plans.
            let axis = |name: &str| name.parse::<usize>().map_err(|e| e.to_string());
            if let Ok(Some((c, _))) = convert.conversion(&t.dtype, axis) {
                let op = wgpu_permute::Relayout::permute(&t.shape, &stored, t.elem_size)
                    .and_then(|op| op.with_conversion(c));
                if let Ok(op) = op {
                    let _ = op.plan(&caps);
                }
            }
            let req = Request::new(&t.shape, &stored, t.elem_size).with_options(force.options());
            if let Ok(p) = plan::plan(&req, &caps) {
                let _ = (p.to_string(), p.explain());
            }
        }
        args::Command::Rearrange { pattern, axes, .. } => {
            let Ok(t) = tensor else { return };
            let axes: Vec<_> = axes
                .iter()
                .map(|a| args::parse_axis(a).expect("validated"))
                .collect();
            let mut shape = t.shape.clone();
            if t.fortran_order {
                shape.reverse();
            }
            let Ok(r) = wgpu_permute::rearrange::rearrange(&pattern, &shape, &axes, false) else {
                return;
            };
            let (view, perm) = args::stored_view(&r, t.fortran_order);
            assert_eq!(
                view.iter().product::<usize>(),
                t.shape.iter().product::<usize>()
            );
            assert!(plan::check_perm(view.len(), &perm).is_ok());
            let req = Request::new(&view, &perm, t.elem_size);
            if let Ok(p) = plan::plan(&req, &caps) {
                let _ = (p.to_string(), p.explain());
            }
        }
        args::Command::Bench { scale, .. } => {
            // Validated: scaling the suite cannot overflow.
            for case in wgpu_permute::bench::default_suite(scale) {
                let _ = case.bytes();
            }
        }
        args::Command::WebSuite { shrink, .. } => {
            // Parsed as at least 1: every shrunk case is still a valid operation.
            let outer = |n: usize| n / shrink as usize;
            for case in wgpu_permute::bench::default_suite_sized(&outer) {
                let _ = case.bytes();
            }
        }
    }
});
