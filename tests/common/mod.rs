//! Shared by the GPU tests: one device per test binary, test data in which a misplaced or
//! missing write shows, and a checker that compares a GPU permute with the CPU reference.
#![allow(dead_code)]

use std::sync::OnceLock;

use wgpu_permute::{Options, Permuter, Plan, Request, read_buffer, reference};

/// Set to `1` to skip GPU tests on a machine with no adapter; they then say they skipped.
pub const SKIP_VAR: &str = "WGPU_PERMUTE_SKIP_GPU";

/// The shared permuter, or `None` (with a message) when GPU tests are explicitly skipped.
/// Without an adapter and without the opt-out, this panics with instructions: GPU tests
/// never pass silently.
pub fn gpu() -> Option<&'static Permuter> {
    static PERMUTER: OnceLock<Option<Permuter>> = OnceLock::new();
    let permuter = PERMUTER.get_or_init(|| {
        if std::env::var(SKIP_VAR).is_ok_and(|v| v == "1") {
            return None;
        }
        // Vulkan unless WGPU_BACKEND says otherwise: wgpu would otherwise fall back to a GL
        // software adapter without telling anyone.
        let backends = wgpu::Backends::from_env().unwrap_or(wgpu::Backends::VULKAN);
        match Permuter::new_on(backends) {
            Ok(p) => {
                let info = p.adapter_info().expect("own device");
                eprintln!("GPU tests on {} ({:?})", info.name, info.backend);
                Some(p)
            }
            Err(e) => panic!(
                "GPU tests need an adapter: {e}. Install a Vulkan driver (on Debian: \
                 apt-get install mesa-vulkan-drivers) or set {SKIP_VAR}=1 to skip them."
            ),
        }
    });
    if permuter.is_none() {
        eprintln!("skipped: {SKIP_VAR}=1 is set, GPU test not run");
    }
    permuter.as_ref()
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
    let req = Request::new(shape, perm, elem_size)
        .with_offsets(offsets.0, offsets.1)
        .with_options(options);
    let plan = p
        .plan(&req)
        .map_err(|e| format!("plan failed: {e} for {shape:?} {perm:?}"))?;
    let n: usize = shape.iter().product();
    let bytes = n * elem_size;
    let seed = shape
        .iter()
        .fold(elem_size as u64, |s, &d| s * 31 + d as u64);
    let data = test_bytes(bytes, seed);
    let expected = reference::permute_bytes(&data, shape, perm, elem_size).unwrap();

    let guard = 12u64;
    let src_size = (offsets.0 + bytes as u64).next_multiple_of(4) + guard;
    let dst_size = (offsets.1 + bytes as u64).next_multiple_of(4) + guard;
    let mut src_init = test_bytes(src_size as usize, seed ^ 0xFF);
    src_init[offsets.0 as usize..][..bytes].copy_from_slice(&data);
    let device = p.device();
    use wgpu::util::DeviceExt;
    let src = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("test src"),
        contents: &src_init,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
    });
    let dst = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("test dst"),
        contents: &vec![SENTINEL; dst_size as usize],
        usage: wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_SRC
            | wgpu::BufferUsages::COPY_DST,
    });
    let readback = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("test readback"),
        size: dst_size,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut encoder = device.create_command_encoder(&Default::default());
    // The plan that ran (autotuning may change the kernel `plan` above chose).
    let plan = p
        .encode(&mut encoder, &src, &dst, &req)
        .map_err(|e| format!("encode failed: {e}\n  plan: {plan}"))?;
    encoder.copy_buffer_to_buffer(&dst, 0, &readback, 0, dst_size);
    p.queue().submit([encoder.finish()]);
    let got = read_buffer(device, &readback, dst_size).map_err(|e| e.to_string())?;

    let start = offsets.1 as usize;
    let region = &got[start..start + bytes];
    if region != expected.as_slice() {
        let first = region
            .iter()
            .zip(&expected)
            .position(|(a, b)| a != b)
            .unwrap();
        return Err(format!(
            "wrong output for shape {shape:?} perm {perm:?} elem {elem_size} offsets {offsets:?}: \
             first bad byte {first} (element {}), got {:#04x} want {:#04x}\n  plan: {plan}",
            first / elem_size,
            region[first],
            expected[first]
        ));
    }
    let outside = got[..start].iter().chain(&got[start + bytes..]);
    if let Some(i) = outside.clone().position(|&b| b != SENTINEL) {
        return Err(format!(
            "write outside the tensor for shape {shape:?} perm {perm:?} elem {elem_size}: \
             outside byte {i} changed\n  plan: {plan}"
        ));
    }
    Ok(plan)
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
