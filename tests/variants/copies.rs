//! Row copies (`Plan::row_copies`): long rows that stay whole move as buffer copies where
//! both buffers allow copies, and on the kernel where they do not.

use wgpu::util::DeviceExt;
use wgpu_permute::plan::View;
use wgpu_permute::{Options, Relayout, read_buffer, reference};

use super::common::{SENTINEL, case, check_many, cpu_family, cpu_planned, test_bytes};

/// Rows of 64 KiB of every element size, at offsets of whole words, views that flip the
/// rows' order or broadcast one row, and short rows forced to copy: every output element
/// lands in its place, with the guard bytes untouched (CPU adapters choose the copies).
#[test]
fn row_copies_land_in_place() {
    let Some(p) = cpu_family() else { return };
    let auto = Options::default();
    let forced = Options {
        row_copies: Some(true),
        ..auto
    };
    let mut cases = vec![case(&[2, 3, 128, 128], &[1, 0, 2, 3], 4, auto, (4, 8))];
    for elem in [1, 2, 8, 16] {
        cases.push(case(&[3, 2, 65536 / elem], &[1, 0, 2], elem, auto, (0, 4)));
    }
    cases.push(case(&[16, 8, 64], &[1, 0, 2], 4, forced, (16, 48)));
    let rows = View::contiguous(&[4, 16384]);
    let broadcast = View::contiguous(&[1, 16384])
        .broadcast(&[4, 16384])
        .unwrap();
    for (view, len) in [
        (rows.invert_axis(0).unwrap(), 4 * 16384),
        (broadcast, 16384),
    ] {
        cases.push(Relayout::view(view, len, 4).unwrap());
    }
    let fresh = cpu_planned(p);
    for (result, op) in check_many(&fresh, &cases).into_iter().zip(&cases) {
        let plan = result.unwrap_or_else(|e| panic!("{op:?}: {e}"));
        assert!(plan.cpu().row_copies, "{plan}");
    }
}

/// A plan of row copies on buffers that do not allow copies (a source without
/// `COPY_SRC`) runs its kernel instead, and lands in place just the same.
#[test]
fn row_copies_fall_back_to_the_kernel_without_copy_usage() {
    let Some(p) = cpu_family() else { return };
    let op = Relayout::permute(&[2, 3, 128, 128], &[1, 0, 2, 3], 4).unwrap();
    let prepared = p.prepare(&op).unwrap();
    assert!(
        prepared.plans()[0].cpu().row_copies,
        "{}",
        prepared.plans()[0]
    );
    let data = test_bytes(2 * 3 * 128 * 128 * 4, 7);
    let device = p.device();
    let src = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("storage-only source"),
        contents: &data,
        usage: wgpu::BufferUsages::STORAGE,
    });
    let size = data.len() as u64 + 256;
    let dst = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("destination"),
        contents: &vec![SENTINEL; size as usize],
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
    });
    let readback = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("readback"),
        size,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut encoder = device.create_command_encoder(&Default::default());
    p.record(&mut encoder, &src, &dst, &prepared).unwrap();
    encoder.copy_buffer_to_buffer(&dst, 0, &readback, 0, size);
    p.queue().submit([encoder.finish()]);
    let got = read_buffer(device, &readback, size).unwrap();
    let want = reference::run(&op, &data).unwrap();
    assert!(
        got[..data.len()] == want[..],
        "the kernel's output differs from the reference"
    );
    assert!(
        got[data.len()..].iter().all(|&b| b == SENTINEL),
        "a guard byte changed"
    );
}
