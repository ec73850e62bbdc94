//! The host round trip of `permute`, holding as few copies of the tensor as it can: the
//! input's host copy is freed once uploaded (unless `--check` needs it), the device's input
//! and output buffers are released before the result is read back, and `--check` compares
//! against the input in place instead of building a permuted reference copy.

use wgpu_permute::{Permuter, Plan, Request, captured, read_buffer, upload};

/// The plan that ran, the result, and the input if it was kept.
pub type Outcome = (Plan, Vec<u8>, Option<Vec<u8>>);

/// Permutes `data` on the GPU and returns the plan that ran, the result, and the input
/// again if `keep_input` (otherwise it is freed as soon as the device holds it).
pub fn permute(
    p: &Permuter,
    data: Vec<u8>,
    req: &Request,
    keep_input: bool,
) -> Result<Outcome, String> {
    let req = req.with_offsets(0, 0);
    let plan = p.plan(&req).map_err(|e| e.to_string())?;
    if data.len() as u64 != plan.bytes {
        return Err(format!(
            "the data holds {} bytes but the tensor has {}",
            data.len(),
            plan.bytes
        ));
    }
    if plan.bytes == 0 {
        return Ok((plan, Vec::new(), keep_input.then_some(data)));
    }
    let device = p.device();
    let size = plan.bytes.next_multiple_of(4);
    let max_buffer = device.limits().max_buffer_size;
    if size > max_buffer {
        return Err(format!(
            "a buffer holding the tensor needs {size} but the device limit `max_buffer_size` \
             is {max_buffer}"
        ));
    }
    let (src, dst, readback) = captured(device, || {
        let src = upload(
            device,
            p.queue(),
            "wgpu-permute input",
            &data,
            wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        );
        let buffer = |label, usage| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size,
                usage,
                mapped_at_creation: false,
            })
        };
        let dst = buffer(
            "wgpu-permute output",
            wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::COPY_SRC
                | wgpu::BufferUsages::COPY_DST,
        );
        let readback = buffer(
            "wgpu-permute readback",
            wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        );
        (src, dst, readback)
    })
    .map_err(|e| e.to_string())?;
    // `upload` copied the bytes to the queue's staging memory: the host copy can go.
    let kept = keep_input.then_some(data);
    let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
        label: Some("wgpu-permute"),
    });
    let plan = p
        .encode(&mut encoder, &src, &dst, &req)
        .map_err(|e| e.to_string())?;
    encoder.copy_buffer_to_buffer(&dst, 0, &readback, 0, size);
    captured(device, || p.queue().submit([encoder.finish()])).map_err(|e| e.to_string())?;
    // wgpu keeps them until the submission is done, then frees them while reading back.
    drop((src, dst));
    let out = read_buffer(device, &readback, plan.bytes).map_err(|e| e.to_string())?;
    Ok((plan, out, kept))
}

/// Compares `out` with `input` (row-major, `shape`, elements of `elem_size` bytes) permuted
/// by `perm`, element by element in output order, without building the reference.
pub fn check(
    input: &[u8],
    out: &[u8],
    shape: &[usize],
    perm: &[usize],
    elem_size: usize,
) -> Result<(), String> {
    if input.len() != out.len() {
        return Err(format!(
            "check failed: the result has {} bytes, the input {}",
            out.len(),
            input.len()
        ));
    }
    let rank = shape.len();
    let mut in_strides = vec![elem_size; rank];
    for d in (0..rank.saturating_sub(1)).rev() {
        in_strides[d] = in_strides[d + 1] * shape[d + 1];
    }
    let out_shape: Vec<usize> = perm.iter().map(|&p| shape[p]).collect();
    let strides: Vec<usize> = perm.iter().map(|&p| in_strides[p]).collect();
    let mut index = vec![0usize; rank];
    let mut offset = 0usize;
    for (i, got) in out.chunks_exact(elem_size).enumerate() {
        if input[offset..offset + elem_size] != *got {
            return Err(format!(
                "check failed: the GPU result differs from the CPU reference at output \
                 element {i} (index {index:?})"
            ));
        }
        // Odometer over the output shape, last dim fastest; `offset` follows in the input.
        for d in (0..rank).rev() {
            index[d] += 1;
            offset += strides[d];
            if index[d] < out_shape[d] {
                break;
            }
            offset -= strides[d] * out_shape[d];
            index[d] = 0;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use wgpu_permute::reference;

    #[test]
    fn check_agrees_with_the_reference() {
        let cases: [(&[usize], &[usize]); 7] = [
            (&[], &[]),
            (&[5], &[0]),
            (&[3, 4], &[1, 0]),
            (&[2, 3, 4], &[2, 0, 1]),
            (&[2, 0, 3], &[1, 2, 0]),
            (&[2, 1, 3, 2], &[3, 1, 0, 2]),
            (&[3, 2, 2, 3, 2], &[4, 2, 0, 3, 1]),
        ];
        for (shape, perm) in cases {
            for elem in [1, 2, 4, 8, 16] {
                let n: usize = shape.iter().product::<usize>() * elem;
                let input: Vec<u8> = (0..n).map(|i| (i * 7 + i / 251) as u8).collect();
                let mut want = reference::permute_bytes(&input, shape, perm, elem).unwrap();
                check(&input, &want, shape, perm, elem).unwrap();
                if let Some(b) = want.last_mut() {
                    *b ^= 1;
                    let e = check(&input, &want, shape, perm, elem).err().unwrap();
                    assert!(e.contains(&format!("element {}", n / elem - 1)), "{e}");
                }
            }
        }
        assert!(check(&[0; 8], &[0; 4], &[2], &[0], 4).is_err());
    }
}
