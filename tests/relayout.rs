//! [`Relayout`], the one operation value: every kind of movement recorded into the caller's
//! encoder next to the caller's own work, one submit; host round trips equal to the older
//! entry points; bad operations refused when built or before anything is recorded.

mod common;

use common::{SENTINEL, gpu, test_bytes};
use wgpu::util::DeviceExt;
use wgpu_permute::{PermuteError, Relayout, View, read_buffer, reference};

/// NCHW with 6 channels.
const NCHW: [usize; 4] = [2, 6, 5, 3];

/// A buffer holding `contents`, with every usage the tests need.
fn filled(device: &wgpu::Device, contents: &[u8]) -> wgpu::Buffer {
    device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("relayout test"),
        contents,
        usage: wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_SRC
            | wgpu::BufferUsages::COPY_DST,
    })
}

#[test]
fn a_padding_a_crop_and_a_permute_record_next_to_the_callers_copy_in_one_submit() {
    let Some(p) = gpu() else { return };
    let device = p.device();
    let n: usize = NCHW.iter().product();
    let data = test_bytes(n * 4, 11);
    let fill = 0xDEAD_BEEFu32.to_le_bytes();
    let pad =
        Relayout::rearrange_padded("n (cb c) h w -> n cb h w c", &NCHW, &[("c", 4)], 4, &fill)
            .unwrap();
    assert_eq!(pad.out_shape(), [2, 2, 5, 3, 4]);
    let crop =
        Relayout::rearrange_cropped("n cb h w c -> n (cb c) h w", pad.out_shape(), &[], 4, &NCHW)
            .unwrap();
    assert_eq!(crop.out_shape(), NCHW);
    // NCHW -> NHWC into a region 16 bytes into its buffer, guard bytes on both sides.
    let nhwc = Relayout::permute(&NCHW, &[0, 2, 3, 1], 4)
        .unwrap()
        .with_offsets(0, 16);
    let src = filled(device, &data);
    let copied = filled(device, &vec![SENTINEL; n * 4]);
    let padded = filled(device, &vec![SENTINEL; pad.dst_len() * 4]);
    let back = filled(device, &vec![SENTINEL; n * 4 + 8]);
    let permuted = filled(device, &vec![SENTINEL; n * 4 + 32]);
    let mut encoder = device.create_command_encoder(&Default::default());
    encoder.copy_buffer_to_buffer(&src, 0, &copied, 0, (n * 4) as u64);
    p.record(&mut encoder, &src, &padded, &pad).unwrap();
    p.record(&mut encoder, &padded, &back, &crop).unwrap();
    p.record(&mut encoder, &src, &permuted, &nhwc).unwrap();
    p.queue().submit([encoder.finish()]);
    let read = |b: &wgpu::Buffer| {
        let usage = wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST;
        let readback = common::buffer(device, b.size(), usage);
        let mut encoder = device.create_command_encoder(&Default::default());
        encoder.copy_buffer_to_buffer(b, 0, &readback, 0, b.size());
        p.queue().submit([encoder.finish()]);
        read_buffer(device, &readback, b.size()).unwrap()
    };
    assert_eq!(read(&copied), data);
    let (view, _) = &pad.views()[0];
    let want = reference::materialize_bytes(&data, view, 4, &fill, pad.dst_len()).unwrap();
    assert_eq!(read(&padded), want);
    // The crop undoes the padding; nothing after it is written.
    let got = read(&back);
    assert_eq!(got[..n * 4], data);
    assert!(got[n * 4..].iter().all(|&b| b == SENTINEL));
    let got = read(&permuted);
    let want = reference::permute_bytes(&data, &NCHW, &[0, 2, 3, 1], 4).unwrap();
    assert!(got[..16].iter().all(|&b| b == SENTINEL));
    assert_eq!(got[16..16 + n * 4], want);
    assert!(got[16 + n * 4..].iter().all(|&b| b == SENTINEL));
}

#[test]
fn host_round_trips_equal_the_older_entry_points() {
    let Some(p) = gpu() else { return };
    let x: Vec<f32> = (0..NCHW.iter().product::<usize>())
        .map(|i| i as f32)
        .collect();
    let op = Relayout::permute(&NCHW, &[0, 2, 3, 1], 4).unwrap();
    let want = p.permute_slice(&x, &NCHW, &[0, 2, 3, 1]).unwrap();
    assert_eq!(p.run(&op, &x).unwrap(), want);
    let pattern = "n (cb c) h w -> n cb h w c";
    let op = Relayout::rearrange_padded(pattern, &NCHW, &[("c", 4)], 4, &[0; 4]).unwrap();
    let (want, shape) = p
        .rearrange_padded_slice(&x, &NCHW, pattern, &[("c", 4)], 0.0)
        .unwrap();
    assert_eq!(
        (p.run(&op, &x).unwrap(), op.out_shape()),
        (want, &shape[..])
    );
    let op =
        Relayout::rearrange_cropped("n c h w -> n h w c", &NCHW, &[], 4, &[2, 4, 3, 5]).unwrap();
    let want = p
        .rearrange_cropped_slice(&x, &NCHW, "n c h w -> n h w c", &[], &[2, 4, 3, 5])
        .unwrap();
    assert_eq!(p.run(&op, &x).unwrap(), want);
    let plain = Relayout::rearrange("n c h w -> n h w c", &NCHW, &[], 4).unwrap();
    let want = p.permute_slice(&x, &NCHW, &[0, 2, 3, 1]).unwrap();
    assert_eq!(p.run(&plain, &x).unwrap(), want);
    // A flip of the channels, as a view.
    let mut flip = View::contiguous(&NCHW);
    flip.offset += 5 * flip.strides[1];
    flip.strides[1] = -flip.strides[1];
    let want = p.materialize_slice(&x, &flip, 0.0).unwrap();
    let op = Relayout::view(flip, x.len(), 4).unwrap();
    assert_eq!(p.run(&op, &x).unwrap(), want);
}

#[test]
fn bad_operations_are_typed_errors_before_anything_is_recorded() {
    assert_eq!(
        Relayout::permute(&[2, 3], &[0, 1], 3),
        Err(PermuteError::ElemSize(3))
    );
    assert!(matches!(
        Relayout::permute(&[2, 3], &[0, 0], 4),
        Err(PermuteError::PermDuplicate { .. })
    ));
    assert_eq!(
        Relayout::permute(&[1 << 62, 8], &[1, 0], 4),
        Err(PermuteError::SizeOverflow)
    );
    assert!(matches!(
        Relayout::rearrange("a b -> c", &[2, 3], &[], 4),
        Err(PermuteError::Rearrange(_))
    ));
    let row = (View::contiguous(&[4]), 2);
    assert_eq!(
        Relayout::parts(vec![row.clone(), row], 4, 8, 4),
        Err(PermuteError::OverlappingOutput)
    );
    let Some(p) = gpu() else { return };
    let op = Relayout::permute(&[4, 6], &[1, 0], 4).unwrap();
    assert!(matches!(
        p.run(&op, &[0u32; 23]),
        Err(PermuteError::DataLength { need: 24, .. })
    ));
    // A crop whose destination is too small for its last part: refused before any part
    // is recorded (the encoder stays empty and usable).
    let blocked = [2, 2, 5, 3, 4];
    let crop =
        Relayout::rearrange_cropped("n cb h w c -> n (cb c) h w", &blocked, &[], 4, &NCHW).unwrap();
    assert!(crop.views().len() > 1);
    let src = filled(p.device(), &[0; 2 * 2 * 5 * 3 * 4 * 4]);
    let dst = filled(p.device(), &[0; 400]);
    let mut encoder = p.device().create_command_encoder(&Default::default());
    assert!(matches!(
        p.record(&mut encoder, &src, &dst, &crop),
        Err(PermuteError::BufferTooSmall { .. })
    ));
    p.queue().submit([encoder.finish()]);
}
