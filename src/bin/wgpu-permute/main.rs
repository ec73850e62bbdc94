//! `wgpu-permute`: inspect adapters, explain plans, permute `.npy` files on the GPU, and run
//! the benchmark suite against copy bandwidth.

mod npy;
mod report;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use wgpu_permute::bench::{self, Bench, BenchError};
use wgpu_permute::{DeviceCaps, IndexMath, Kernel, Options, Permuter, Request, reference};

#[derive(Parser)]
#[command(
    name = "wgpu-permute",
    version,
    about = "Permute (transpose) tensors on any GPU that wgpu drives"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// List adapters with the features and limits that matter for permutes.
    Info,
    /// Print the plan for a permute, and why each choice was made.
    Plan {
        /// Input shape, e.g. 8,512,16,64.
        #[arg(long, value_delimiter = ',', required = true)]
        shape: Vec<usize>,
        /// Output dim i is input dim perm[i], e.g. 0,2,1,3.
        #[arg(long, value_delimiter = ',', required = true)]
        perm: Vec<usize>,
        /// Element type (u8, i8, u16, i16, f16, bf16, u32, i32, f32, u64, i64, f64, c64, c128)
        /// or its size in bytes.
        #[arg(long, default_value = "f32")]
        dtype: String,
        #[command(flatten)]
        force: Force,
        /// Plan for the WebGPU default limits instead of the default adapter.
        #[arg(long)]
        no_device: bool,
    },
    /// Permute a .npy file on the GPU and write the result as .npy.
    Permute {
        /// Output dim i is input dim perm[i], e.g. 2,0,1.
        #[arg(long, value_delimiter = ',', required = true)]
        perm: Vec<usize>,
        input: PathBuf,
        output: PathBuf,
        /// Also compare the result with the CPU reference.
        #[arg(long)]
        check: bool,
        #[command(flatten)]
        force: Force,
    },
    /// Run the benchmark suite: each permute next to copies of the same bytes.
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
        #[command(flatten)]
        force: Force,
    },
}

/// Choices to force instead of the planner's heuristics.
#[derive(clap::Args)]
struct Force {
    /// Force a kernel.
    #[arg(long, value_enum)]
    kernel: Option<KernelArg>,
    /// Force the index math.
    #[arg(long, value_enum)]
    index: Option<IndexArg>,
    /// Force compiling the generic kernel for the shape (true) or not (false).
    #[arg(long)]
    specialize: Option<bool>,
}

#[derive(Clone, Copy, ValueEnum)]
enum KernelArg {
    Copy,
    Generic,
    Tiled,
    Micro,
}

#[derive(Clone, Copy, ValueEnum)]
enum IndexArg {
    U32,
    U64,
    U32Pair,
}

impl Force {
    fn options(&self) -> Options {
        Options {
            kernel: self.kernel.map(|k| match k {
                KernelArg::Copy => Kernel::Copy,
                KernelArg::Generic => Kernel::Generic,
                KernelArg::Tiled => Kernel::Tiled,
                KernelArg::Micro => Kernel::Micro,
            }),
            index: self.index.map(|i| match i {
                IndexArg::U32 => IndexMath::U32,
                IndexArg::U64 => IndexMath::U64,
                IndexArg::U32Pair => IndexMath::U32Pair,
            }),
            binding_limit: None,
            specialize: self.specialize,
        }
    }
}

type Result<T> = std::result::Result<T, String>;

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Info => info(),
        Command::Plan {
            shape,
            perm,
            dtype,
            force,
            no_device,
        } => plan(&shape, &perm, &dtype, force.options(), no_device),
        Command::Permute {
            perm,
            input,
            output,
            check,
            force,
        } => permute(&perm, &input, &output, check, force.options()),
        Command::Bench {
            json,
            plot,
            scale,
            runs,
            filter,
            autotune,
            force,
        } => run_bench(json, plot, scale, runs, filter, autotune, force.options()),
    }
}

fn permuter() -> Result<Permuter> {
    Permuter::new_default().map_err(|e| e.to_string())
}

fn device_name(p: &Permuter) -> String {
    let i = p.adapter_info();
    format!("{} ({:?})", i.name, i.backend)
}

fn info() -> Result<()> {
    let instance =
        wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
    let adapters = pollster::block_on(instance.enumerate_adapters(wgpu::Backends::all()));
    if adapters.is_empty() {
        return Err("no adapters found: install a Vulkan driver (e.g. mesa-vulkan-drivers)".into());
    }
    for adapter in &adapters {
        let i = adapter.get_info();
        let f = adapter.features();
        let l = adapter.limits();
        println!("{} ({:?}, {:?})", i.name, i.backend, i.device_type);
        println!("  driver: {} {}", i.driver, i.driver_info);
        let features = [
            ("SHADER_INT64", wgpu::Features::SHADER_INT64),
            ("SHADER_F16", wgpu::Features::SHADER_F16),
            ("SUBGROUP", wgpu::Features::SUBGROUP),
            ("TIMESTAMP_QUERY", wgpu::Features::TIMESTAMP_QUERY),
            (
                "TIMESTAMP_QUERY_INSIDE_ENCODERS",
                wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS,
            ),
        ];
        for (name, flag) in features {
            println!(
                "  {name:<32} {}",
                if f.contains(flag) { "yes" } else { "no" }
            );
        }
        let limits: [(&str, u64); 7] = [
            (
                "max_storage_buffer_binding_size",
                l.max_storage_buffer_binding_size,
            ),
            ("max_buffer_size", l.max_buffer_size),
            (
                "min_storage_buffer_offset_alignment",
                l.min_storage_buffer_offset_alignment as u64,
            ),
            (
                "max_compute_workgroups_per_dimension",
                l.max_compute_workgroups_per_dimension as u64,
            ),
            (
                "max_compute_invocations_per_workgroup",
                l.max_compute_invocations_per_workgroup as u64,
            ),
            (
                "max_compute_workgroup_storage_size",
                l.max_compute_workgroup_storage_size as u64,
            ),
            (
                "max_storage_buffers_per_shader_stage",
                l.max_storage_buffers_per_shader_stage as u64,
            ),
        ];
        for (name, value) in limits {
            println!("  {name:<38} {value}");
        }
    }
    match Permuter::new_default() {
        Ok(p) => println!(
            "default adapter (WGPU_BACKEND / WGPU_ADAPTER_NAME): {}",
            device_name(&p)
        ),
        Err(e) => println!("default adapter: none ({e})"),
    }
    Ok(())
}

/// Element size for a dtype name or a byte count.
fn elem_size(dtype: &str) -> Result<usize> {
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

fn plan(
    shape: &[usize],
    perm: &[usize],
    dtype: &str,
    options: Options,
    no_device: bool,
) -> Result<()> {
    let req = Request::new(shape, perm, elem_size(dtype)?).with_options(options);
    let (caps, device) = if no_device {
        (DeviceCaps::default(), "WebGPU default limits".to_string())
    } else {
        let p = permuter()?;
        (p.caps().clone(), device_name(&p))
    };
    let plan = wgpu_permute::plan(&req, &caps).map_err(|e| e.to_string())?;
    println!("device: {device}");
    println!("plan: {plan}");
    println!("why:");
    for line in plan.explain() {
        println!("  - {line}");
    }
    Ok(())
}

fn permute(
    perm: &[usize],
    input: &Path,
    output: &Path,
    check: bool,
    options: Options,
) -> Result<()> {
    let tensor = npy::read(input)?;
    let rank = tensor.shape.len();
    if perm.len() != rank {
        return Err(format!(
            "--perm has {} entries but {} has {rank} dimensions",
            perm.len(),
            input.display()
        ));
    }
    // A Fortran-order array is stored as its transpose in C order: permute that instead.
    let perm: Vec<usize> = if tensor.fortran_order {
        perm.iter()
            .map(|&p| rank.saturating_sub(1 + p.min(rank - 1)))
            .collect()
    } else {
        perm.to_vec()
    };
    let p = permuter()?;
    let req = Request::new(&tensor.shape, &perm, tensor.elem_size).with_options(options);
    let plan = p.plan(&req).map_err(|e| e.to_string())?;
    let out = p
        .permute_host(&tensor.data, &req)
        .map_err(|e| e.to_string())?;
    let out_shape: Vec<usize> = perm.iter().map(|&d| tensor.shape[d]).collect();
    npy::write(output, &tensor.dtype, &out_shape, &out)?;
    println!(
        "{} {:?} -> {} {:?} ({})",
        input.display(),
        tensor.shape,
        output.display(),
        out_shape,
        tensor.dtype
    );
    println!("device: {}", device_name(&p));
    println!("plan: {plan}");
    if check {
        let want = reference::permute_bytes(&tensor.data, &tensor.shape, &perm, tensor.elem_size)
            .map_err(|e| e.to_string())?;
        if want != out {
            return Err("check failed: the GPU result differs from the CPU reference".into());
        }
        println!("check: equal to the CPU reference");
    }
    Ok(())
}

fn run_bench(
    json: Option<PathBuf>,
    plot: Option<PathBuf>,
    scale: usize,
    runs: usize,
    filter: Option<String>,
    autotune: bool,
    options: Options,
) -> Result<()> {
    let p = permuter()?.with_autotune(autotune);
    let device = device_name(&p);
    let bench = Bench::new(&p, runs).map_err(|e| e.to_string())?;
    let cases: Vec<_> = bench::default_suite(scale)
        .into_iter()
        .filter(|c| {
            filter
                .as_ref()
                .is_none_or(|f| c.label().contains(f.as_str()))
        })
        .collect();
    if cases.is_empty() {
        return Err("no benchmark case matches the filter".into());
    }
    eprintln!("device: {device}; timing: {}", bench.clock().describe());
    let mut results = Vec::new();
    let mut failed = Vec::new();
    for (i, case) in cases.iter().enumerate() {
        eprint!("[{}/{}] {} ... ", i + 1, cases.len(), case.label());
        let _ = std::io::stderr().flush();
        match bench.run_case(case, options) {
            Ok(r) => {
                eprintln!(
                    "{:.2} GB/s, {:.2}x buffer copy",
                    r.gbps(),
                    r.vs_buffer_copy()
                );
                results.push(r);
            }
            Err(BenchError::Permute(e)) => {
                eprintln!("skipped: {e}");
                failed.push(format!("{}: {e}", case.label()));
            }
            Err(e @ BenchError::Mismatch(_)) => return Err(e.to_string()),
        }
    }
    let command = std::env::args().collect::<Vec<_>>().join(" ");
    println!("{}", bench::table(&device, bench.clock(), &results));
    for f in &failed {
        println!("not measured: {f}");
    }
    if let Some(path) = json {
        let value = report::json(&device, bench.clock(), &command, &results);
        let text = serde_json::to_string_pretty(&value).map_err(|e| e.to_string())?;
        std::fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        eprintln!("wrote {}", path.display());
    }
    if let Some(path) = plot {
        report::plot(&path, &device, &results)?;
        eprintln!("wrote {}", path.display());
    }
    Ok(())
}
