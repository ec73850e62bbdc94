//! The command line, and the checks on it that need no GPU (the fuzz target
//! `fuzz/fuzz_targets/npy.rs` runs them on arbitrary arguments).

use std::path::{Path, PathBuf};

use crate::convert::ConvertArgs;
use clap::{Parser, Subcommand, ValueEnum};
use wgpu_permute::bench;
use wgpu_permute::rearrange::Rearrangement;
use wgpu_permute::{IndexMath, Kernel, Options};

#[derive(Parser, Debug)]
#[command(
    name = "wgpu-permute",
    version,
    about = "Permute (transpose) tensors on any GPU that wgpu drives"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// List adapters with the features and limits that matter for permutes.
    Info,
    /// Print the plan for a permute, and why each choice was made.
    Plan(Planned),
    /// Print the WGSL of the shader variant a permute would run (as `plan` plans it).
    Shader(Planned),
    /// Model each kernel's memory traffic on GPUs from a trace of its own accesses (runs on
    /// any adapter, lavapipe included): sector efficiency, bank conflicts, predicted times.
    Model {
        /// Input shape, e.g. 4096,4096.
        #[arg(long, value_delimiter = ',', required_unless_present = "suite")]
        shape: Vec<usize>,
        /// Output dim i is input dim perm[i], e.g. 1,0.
        #[arg(long, value_delimiter = ',', required_unless_present = "suite")]
        perm: Vec<usize>,
        /// Model every case of the benchmark suite instead, as a Markdown table of the
        /// kernel a GPU permuter chooses (with --json, every kernel's figures per case).
        #[arg(long, conflicts_with_all = ["shape", "perm", "dtype", "kernel", "to"])]
        suite: bool,
        /// Element type or its size in bytes (as for `plan`).
        #[arg(long, default_value = "f32")]
        dtype: String,
        /// Only this kernel (by default every kernel that applies).
        #[arg(long, value_enum)]
        kernel: Option<KernelArg>,
        /// Model the tiled kernel without its padding column (for comparison only).
        #[arg(long)]
        no_padding: bool,
        /// Warps of 64 lanes (AMD GCN/CDNA) instead of 32.
        #[arg(long)]
        wave64: bool,
        /// Print the figures as JSON.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        convert: ConvertArgs,
    },
    /// Permute a .npy file on the GPU and write the result as .npy.
    Permute {
        /// Output dim i is input dim perm[i], e.g. 2,0,1.
        #[arg(long, value_delimiter = ',', required = true)]
        perm: Vec<usize>,
        input: PathBuf,
        /// Written only once the result is complete (and checked, with --check); may be
        /// the input itself.
        output: PathBuf,
        /// Also compare the result with the CPU reference.
        #[arg(long)]
        check: bool,
        #[command(flatten)]
        force: Force,
        #[command(flatten)]
        convert: ConvertArgs,
    },
    /// Rearrange a .npy file with an einops pattern (one permute on the GPU) and write the
    /// result as .npy.
    Rearrange {
        /// einops' `rearrange` pattern, e.g. 'b c h w -> b h w c' or 'b (h w) c -> b c h w'.
        #[arg(allow_hyphen_values = true)]
        pattern: String,
        /// The .npy file to rearrange (any dtype `permute` takes, either storage order).
        input: PathBuf,
        /// Written only once the result is complete (and checked, with --check); may be
        /// the input itself.
        output: PathBuf,
        /// The size of an axis the pattern names, e.g. --axis h=32; repeat for more axes.
        #[arg(long = "axis", value_name = "NAME=SIZE")]
        axes: Vec<String>,
        /// Pad a split that does not divide (its inferred axis rounds up) with this value,
        /// in the output's dtype (the file's, or --to's; e.g. --pad -1): 'n (cb c) h w -> n cb h w c' --axis c=4
        /// on 6 channels gives 2 blocks, the last 2 channels filled.
        #[arg(long, value_name = "VALUE", allow_hyphen_values = true)]
        pad: Option<String>,
        /// Crop the output to this shape (the leading indices of each dim), e.g. back from
        /// blocks: 'n cb h w c -> n (cb c) h w' --crop 1,6,32,32.
        #[arg(
            long,
            value_delimiter = ',',
            value_name = "SHAPE",
            conflicts_with = "pad"
        )]
        crop: Option<Vec<usize>>,
        /// Also compare the result with the CPU reference.
        #[arg(long)]
        check: bool,
        #[command(flatten)]
        convert: ConvertArgs,
    },
    /// Run the benchmark suite: each permute, then each view, next to copies of the same
    /// (output) bytes.
    Bench {
        /// Write the results as JSON.
        #[arg(long)]
        json: Option<PathBuf>,
        /// Draw the bandwidth ratios per case as an SVG bar chart.
        #[arg(long)]
        plot: Option<PathBuf>,
        /// Multiply each case's outermost dim (for fast GPUs).
        #[arg(long, default_value_t = 1)]
        scale: usize,
        /// Timed runs per measurement (after 2 warm-ups).
        #[arg(long, default_value_t = 7)]
        runs: usize,
        /// Only the cases whose label contains this text.
        #[arg(long)]
        filter: Option<String>,
        /// Choose between kernels by timing them on first use (per shape class).
        #[arg(long)]
        autotune: bool,
        /// Instead of the suites, each permute of 1, 2 or 4-byte elements (read as uint8,
        /// float16, float32) converted to this dtype, next to the shader copy of its bytes
        /// and the two passes (permute, then convert).
        #[arg(long, value_name = "DTYPE")]
        to: Option<String>,
        #[command(flatten)]
        force: Force,
    },
    /// Put a bench run's measurements beside the memory model's predictions, case by case,
    /// as a Markdown table: what `scripts/device-check.sh` writes for docs/gpu/.
    Compare {
        /// `bench --json` output (more than one: their cases one after another).
        #[arg(long, required = true)]
        bench: Vec<PathBuf>,
        /// `model --suite --json` output.
        #[arg(long)]
        model: PathBuf,
    },
    /// Write the bench page's suite (web/suite.js): the benchmark's cases planned for
    /// WebGPU's default limits and recorded, with the checksums of their expected outputs.
    WebSuite {
        /// Where to write it (web/suite.js, or web/suite-cpu.js with --cpu).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Plan for a CPU adapter with WebGPU's limits: the suite the page runs on a
        /// browser's fallback adapter (SwiftShader).
        #[arg(long)]
        cpu: bool,
        /// Divide each case's outermost dim by this (at least 1 remains): small suites for
        /// tests and slow devices.
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
        shrink: u32,
    },
}

/// A permute to plan, as `plan` and `shader` take it.
#[derive(clap::Args, Debug)]
pub struct Planned {
    /// Input shape, e.g. 8,512,16,64.
    #[arg(long, value_delimiter = ',', required = true)]
    pub shape: Vec<usize>,
    /// Output dim i is input dim perm[i], e.g. 0,2,1,3.
    #[arg(long, value_delimiter = ',', required = true)]
    pub perm: Vec<usize>,
    /// Element type (u8, i8, u16, i16, f16, bf16, u32, i32, f32, u64, i64, f64, c64, c128)
    /// or its size in bytes.
    #[arg(long, default_value = "f32")]
    pub dtype: String,
    #[command(flatten)]
    pub force: Force,
    #[command(flatten)]
    pub convert: ConvertArgs,
    /// Plan for a GPU with the WebGPU default limits instead of the default adapter
    /// (the memory model still traces on the default adapter when there is one).
    #[arg(long)]
    pub no_device: bool,
}

/// Choices to force instead of the planner's heuristics.
#[derive(clap::Args, Debug)]
pub struct Force {
    /// Force a kernel.
    #[arg(long, value_enum)]
    kernel: Option<KernelArg>,
    /// Force the index math.
    #[arg(long, value_enum)]
    index: Option<IndexArg>,
    /// Force compiling the generic kernel for the shape (true) or not (false).
    #[arg(long)]
    specialize: Option<bool>,
    /// Force moving 8/16-byte units, conversions' 8/16-byte quads and wide micro blocks as
    /// 64-bit components (true) or 32-bit ones (false).
    #[arg(long)]
    access64: Option<bool>,
    /// Force the generic kernel's runs of 4/8-byte units to write 16 bytes at a time (true)
    /// or unit by unit (false).
    #[arg(long)]
    wide_stores: Option<bool>,
    /// Force the generic kernel's runs to walk the source and scatter (true) or walk the
    /// output and gather (false).
    #[arg(long)]
    scatter: Option<bool>,
    /// Force the generic kernel's runs to gather in tiles of the output's rows and the dim
    /// nearest in the source (true) or in output order (false).
    #[arg(long)]
    walk_tiles: Option<bool>,
    /// Force the micro kernel's runs of square blocks along the columns, neighbouring
    /// invocations along the rows (true), or along the output's rows (false).
    #[arg(long)]
    column_runs: Option<bool>,
    /// Force moving each output row with a buffer copy (true) or on the kernel (false).
    #[arg(long)]
    row_copies: Option<bool>,
}

#[derive(Clone, Copy, ValueEnum, Debug)]
pub enum KernelArg {
    Copy,
    Generic,
    Tiled,
    Micro,
}

impl KernelArg {
    pub fn kernel(self) -> Kernel {
        match self {
            KernelArg::Copy => Kernel::Copy,
            KernelArg::Generic => Kernel::Generic,
            KernelArg::Tiled => Kernel::Tiled,
            KernelArg::Micro => Kernel::Micro,
        }
    }
}

#[derive(Clone, Copy, ValueEnum, Debug)]
enum IndexArg {
    U32,
    U64,
    U32Pair,
}

impl Force {
    pub fn options(&self) -> Options {
        Options {
            kernel: self.kernel.map(KernelArg::kernel),
            index: self.index.map(|i| match i {
                IndexArg::U32 => IndexMath::U32,
                IndexArg::U64 => IndexMath::U64,
                IndexArg::U32Pair => IndexMath::U32Pair,
            }),
            binding_limit: None,
            specialize: self.specialize,
            access64: self.access64,
            wide_stores: self.wide_stores,
            scatter: self.scatter,
            walk_tiles: self.walk_tiles,
            column_runs: self.column_runs,
            row_copies: self.row_copies,
        }
    }
}

/// The checks on the arguments alone (no files, no GPU), run before anything else.
pub fn validate(cli: &Cli) -> Result<(), String> {
    match &cli.command {
        Command::Info
        | Command::Permute { .. }
        | Command::WebSuite { .. }
        | Command::Compare { .. } => Ok(()),
        Command::Rearrange { axes, .. } => axes.iter().try_for_each(|a| parse_axis(a).map(drop)),
        Command::Plan(Planned { dtype, .. })
        | Command::Shader(Planned { dtype, .. })
        | Command::Model { dtype, .. } => elem_size(dtype).map(drop),
        Command::Bench { scale, runs, .. } => check_bench(*scale, *runs),
    }
}

/// Element size for a dtype name or a byte count.
pub fn elem_size(dtype: &str) -> Result<usize, String> {
    Ok(match dtype {
        "u8" | "i8" | "bool" => 1,
        "u16" | "i16" | "f16" | "bf16" => 2,
        "u32" | "i32" | "f32" => 4,
        "u64" | "i64" | "f64" | "c64" => 8,
        "c128" => 16,
        other => other.parse().map_err(|_| {
            format!("unknown dtype {other:?}: use a name like f16 or a size in bytes")
        })?,
    })
}

/// `--scale` and `--runs` are at least 1, and every case of the suite, scaled, has a byte
/// count that fits in memory sizes.
pub fn check_bench(scale: usize, runs: usize) -> Result<(), String> {
    if scale == 0 {
        return Err("--scale must be at least 1".into());
    }
    if runs == 0 {
        return Err("--runs must be at least 1".into());
    }
    for case in bench::default_suite(1)
        .into_iter()
        .chain(bench::view_suite(1))
    {
        // The source's shape, and a view case's output shape.
        let view = case.view.map(|_| case.op.out_shape());
        for shape in std::iter::once(&case.shape[..]).chain(view) {
            let bytes = shape
                .iter()
                .skip(1)
                .try_fold(shape[0].checked_mul(scale), |n, &d| {
                    n.map(|n| n.checked_mul(d))
                })
                .flatten()
                .and_then(|n| n.checked_mul(case.op.elem_size()))
                .filter(|&n| n <= isize::MAX as usize);
            if bytes.is_none() {
                return Err(format!(
                    "--scale {scale} makes the case {} larger than memory can address",
                    case.label()
                ));
            }
        }
    }
    Ok(())
}

/// Checks `--perm` against the input's rank (with the same messages for either storage
/// order), then translates it for the stored data: a Fortran-order array is stored as its
/// transpose in C order, whose dim `rank - 1 - d` is the array's dim `d`.
pub fn stored_perm(
    perm: &[usize],
    rank: usize,
    fortran_order: bool,
    input: &Path,
) -> Result<Vec<usize>, String> {
    if perm.len() != rank {
        return Err(format!(
            "--perm has {} entries but {} has {rank} dimensions",
            perm.len(),
            input.display()
        ));
    }
    wgpu_permute::plan::check_perm(rank, perm).map_err(|e| e.to_string())?;
    Ok(if fortran_order {
        perm.iter().map(|&p| rank - 1 - p).collect()
    } else {
        perm.to_vec()
    })
}

/// Reads `--axis NAME=SIZE`. The name is checked against the pattern later, by
/// [`rearrange`](wgpu_permute::rearrange::rearrange).
pub fn parse_axis(text: &str) -> Result<(&str, usize), String> {
    text.split_once('=')
        .and_then(|(name, size)| Some((name, size.parse().ok()?)))
        .filter(|(name, _)| !name.is_empty())
        .ok_or_else(|| format!("--axis {text:?} is not NAME=SIZE with a size in digits, e.g. h=32"))
}

/// The permute of a rearrangement over the data as stored: a Fortran-order array is stored
/// as its transpose in C order, whose dim `rank - 1 - d` is the array's dim `d` with the
/// same index. So the stored dims are split in reverse order, each into its own axes in
/// their own order, and `perm` is renumbered to match: still one permute, whose C-order
/// output is the rearranged array. Returns the stored data's split shape and the perm.
pub fn stored_view(r: &Rearrangement, fortran_order: bool) -> (Vec<usize>, Vec<usize>) {
    if !fortran_order {
        return (r.split_shape.clone(), r.perm.clone());
    }
    let mut shape = Vec::with_capacity(r.split_shape.len());
    // Where each of the rearrangement's axes lands in the stored split.
    let mut stored = vec![0; r.split_shape.len()];
    for dim in r.input_dims.iter().rev() {
        for axis in dim.axes.clone() {
            stored[axis] = shape.len();
            shape.push(r.split_shape[axis]);
        }
    }
    (shape, r.perm.iter().map(|&a| stored[a]).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use wgpu_permute::rearrange::rearrange;
    use wgpu_permute::reference::permute_slice;

    #[test]
    fn axis_sizes_are_name_equals_digits() {
        assert_eq!(parse_axis("h=32"), Ok(("h", 32)));
        assert_eq!(parse_axis("p1=0"), Ok(("p1", 0)));
        for bad in ["h", "h=", "=3", "h=-1", "h=3.5", "h=x", "h = 3", ""] {
            let e = parse_axis(bad).err().unwrap();
            assert!(
                e.starts_with("--axis ") && e.contains("NAME=SIZE"),
                "{bad}: {e}"
            );
        }
    }

    /// The stored view of a Fortran-order array, permuted, equals the rearrangement of the
    /// logical array: the stored data is made here as the logical array's transpose.
    #[test]
    fn fortran_order_views_give_the_rearrangement() {
        type Sizes<'a> = &'a [(&'a str, usize)];
        let cases: [(&str, &[usize], Sizes); 6] = [
            ("(h w) c -> c h w", &[6, 4], &[("h", 2)]),
            (
                "b c (h p1) (w p2) -> b (h w) (p1 p2 c)",
                &[2, 3, 4, 6],
                &[("p1", 2), ("p2", 3)],
            ),
            ("b s (h d) -> b h s d", &[2, 5, 12], &[("h", 3)]),
            ("a 1 ... -> ... () a", &[3, 1, 2, 4], &[]),
            ("a b -> a b", &[3, 4], &[]),
            ("(a b c) -> c a b", &[24], &[("a", 2), ("b", 3)]),
        ];
        for (pattern, shape, axes) in cases {
            let r = rearrange(pattern, shape, axes, false).unwrap();
            let n: usize = shape.iter().product();
            let logical: Vec<u32> = (0..n as u32).collect();
            let want = permute_slice(&logical, &r.split_shape, &r.perm).unwrap();
            let reversed: Vec<usize> = (0..shape.len()).rev().collect();
            let stored = permute_slice(&logical, shape, &reversed).unwrap();
            let (view, perm) = stored_view(&r, true);
            assert_eq!(view.iter().product::<usize>(), n, "{pattern}");
            assert_eq!(
                permute_slice(&stored, &view, &perm).unwrap(),
                want,
                "{pattern}"
            );
            assert_eq!(
                stored_view(&r, false),
                (r.split_shape.clone(), r.perm.clone())
            );
        }
    }

    #[test]
    fn perms_are_checked_before_the_fortran_translation() {
        let input = Path::new("a.npy");
        for fortran in [false, true] {
            let e = |perm: &[usize]| stored_perm(perm, 2, fortran, input).err().unwrap();
            assert_eq!(
                e(&[0, 5]),
                "permutation entry 5 is out of range for a tensor of rank 2"
            );
            assert_eq!(e(&[1, 1]), "permutation names dimension 1 more than once");
            assert_eq!(e(&[0]), "--perm has 1 entries but a.npy has 2 dimensions");
        }
        assert_eq!(stored_perm(&[2, 0, 1], 3, true, input).unwrap(), [0, 2, 1]);
        assert_eq!(stored_perm(&[2, 0, 1], 3, false, input).unwrap(), [2, 0, 1]);
        assert_eq!(stored_perm(&[], 0, true, input).unwrap(), [] as [usize; 0]);
    }

    #[test]
    fn bench_scales_that_overflow_are_refused() {
        assert!(check_bench(1, 7).is_ok());
        assert!(check_bench(1000, 1).is_ok());
        assert!(check_bench(0, 7).is_err());
        assert!(check_bench(1, 0).is_err());
        let e = check_bench(usize::MAX / 8, 7).err().unwrap();
        assert!(e.contains("larger than memory can address"), "{e}");
    }
}
