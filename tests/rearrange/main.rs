//! einops `rearrange` on the GPU: the library calls against hand-computed results and the
//! CPU reference, for every element size the patterns are used with; then (with the `cli`
//! feature) `wgpu-permute rearrange` end to end against `einops.rearrange` in python.

#[cfg(feature = "cli")]
mod cli;
#[path = "../common/mod.rs"]
mod common;
mod host;
mod padding;

use common::{gpu, test_bytes};
use wgpu::util::DeviceExt;
use wgpu_permute::rearrange::{RearrangeError, rearrange};
use wgpu_permute::{Kernel, PermuteError, Permuter, Plan, Relayout, read_buffer, reference};

/// A pattern with its shape and axis sizes, and the input element index of each output
/// element in output order, computed by hand (not from the planner's split and perm).
struct Known {
    pattern: &'static str,
    shape: &'static [usize],
    axes: &'static [(&'static str, usize)],
    out_shape: &'static [usize],
    gather: Vec<usize>,
}

/// The input index of every output element, for the output index ranges `out` (row-major,
/// last fastest) and the input index of one output index.
fn walk(out: &[usize], input: impl Fn(&[usize]) -> usize) -> Vec<usize> {
    let mut index = vec![0; out.len()];
    let mut gather = Vec::new();
    if out.contains(&0) {
        return gather;
    }
    loop {
        gather.push(input(&index));
        let Some(d) = (0..out.len()).rev().find(|&d| index[d] + 1 < out[d]) else {
            return gather;
        };
        index[d] += 1;
        index[d + 1..].iter_mut().for_each(|i| *i = 0);
    }
}

fn known_cases() -> Vec<Known> {
    vec![
        // Attention heads: (b, s, h*d) -> (b, h, s, d), h = 2, d = 4.
        Known {
            pattern: "b s (h d) -> b h s d",
            shape: &[2, 3, 8],
            axes: &[("h", 2)],
            out_shape: &[2, 2, 3, 4],
            gather: walk(&[2, 2, 3, 4], |i| i[0] * 24 + i[2] * 8 + i[1] * 4 + i[3]),
        },
        // NCHW -> NHWC.
        Known {
            pattern: "b c h w -> b h w c",
            shape: &[2, 3, 4, 5],
            axes: &[],
            out_shape: &[2, 4, 5, 3],
            gather: walk(&[2, 4, 5, 3], |i| i[0] * 60 + i[3] * 20 + i[1] * 5 + i[2]),
        },
        // Patches of 2 x 3 of a (2, 3, 4, 6) image batch: h = 2, w = 2.
        Known {
            pattern: "b c (h p1) (w p2) -> b (h w) (p1 p2 c)",
            shape: &[2, 3, 4, 6],
            axes: &[("p1", 2), ("p2", 3)],
            out_shape: &[2, 4, 18],
            gather: walk(&[2, 2, 2, 2, 3, 3], |i| {
                let [b, h, w, p1, p2, c] = i.try_into().unwrap();
                b * 72 + c * 24 + (h * 2 + p1) * 6 + w * 3 + p2
            }),
        },
        // Heads merged back: (b, h, s, d) -> (b, s, h*d).
        Known {
            pattern: "b h s d -> b s (h d)",
            shape: &[2, 3, 4, 5],
            axes: &[],
            out_shape: &[2, 4, 15],
            gather: walk(&[2, 4, 3, 5], |i| i[0] * 60 + i[2] * 20 + i[1] * 5 + i[3]),
        },
        // Only a reshape: nothing moves.
        Known {
            pattern: "a b c -> a (b c) 1",
            shape: &[2, 3, 4],
            axes: &[],
            out_shape: &[2, 12, 1],
            gather: (0..24).collect(),
        },
        // The dims under `...` move as one block.
        Known {
            pattern: "b ... c -> b c ...",
            shape: &[2, 3, 4, 5],
            axes: &[],
            out_shape: &[2, 5, 3, 4],
            gather: walk(&[2, 5, 3, 4], |i| i[0] * 60 + i[2] * 20 + i[3] * 5 + i[1]),
        },
    ]
}

fn gathered(data: &[u8], gather: &[usize], elem: usize) -> Vec<u8> {
    gather
        .iter()
        .flat_map(|&i| &data[i * elem..][..elem])
        .copied()
        .collect()
}

/// The host round trip of `op` on `data`, with the output's shape.
fn run<T: bytemuck::Pod>(
    p: &Permuter,
    op: Result<Relayout, PermuteError>,
    data: &[T],
) -> Result<(Vec<T>, Vec<usize>), PermuteError> {
    let op = op?;
    Ok((p.run(&op, data)?, op.out_shape().to_vec()))
}

/// Bytes per element of `data`.
fn elem_of<T>(_: &[T]) -> usize {
    size_of::<T>()
}

/// Records `op` on its own and submits it; its plans and the output's shape.
fn submit(
    p: &Permuter,
    src: &wgpu::Buffer,
    dst: &wgpu::Buffer,
    op: Result<Relayout, PermuteError>,
) -> Result<(Vec<Plan>, Vec<usize>), PermuteError> {
    let op = p.prepare(&op?)?;
    let mut encoder = p.device().create_command_encoder(&Default::default());
    p.record(&mut encoder, src, dst, &op)?;
    p.queue().submit([encoder.finish()]);
    Ok((op.plans().to_vec(), op.relayout().out_shape().to_vec()))
}

/// Buffers of `bytes` for a rearrange: source holding them, destination, readback.
fn buffers(p: &wgpu_permute::Permuter, bytes: &[u8]) -> [wgpu::Buffer; 3] {
    let device = p.device();
    let size = (bytes.len() as u64).next_multiple_of(4);
    let mut padded = bytes.to_vec();
    padded.resize(size as usize, 0);
    let src = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: None,
        contents: &padded,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
    });
    let buffer = |usage| {
        device.create_buffer(&wgpu::BufferDescriptor {
            label: None,
            size,
            usage,
            mapped_at_creation: false,
        })
    };
    let dst = buffer(
        wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
    );
    let readback = buffer(wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST);
    [src, dst, readback]
}
