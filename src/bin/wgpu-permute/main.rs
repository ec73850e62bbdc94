//! `wgpu-permute`: inspect adapters, explain plans, permute `.npy` files on the GPU, and run
//! the benchmark suite against copy bandwidth.

/// std's `println!` panics when stdout is a closed pipe (`wgpu-permute info | head -1`);
/// this one drops the text instead, so the command still finishes its work (and writes
/// its files). The same for stderr.
macro_rules! println {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout(), $($arg)*);
    }};
}
macro_rules! eprintln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}
macro_rules! eprint {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = write!(std::io::stderr(), $($arg)*);
    }};
}

mod args;
mod benchmark;
mod compare;
mod convert;
mod model;
mod npy;
mod output;
mod rearrange;
mod report;

use std::path::Path;
use std::process::ExitCode;

use args::{Cli, Command, Planned, elem_size};
use clap::Parser;
use wgpu_permute::{DeviceCaps, Options, Permuter, Relayout, diagnostics, reference, shaders, web};

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
    args::validate(&cli)?;
    match cli.command {
        Command::Info => info(),
        Command::Plan(args) => plan(&args),
        Command::Shader(args) => shader(&args),
        Command::Model {
            suite: true,
            no_padding,
            wave64,
            json,
            ..
        } => model::suite(!no_padding, wave64, json),
        Command::Model {
            shape,
            perm,
            dtype,
            kernel,
            no_padding,
            wave64,
            json,
            convert,
            ..
        } => model::run(model::Args {
            shape: &shape,
            perm: &perm,
            elem_size: elem_size(&dtype)?,
            conversion: convert.conversion_from(|| convert::named_type(&dtype), output_axis)?,
            kernel: kernel.map(|k| k.kernel()),
            padding: !no_padding,
            wave64,
            json,
        }),
        Command::Permute {
            perm,
            input,
            output,
            check,
            force,
            convert,
        } => permute(&perm, &input, &output, check, force.options(), &convert),
        Command::Rearrange {
            pattern,
            input,
            output,
            axes,
            pad,
            crop,
            check,
            convert,
        } => rearrange::run(rearrange::Args {
            pattern: &pattern,
            input: &input,
            output: &output,
            axes: &axes,
            pad: pad.as_deref(),
            crop: crop.as_deref(),
            check,
            convert: &convert,
        }),
        Command::Bench {
            json,
            plot,
            scale,
            runs,
            filter,
            autotune,
            to,
            force,
        } => benchmark::run(
            benchmark::Args {
                json,
                plot,
                scale,
                runs,
                filter,
                autotune,
                to,
            },
            force.options(),
        ),
        Command::WebSuite { out, cpu, shrink } => {
            let out = out.unwrap_or_else(|| match cpu {
                false => "web/suite.js".into(),
                true => "web/suite-cpu.js".into(),
            });
            web_suite(&out, shrink as usize, cpu)
        }
        Command::Compare { bench, model } => compare::run(&bench, &model),
    }
}

/// Writes the bench page's suite: every benchmark case planned for the WebGPU profile (on
/// a CPU adapter, with `cpu`).
fn web_suite(out: &Path, shrink: usize, cpu: bool) -> Result<()> {
    let cases = web::suite_cases(shrink, cpu).map_err(|e| e.to_string())?;
    let made_by = format!(
        "wgpu-permute web-suite{}{}",
        if cpu { " --cpu" } else { "" },
        match shrink {
            1 => String::new(),
            n => format!(" --shrink {n}"),
        }
    );
    let count = cases.len();
    output::write_all(out, web::suite_script(cases, &made_by, cpu).as_bytes())?;
    eprintln!("{count} cases written to {}", out.display());
    Ok(())
}

fn permuter() -> Result<Permuter> {
    Permuter::new_default().map_err(|e| e.to_string())
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
            report::device_name(&p)
        ),
        Err(e) => println!("default adapter: none ({e})"),
    }
    Ok(())
}

/// Plans the request as `plan` and `shader` do: on the default adapter (or, with
/// `--no-device`, for a GPU with the WebGPU default limits), refusing a bad request before
/// any GPU work. Returns the permuter it planned on, if any, and the plans: one, or the
/// parts a permute runs in (`plan::edge_parts`), its body first.
fn planned(args: &Planned) -> Result<(Option<Permuter>, Vec<wgpu_permute::Plan>)> {
    let mut op = Relayout::permute(&args.shape, &args.perm, elem_size(&args.dtype)?)
        .map_err(|e| e.to_string())?
        .with_options(args.force.options());
    let conversion = args
        .convert
        .conversion_from(|| convert::named_type(&args.dtype), output_axis)?;
    if let Some(c) = conversion {
        op = op.with_conversion(c).map_err(|e| e.to_string())?;
    }
    // The request itself (forced choices aside: many are a CPU device's, refused on
    // these caps).
    op.clone()
        .with_options(Options::default())
        .plan(&DeviceCaps::default())
        .map_err(|e| e.to_string())?;
    // The memory model traces on an adapter; without one, --no-device still plans.
    let p = match permuter() {
        Ok(p) if args.no_device => Some(diagnostics::with_caps(p, DeviceCaps::default())),
        Ok(p) => Some(p),
        Err(e) if args.no_device => {
            println!("(no adapter to trace the memory model on: {e})");
            None
        }
        Err(e) => return Err(e),
    };
    let plans = match &p {
        Some(p) => p.prepare(&op).map(|op| op.plans().to_vec()),
        None => op.plan(&DeviceCaps::default()),
    };
    Ok((p, plans.map_err(|e| e.to_string())?))
}

/// `wgpu-permute shader`: the WGSL the plan's variant compiles, after a comment naming the
/// plan (the pipeline's constants, for a specialised variant, are the plan's dims and
/// strides). A plan without a shader (a copy, or nothing to move) says so in a comment.
fn shader(args: &Planned) -> Result<()> {
    let (_, plans) = planned(args)?;
    let plan = &plans[0];
    if plans.len() > 1 {
        println!("// runs in {} parts: the body's shader here", plans.len());
    }
    println!("// wgpu-permute plan: {plan}");
    match plan.variant() {
        Some(v) => {
            println!("// variant: {v}");
            print!("{}", shaders::source(&v).map_err(|e| e.to_string())?);
        }
        None => println!("// no shader: this plan runs no kernel"),
    }
    Ok(())
}

fn plan(args: &Planned) -> Result<()> {
    let no_device = args.no_device;
    let (p, plans) = planned(args)?;
    let plan = &plans[0];
    match &p {
        _ if no_device => println!("device: a GPU with the WebGPU default limits"),
        Some(p) => println!("device: {}", report::device_name(p)),
        None => {}
    }
    if plans.len() > 1 && wgpu_permute::plan::flat_tail(plan).is_some() {
        println!(
            "runs in 2 parts: flat strip blocks in whole runs over every image's pixels, then \
             the last image's last pixels, a view writing its box of the output in place"
        );
        println!("tail: {}", plans[1]);
        println!("blocks:");
    } else if plans.len() > 1 {
        println!(
            "runs in {} parts: micro blocks do not divide its sides, and it moves {} KiB or \
             more; the body in whole blocks, then the edges, each a view writing its box of \
             the output in place",
            plans.len(),
            wgpu_permute::plan::tuning::EDGE_SPLIT_BYTES >> 10
        );
        for part in &plans[1..] {
            println!("edge: {part}");
        }
        println!("body:");
    }
    println!("plan: {plan}");
    println!("why:");
    for line in plan.explain() {
        println!("  - {line}");
    }
    // Quote the model for the kernel chosen when the choice did not already.
    let quoted = matches!(
        plan.reasons().model,
        wgpu_permute::plan::Modelling::Figures(_)
    );
    if let (Some(p), false, Some(_)) = (&p, quoted, plan.variant()) {
        let figures = diagnostics::model(p, plan, wgpu_permute::model::Warp::Wave32, true)
            .map_err(|e| e.to_string())?;
        let what = if plans.len() > 1 { " (the body)" } else { "" };
        println!("  - modelled on GPUs{what}: {}", figures.sentence());
    }
    if let Some(p) = &p {
        println!(
            "(modelled figures come from traces run on {}; the traced addresses are the same on every device)",
            report::device_name(p)
        );
    }
    Ok(())
}

fn permute(
    perm: &[usize],
    input: &Path,
    output: &Path,
    check: bool,
    options: Options,
    convert: &convert::ConvertArgs,
) -> Result<()> {
    // Everything that can be refused without the GPU is refused first.
    output::check_target(output)?;
    let tensor = npy::read(input)?;
    let perm = args::stored_perm(perm, tensor.shape.len(), tensor.fortran_order, input)?;
    let mut op = Relayout::permute(&tensor.shape, &perm, tensor.elem_size)
        .map_err(|e| e.to_string())?
        .with_options(options);
    let mut out_dtype = None;
    if let Some((conversion, dtype)) = convert.conversion(&tensor.dtype, output_axis)? {
        op = op.with_conversion(conversion).map_err(|e| e.to_string())?;
        out_dtype = Some(dtype);
    }
    FilePermute {
        input,
        output,
        in_shape: tensor.shape.clone(),
        out_shape: perm.iter().map(|&d| tensor.shape[d]).collect(),
        op,
        check,
        out_dtype,
    }
    .run(tensor)
}

/// What `permute` and `rearrange` both come down to, once the file is read and the
/// arguments checked: one pass over the file's data as stored.
struct FilePermute<'a> {
    input: &'a Path,
    output: &'a Path,
    /// The input's shape, as reported.
    in_shape: Vec<usize>,
    out_shape: Vec<usize>,
    /// The stored data's movement into the output.
    op: Relayout,
    check: bool,
    /// The output's dtype when it converts (else the input's).
    out_dtype: Option<npyz::TypeStr>,
}

impl FilePermute<'_> {
    /// Moves `tensor`'s data on the GPU, checks it with `check`, writes it, reports.
    fn run(self, tensor: npy::Tensor) -> Result<()> {
        let npy::Tensor { dtype, data, .. } = tensor;
        let dtype = self.out_dtype.clone().unwrap_or(dtype);
        let p = permuter()?;
        let err = |e: wgpu_permute::PermuteError| e.to_string();
        let prepared = p.prepare(&self.op).map_err(err)?;
        let plan = match prepared.plans() {
            [plan] => plan.to_string(),
            // More plans than views: a permute in parts (`plan::edge_parts`, or a flat
            // strip's tail).
            plans if plans.len() > self.op.views().len() => format!(
                "in {} parts, the rest on the generic kernel; the first: {}",
                plans.len(),
                plans[0]
            ),
            plans => format!("{} views, one per box of the crop", plans.len()),
        };
        let out = p.run(&prepared, &data).map_err(err)?;
        // The output is committed only once it is complete and, with --check, correct.
        if self.check
            && let Some(at) = reference::first_mismatch(&self.op, &data, &out).map_err(err)?
        {
            return Err(format!(
                "check failed: the GPU result differs from the CPU reference at element {at}"
            ));
        }
        drop(data);
        let mut staged = output::Staged::new(self.output)?;
        npy::write(staged.file(), &dtype, &self.out_shape, &out)
            .map_err(|e| format!("cannot write {}: {e}", self.output.display()))?;
        staged.commit()?;
        println!(
            "{} {:?} -> {} {:?} ({})",
            self.input.display(),
            self.in_shape,
            self.output.display(),
            self.out_shape,
            dtype
        );
        println!("device: {}", report::device_name(&p));
        println!("plan: {plan}");
        if self.check {
            println!("check: equal to the CPU reference");
        }
        Ok(())
    }
}

/// `--channel-axis` of `permute`, `plan`, `shader` and `model`: an output axis's index.
fn output_axis(name: &str) -> std::result::Result<usize, String> {
    name.parse::<usize>()
        .map_err(|_| format!("--channel-axis {name}: give an output axis's index"))
}
