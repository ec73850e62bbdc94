//! Shared by the GPU tests: a device per test running at once (see [`gpu`]), test data in
//! which a misplaced or missing write shows, and a checker that compares a GPU permute with
//! the CPU reference.
#![allow(dead_code)]

pub mod sample;

use std::sync::Mutex;

use wgpu_permute::{Options, Permuter, Plan, Relayout, read_buffer, reference};

/// Options forcing each shader kernel (and so never row copies).
pub const GENERIC: Options = Options {
    kernel: Some(wgpu_permute::Kernel::Generic),
    index: None,
    binding_limit: None,
    specialize: None,
    access64: None,
    wide_stores: None,
    scatter: None,
    walk_tiles: None,
    column_runs: None,
    row_copies: Some(false),
};
pub const TILED: Options = Options {
    kernel: Some(wgpu_permute::Kernel::Tiled),
    ..GENERIC
};
pub const MICRO: Options = Options {
    kernel: Some(wgpu_permute::Kernel::Micro),
    ..GENERIC
};

/// Set to `1` to skip GPU tests on a machine with no adapter; they then say they skipped.
pub const SKIP_VAR: &str = "WGPU_PERMUTE_SKIP_GPU";

/// Set to `1` on a CPU adapter to plan the tests' operations as a GPU would ([`gpu`]): the
/// GPU path's choices and the tests' expectations of a GPU, checked where no GPU is (the
/// device check's local run uses it, `scripts/device-check.sh`).
pub const AS_GPU_VAR: &str = "WGPU_PERMUTE_TEST_AS_GPU";

/// The test thread's permuter, or `None` (with a message) when GPU tests are explicitly
/// skipped. Without an adapter and without the opt-out, this panics with instructions: GPU
/// tests never pass silently.
///
/// Tests running at once get devices of their own where they can, up to one per core (a
/// pool, made as needed, each device kept for the binary's life): lavapipe compiles a
/// device's shaders on its queue's one thread, so tests sharing a device wait for each
/// other's compiles (the conversion sweep took 88 s on one device, 57 in two processes).
/// On GL one device serves all: wgpu's GL work is serialised anyway.
pub fn gpu() -> Option<&'static Permuter> {
    thread_local! {
        static LEASE: std::cell::OnceCell<Lease> = const { std::cell::OnceCell::new() };
    }
    if std::env::var(SKIP_VAR).is_ok_and(|v| v == "1") {
        eprintln!("skipped: {SKIP_VAR}=1 is set, GPU test not run");
        return None;
    }
    Some(LEASE.with(|lease| lease.get_or_init(Lease::take).permuter))
}

/// The pool's devices, each with the number of test threads using it.
static POOL: Mutex<Vec<(&'static Permuter, usize)>> = Mutex::new(Vec::new());

/// A test thread's hold on a pool device, given back when the thread ends.
struct Lease {
    permuter: &'static Permuter,
    index: usize,
}

impl Lease {
    /// An idle device of the pool, a new one while the pool has fewer than one per core,
    /// or else the least used.
    fn take() -> Lease {
        let mut pool = POOL.lock().unwrap_or_else(|p| p.into_inner());
        // Vulkan unless WGPU_BACKEND says otherwise: wgpu would otherwise fall back to a GL
        // software adapter without telling anyone.
        let backends = wgpu::Backends::from_env().unwrap_or(wgpu::Backends::VULKAN);
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get().min(4));
        let size = match backends == wgpu::Backends::GL {
            true => 1,
            false => cores,
        };
        let index = match pool.iter().position(|&(_, users)| users == 0) {
            Some(i) => i,
            None if pool.len() < size => {
                let mut p = match Permuter::new_on(backends) {
                    Ok(p) => p,
                    Err(e) => panic!(
                        "GPU tests need an adapter: {e}. Install a Vulkan driver (on Debian: \
                         apt-get install mesa-vulkan-drivers) or set {SKIP_VAR}=1 to skip them."
                    ),
                };
                let as_gpu = std::env::var(AS_GPU_VAR).is_ok_and(|v| v == "1");
                if as_gpu && p.caps().cpu {
                    let caps = wgpu_permute::DeviceCaps {
                        cpu: false,
                        access64_faster: false,
                        ..p.caps().clone()
                    };
                    p = wgpu_permute::diagnostics::with_caps(p, caps);
                }
                if pool.is_empty() {
                    let info = p.device().adapter_info();
                    let planned = match p.caps().cpu {
                        true => "as a CPU adapter",
                        false => "as a GPU",
                    };
                    eprintln!(
                        "GPU tests on {} ({:?}), planned {planned}",
                        info.name, info.backend
                    );
                }
                pool.push((Box::leak(Box::new(p)), 0));
                pool.len() - 1
            }
            None => (0..pool.len())
                .min_by_key(|&i| pool[i].1)
                .expect("not empty"),
        };
        pool[index].1 += 1;
        LEASE_INDEX.with(|i| i.set(Some(index)));
        Lease {
            permuter: pool[index].0,
            index,
        }
    }
}

/// The CPU-adapter family's permuters, one per pool device (see [`cpu_family`]).
static CPU_FAMILY: Mutex<Vec<(usize, &'static Permuter)>> = Mutex::new(Vec::new());

/// The test thread's permuter planning as a CPU adapter (lavapipe, SwiftShader) plans: on a
/// CPU adapter [`gpu`]'s own, else one on the same device whose caps say CPU
/// ([`cpu_planned`]), made once per pool device. The CPU family's kernels (micro blocks,
/// strips, runs, walks, row copies) are WGSL like the others, so any adapter runs them: the
/// tests of that family check them on whatever adapter the tests run on, GPUs included.
pub fn cpu_family() -> Option<&'static Permuter> {
    let p = gpu()?;
    if p.caps().cpu {
        return Some(p);
    }
    let index = LEASE_INDEX.with(|i| i.get()).expect("gpu() took a lease");
    let mut family = CPU_FAMILY.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(&(_, made)) = family.iter().find(|(i, _)| *i == index) {
        return Some(made);
    }
    let made: &'static Permuter = Box::leak(Box::new(cpu_planned(p)));
    family.push((index, made));
    Some(made)
}

/// A new permuter on `p`'s device (an empty pipeline cache, nothing learnt) that plans as a
/// CPU adapter plans: `p`'s caps with `cpu` set (on a CPU adapter, as `p` plans).
pub fn cpu_planned(p: &Permuter) -> Permuter {
    match p.caps().cpu {
        true => fresh(p),
        false => planned_as(
            p,
            wgpu_permute::DeviceCaps {
                cpu: true,
                ..p.caps().clone()
            },
        ),
    }
}

/// A new permuter on `p`'s device (an empty pipeline cache, nothing learnt) that plans as
/// `p` does (as a GPU, on a CPU adapter with [`AS_GPU_VAR`]).
pub fn fresh(p: &Permuter) -> Permuter {
    planned_as(p, p.caps().clone())
}

/// A new permuter on `p`'s device planning for `caps`.
fn planned_as(p: &Permuter, caps: wgpu_permute::DeviceCaps) -> Permuter {
    let made = Permuter::new(p.device(), p.queue()).expect("a permuter on the test device");
    match made.caps() == &caps {
        true => made,
        false => wgpu_permute::diagnostics::with_caps(made, caps),
    }
}

thread_local! {
    /// The pool index of this thread's lease, once [`gpu`] took one.
    static LEASE_INDEX: std::cell::Cell<Option<usize>> = const { std::cell::Cell::new(None) };
}

impl Drop for Lease {
    fn drop(&mut self) {
        POOL.lock().unwrap_or_else(|p| p.into_inner())[self.index].1 -= 1;
    }
}

/// Deterministic pseudo-random bytes (xorshift), so neighbouring elements differ in every
/// byte and a misplaced element shows.
pub fn test_bytes(len: usize, seed: u64) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}

/// Byte the destination is filled with before a permute: any byte left unwritten, or
/// written outside the tensor, shows against it.
pub const SENTINEL: u8 = 0xA5;

/// One checked permute: shape, permutation, element size, forced options and byte offsets
/// (multiples of 4) of the tensor in its source and destination regions.
pub fn case(
    shape: &[usize],
    perm: &[usize],
    elem: usize,
    options: Options,
    offsets: (u64, u64),
) -> Relayout {
    Relayout::permute(shape, perm, elem)
        .expect("a valid test permute")
        .with_options(options)
        .with_offsets(offsets.0, offsets.1)
}

/// Permutes random data on the GPU at the given byte offsets, into a destination filled
/// with [`SENTINEL`] that has guard bytes after the tensor, and compares every byte of the
/// destination buffer with the reference. Returns the plan, or a message that includes it.
pub fn check(
    p: &Permuter,
    shape: &[usize],
    perm: &[usize],
    elem_size: usize,
    options: Options,
    offsets: (u64, u64),
) -> Result<Plan, String> {
    check_many(p, &[case(shape, perm, elem_size, options, offsets)]).remove(0)
}

/// Bytes of source (and of destination) that one submission of [`check_many`] holds: up to
/// 16 MiB, and half the device's largest buffer.
fn batch_bytes(p: &Permuter) -> usize {
    (16usize << 20).min(p.device().limits().max_buffer_size as usize / 2)
}

/// [`check`] for many operations at once: each gets its own region of one shared source and
/// one shared destination buffer (regions start on the storage offset alignment, and the
/// operation's offsets apply within them), every one is recorded into one encoder, and one
/// readback checks every region against the CPU reference ([`reference::run`]) and every
/// byte between them (still the sentinel). Far fewer allocations and round trips than one
/// submission per case. Returns each one's (first) plan.
pub fn check_many(p: &Permuter, cases: &[Relayout]) -> Vec<Result<Plan, String>> {
    let mut results = Vec::with_capacity(cases.len());
    let mut start = 0;
    let batch = batch_bytes(p);
    while start < cases.len() {
        // As many cases as fit in one batch (at least one).
        let mut end = start;
        let mut total = 0;
        while end < cases.len() && (end == start || total + region(p, &cases[end]) <= batch) {
            total += region(p, &cases[end]);
            end += 1;
        }
        results.extend(check_batch(p, &cases[start..end]));
        start = end;
    }
    results
}

/// Guard bytes after each tensor, before the next region.
const GUARD: usize = 12;

fn bytes(op: &Relayout) -> (usize, usize) {
    (
        op.src_len() * op.elem_size(),
        op.dst_len() * op.dst_elem_size(),
    )
}

fn region(p: &Permuter, op: &Relayout) -> usize {
    let align = p.caps().storage_offset_alignment.max(4) as usize;
    let (offsets, bytes) = (op.offsets(), bytes(op));
    let end = (offsets.0 as usize + bytes.0).max(offsets.1 as usize + bytes.1);
    end.next_multiple_of(4) + GUARD + align
}

fn describe(op: &Relayout) -> String {
    match op.views() {
        [(view, 0)] => match view.as_permute() {
            Some((shape, perm)) => format!("shape {shape:?} perm {perm:?} elem {}", op.elem_size()),
            None => format!("view {view:?} elem {}", op.elem_size()),
        },
        parts => format!("{} parts elem {}", parts.len(), op.elem_size()),
    }
}

fn check_batch(p: &Permuter, cases: &[Relayout]) -> Vec<Result<Plan, String>> {
    // Its own wgpu calls wait for the crate's on GL, as an app's would (see `serialized`).
    wgpu_permute::serialized(p.device(), || check_batch_now(p, cases))
}

fn check_batch_now(p: &Permuter, cases: &[Relayout]) -> Vec<Result<Plan, String>> {
    let align = p.caps().storage_offset_alignment.max(4) as u64;
    let mut bases = Vec::with_capacity(cases.len());
    let mut size = 0u64;
    for case in cases {
        bases.push(size);
        size = (size + region(p, case) as u64).next_multiple_of(align);
    }
    let size = size.max(4);
    let mut src_init = test_bytes(size as usize, 0xFF ^ cases.len() as u64);
    let (mut expected, mut sources) = (Vec::new(), Vec::new());
    for (case, &base) in cases.iter().zip(&bases) {
        let seed = case
            .out_shape()
            .iter()
            .fold(case.elem_size() as u64, |s, &d| {
                s.wrapping_mul(31).wrapping_add(d as u64)
            });
        let data = test_bytes(bytes(case).0, seed);
        let at = (base + case.offsets().0) as usize;
        src_init[at..at + data.len()].copy_from_slice(&data);
        expected.push(reference::run(case, &data));
        sources.push(data);
    }
    let device = p.device();
    use wgpu::util::DeviceExt;
    let src = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("test src"),
        contents: &src_init,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
    });
    let dst = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("test dst"),
        contents: &vec![SENTINEL; size as usize],
        usage: wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_SRC
            | wgpu::BufferUsages::COPY_DST,
    });
    let readback = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("test readback"),
        size,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut encoder = device.create_command_encoder(&Default::default());
    let mut results: Vec<Result<Plan, String>> = cases
        .iter()
        .zip(&bases)
        .map(|(case, &base)| {
            let (src_offset, dst_offset) = case.offsets();
            let op = case
                .clone()
                .with_offsets(base + src_offset, base + dst_offset);
            // The plan that runs (autotuning may change the kernel a bare plan would say).
            let recorded = p
                .prepare(&op)
                .and_then(|op| p.record(&mut encoder, &src, &dst, &op).map(|()| op));
            recorded
                .map(|op| op.plans()[0].clone())
                .map_err(|e| format!("recording failed: {e} for {}", describe(case)))
        })
        .collect();
    encoder.copy_buffer_to_buffer(&dst, 0, &readback, 0, size);
    p.queue().submit([encoder.finish()]);
    let got = match read_buffer(device, &readback, size) {
        Ok(got) => got,
        Err(e) => return cases.iter().map(|_| Err(e.to_string())).collect(),
    };

    let mut owned = vec![false; size as usize];
    for (i, (case, &base)) in cases.iter().zip(&bases).enumerate() {
        let Ok(plan) = &results[i] else { continue };
        let start = (base + case.offsets().1) as usize;
        let len = bytes(case).1;
        let region = &got[start..start + len];
        owned[start..start + len].fill(true);
        let want = match &expected[i] {
            Ok(want) => want,
            Err(e) => {
                results[i] = Err(format!("the reference refused {}: {e}", describe(case)));
                continue;
            }
        };
        // A conversion's elements compare as its numbers say (an affine within its bound).
        if let Some(c) = case.conversion()
            && let Ok(Some(k)) = reference::first_mismatch(case, &sources[i], region)
        {
            let size = c.to().size();
            results[i] = Err(format!(
                "wrong output for {} to {}: element {k}, got {:02x?} want {:02x?}\n  plan: {plan}",
                describe(case),
                c.to().name(),
                &region[k * size..(k + 1) * size],
                &want[k * size..(k + 1) * size]
            ));
        } else if case.conversion().is_none() && region != want.as_slice() {
            let first = region.iter().zip(want).position(|(a, b)| a != b).unwrap();
            results[i] = Err(format!(
                "wrong output for {} offsets {:?}: first bad byte {first} (element {}), got \
                 {:#04x} want {:#04x}\n  plan: {plan}",
                describe(case),
                case.offsets(),
                first / case.elem_size(),
                region[first],
                want[first]
            ));
        }
    }
    // Bytes outside every tensor keep the sentinel: blame the case whose region precedes.
    if let Some(i) = (0..got.len()).find(|&i| !owned[i] && got[i] != SENTINEL) {
        let culprit = bases.iter().rposition(|&b| b <= i as u64).unwrap_or(0);
        let plan = results[culprit]
            .as_ref()
            .map(|p| p.to_string())
            .unwrap_or_default();
        results[culprit] = Err(format!(
            "write outside the tensor for {}: byte {} of its region changed\n  plan: {plan}",
            describe(&cases[culprit]),
            i as u64 - bases[culprit]
        ));
    }
    results
}

/// Every permutation of `0..n`, in lexicographic order.
pub fn permutations(n: usize) -> Vec<Vec<usize>> {
    if n == 0 {
        return vec![vec![]];
    }
    let mut out = Vec::new();
    for rest in permutations(n - 1) {
        for pos in 0..=rest.len() {
            let mut p: Vec<usize> = rest.clone();
            p.insert(pos, n - 1);
            out.push(p);
        }
    }
    out.sort();
    out
}

/// A version 1.0 `.npy` file: the header dict as numpy writes it, padded to 64 bytes, then
/// `data` as is (which need not match the header).
pub fn npy_file(descr: &str, fortran: bool, shape: &str, data: &[u8]) -> Vec<u8> {
    let order = if fortran { "True" } else { "False" };
    let mut header =
        format!("{{'descr': '{descr}', 'fortran_order': {order}, 'shape': {shape}, }}");
    let unpadded = 10 + header.len() + 1;
    header.push_str(&" ".repeat(unpadded.next_multiple_of(64) - unpadded));
    header.push('\n');
    let mut file = b"\x93NUMPY\x01\x00".to_vec();
    file.extend((header.len() as u16).to_le_bytes());
    file.extend(header.as_bytes());
    file.extend(data);
    file
}

/// The test adapter, on a new instance.
pub fn adapter() -> wgpu::Adapter {
    let backends = wgpu::Backends::from_env().unwrap_or(wgpu::Backends::VULKAN);
    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor {
        backends,
        ..wgpu::InstanceDescriptor::new_without_display_handle_from_env()
    });
    pollster::block_on(instance.request_adapter(&Default::default())).unwrap()
}

/// A caller's device on `adapter`, with its limits changed by `limits`.
pub fn device_on(
    adapter: &wgpu::Adapter,
    limits: impl FnOnce(&mut wgpu::Limits),
) -> (wgpu::Device, wgpu::Queue) {
    let mut wanted = adapter.limits();
    limits(&mut wanted);
    pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        required_limits: wanted,
        required_features: adapter.features() & wgpu_permute::WANTED_FEATURES,
        ..Default::default()
    }))
    .unwrap()
}

/// A caller's device on the test adapter (a new instance each time), with its limits
/// changed by `limits`.
pub fn own_device(limits: impl FnOnce(&mut wgpu::Limits)) -> (wgpu::Device, wgpu::Queue) {
    device_on(&adapter(), limits)
}

/// A buffer of `size` bytes with `usage`, not mapped.
pub fn buffer(device: &wgpu::Device, size: u64, usage: wgpu::BufferUsages) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("test"),
        size,
        usage,
        mapped_at_creation: false,
    })
}

/// Records `req` (a permute, at its offsets, with its options) on its own and submits it:
/// what an app that wants nothing batched does.
pub fn submit(
    p: &Permuter,
    src: &wgpu::Buffer,
    dst: &wgpu::Buffer,
    req: &wgpu_permute::Request,
) -> Result<(), wgpu_permute::PermuteError> {
    let op = Relayout::from_request(req)?;
    let mut encoder = p.device().create_command_encoder(&Default::default());
    p.record(&mut encoder, src, dst, &op)?;
    p.queue().submit([encoder.finish()]);
    Ok(())
}

/// The host round trip of `view` of `data` (elements of `elem` bytes), written contiguously
/// or through its destination strides, `fill` read outside its bounds.
pub fn materialize(
    p: &Permuter,
    data: &[u8],
    view: &wgpu_permute::View,
    elem: usize,
    fill: &[u8],
    options: Options,
) -> Result<Vec<u8>, wgpu_permute::PermuteError> {
    let op = Relayout::view(view.clone(), data.len() / elem.max(1), elem)?
        .with_fill(fill)
        .with_options(options);
    p.run(&op, data)
}

/// Records `req` (a permute) into `encoder`.
pub fn encode(
    p: &Permuter,
    encoder: &mut wgpu::CommandEncoder,
    src: &wgpu::Buffer,
    dst: &wgpu::Buffer,
    req: &wgpu_permute::Request,
) -> Result<(), wgpu_permute::PermuteError> {
    p.record(encoder, src, dst, &Relayout::from_request(req)?)
}

/// The host round trip of a permute of `data` (elements of `elem` bytes).
pub fn permute_bytes(
    p: &Permuter,
    data: &[u8],
    shape: &[usize],
    perm: &[usize],
    elem: usize,
) -> Result<Vec<u8>, wgpu_permute::PermuteError> {
    p.run(&Relayout::permute(shape, perm, elem)?, data)
}

/// The plan `p` prepares for `req` (a permute), first-use work done.
pub fn prepared(
    p: &Permuter,
    req: &wgpu_permute::Request,
) -> Result<Plan, wgpu_permute::PermuteError> {
    Ok(p.prepare(&Relayout::from_request(req)?)?.plans()[0].clone())
}

/// `f` of each item, on one thread per core (at most 4), in the items' order: for tests
/// that run many independent processes (CLI runs, dawn.node runs), which one after
/// another leave a core idle. A panic in `f` fails the caller with its message.
pub fn per_core<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let next = AtomicUsize::new(0);
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get().min(4));
    let mut done: Vec<(usize, R)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                s.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(item) = items.get(i) else {
                            break done;
                        };
                        done.push((i, f(item)));
                    }
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    });
    done.sort_by_key(|&(i, _)| i);
    done.into_iter().map(|(_, r)| r).collect()
}
