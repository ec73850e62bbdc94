//! [`Relayout`], the one operation value: every kind of movement recorded into the caller's
//! encoder next to the caller's own work, one submit; host round trips, prepared or not,
//! equal to the CPU reference; bad operations refused when built or before anything is
//! recorded.

mod common;

use common::{SENTINEL, gpu, test_bytes};
use wgpu::util::DeviceExt;
use wgpu_permute::{PermuteError, Relayout, View, diagnostics, read_buffer, reference};

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
fn host_round_trips_prepared_or_not_equal_the_cpu_reference() {
    let Some(p) = gpu() else { return };
    let x: Vec<f32> = (0..NCHW.iter().product::<usize>())
        .map(|i| i as f32)
        .collect();
    let bytes: &[u8] = bytemuck::cast_slice(&x);
    // A flip of the channels, as a view.
    let mut flip = View::contiguous(&NCHW);
    flip.offset += 5 * flip.strides[1];
    flip.strides[1] = -flip.strides[1];
    let pattern = "n (cb c) h w -> n cb h w c";
    let ops = [
        Relayout::permute(&NCHW, &[0, 2, 3, 1], 4).unwrap(),
        Relayout::rearrange_padded(pattern, &NCHW, &[("c", 4)], 4, &[7; 4]).unwrap(),
        Relayout::rearrange_cropped("n c h w -> n h w c", &NCHW, &[], 4, &[2, 4, 3, 5]).unwrap(),
        Relayout::rearrange("n c h w -> n h w c", &NCHW, &[], 4).unwrap(),
        Relayout::view(flip, x.len(), 4).unwrap(),
        // Offsets are the regions' places in buffers the round trip makes itself.
        Relayout::permute(&NCHW, &[3, 1, 2, 0], 4)
            .unwrap()
            .with_offsets(12, 20),
    ];
    for op in &ops {
        let want: Vec<f32> = bytemuck::pod_collect_to_vec(&reference::run(op, bytes).unwrap());
        assert_eq!(p.run::<_, f32>(op, &x).unwrap(), want, "{op:?}");
        let prepared = p.prepare(op).unwrap();
        assert_eq!(prepared.relayout(), op);
        assert_eq!(p.run::<_, f32>(&prepared, &x).unwrap(), want, "{op:?}");
        // Elements of another size, where they tile the regions.
        let words: Vec<u16> = bytemuck::pod_collect_to_vec(bytes);
        let got: Vec<u16> = p.run(&prepared, &words).unwrap();
        assert_eq!(got, bytemuck::pod_collect_to_vec::<f32, u16>(&want));
    }
    // permute_slice is the permute's round trip.
    let want: Vec<f32> = p.run(&ops[0], &x).unwrap();
    assert_eq!(p.permute_slice(&x, &NCHW, &[0, 2, 3, 1]).unwrap(), want);
}

#[test]
fn a_prepared_operation_records_without_planning_or_compiling_again() {
    let Some(shared) = gpu() else { return };
    // Its own pipeline cache: the shared permuter's grows with the other tests.
    let p = &common::fresh(shared);
    let op = Relayout::permute(&[48, 80], &[1, 0], 2).unwrap();
    let prepared = p.prepare(&op).unwrap();
    let compiled = diagnostics::cached_pipelines(p);
    assert_eq!(prepared.plans().len(), 1);
    let data = test_bytes(48 * 80 * 2, 5);
    let src = filled(p.device(), &data);
    let dst = filled(p.device(), &vec![SENTINEL; 48 * 80 * 2]);
    for _ in 0..3 {
        let mut encoder = p.device().create_command_encoder(&Default::default());
        p.record(&mut encoder, &src, &dst, &prepared).unwrap();
        p.queue().submit([encoder.finish()]);
    }
    assert_eq!(diagnostics::cached_pipelines(p), compiled);
    let got: Vec<u8> = p.run(&prepared, &data).unwrap();
    assert_eq!(got, reference::run(&op, &data).unwrap());
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
        p.run::<_, u32>(&op, &[0u32; 23]),
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

/// A permute whose block sides micro blocks do not divide, on a CPU device, runs in parts
/// where it moves 256 KiB or more (`plan::edge_parts`): the body on
/// micro blocks, its edges on the generic kernel, each writing its box of the output in
/// place (guard bytes around, offsets within words), equal to the reference. Where the
/// edges would split words of packed data, or the tensor is small, one generic plan.
#[test]
fn odd_sides_run_their_body_on_micro_blocks_and_their_edges_generic() {
    use wgpu_permute::plan::{Kernel, Options};
    let Some(p) = gpu() else { return };
    let case = |shape: &[usize], perm: &[usize], elem, offsets| {
        common::case(shape, perm, elem, Options::default(), offsets)
    };
    let (micro, generic) = (Kernel::Micro, Kernel::Generic);
    let cases = [
        // Rows and columns each past whole blocks, at offsets of a word.
        (case(&[1001, 1001], &[1, 0], 4, (4, 8)), p.caps().cpu, 3),
        // 16-byte units: blocks of 2, rows odd.
        (case(&[513, 514], &[1, 0], 16, (0, 16)), p.caps().cpu, 2),
        // The 4-D reversal: rows 1 MiB apart, a strip of 3 columns kept whole.
        (
            case(&[33, 8, 9, 1027], &[3, 2, 1, 0], 4, (0, 0)),
            p.caps().cpu,
            3,
        ),
        (
            case(&[2, 601, 1001], &[0, 2, 1], 4, (16, 4)),
            p.caps().cpu,
            3,
        ),
        // A view that is a transpose runs in parts as its permute does.
        (
            Relayout::view(
                View {
                    shape: vec![1001, 1003],
                    strides: vec![1, 1001],
                    offset: 0,
                    ..View::contiguous(&[])
                },
                1001 * 1003,
                4,
            )
            .unwrap(),
            p.caps().cpu,
            3,
        ),
        // Edges in parts of 16-bit words: one plan.
        (case(&[1001, 1001], &[1, 0], 2, (0, 0)), false, 1),
        // Rows of 49 (a strip would be 8 at most): the body's 48 columns in blocks.
        (
            case(&[32, 2048, 49], &[0, 2, 1], 4, (0, 0)),
            p.caps().cpu,
            2,
        ),
        // Below `EDGE_SPLIT_BYTES` (67 KB): one plan.
        (case(&[129, 131], &[1, 0], 4, (0, 0)), false, 1),
    ];
    let ops: Vec<Relayout> = cases.iter().map(|(op, _, _)| op.clone()).collect();
    for (result, (op, parts, count)) in common::check_many(p, &ops).into_iter().zip(&cases) {
        result.unwrap_or_else(|e| panic!("{e}"));
        let prepared = p.prepare(op).unwrap();
        let kernels: Vec<Kernel> = prepared.plans().iter().map(|plan| plan.kernel()).collect();
        if *parts {
            let mut want = vec![micro];
            want.resize(*count, generic);
            assert_eq!(kernels, want, "{op:?}");
        } else {
            assert_eq!(kernels.len(), 1, "{op:?}: {kernels:?}");
        }
    }
}

/// A planner's request carrying a conversion becomes an operation that converts: every
/// field reaches the operation, and recording it writes the converted elements (it had
/// dropped the conversion and written the source's bytes unconverted), as the planner's
/// own path plans it.
#[test]
fn a_request_keeps_its_conversion_as_an_operation() {
    use wgpu_permute::convert::{Conversion, Dtype};
    let to_f32 = Conversion::new(Dtype::U8, Dtype::F32).unwrap();
    let req = wgpu_permute::Request {
        conversion: Some(&to_f32),
        ..wgpu_permute::Request::new(&[4, 12], &[1, 0], 1).with_offsets(4, 8)
    };
    let op = Relayout::from_request(&req).unwrap();
    assert_eq!(op.conversion(), Some(&to_f32));
    assert_eq!((op.dst_elem_size(), op.offsets()), (4, (4, 8)));
    let caps = wgpu_permute::DeviceCaps::default();
    let plans = op.plan(&caps).unwrap();
    assert_eq!(plans[0].conversion(), Some(&to_f32), "{}", plans[0]);
    let Some(p) = gpu() else { return };
    let data: Vec<u8> = (0..48).map(|i| (i * 5) as u8).collect();
    let got: Vec<f32> = p.run(&op, &data).unwrap();
    let want: Vec<f32> = reference::permute_slice(&data, &[4, 12], &[1, 0])
        .unwrap()
        .into_iter()
        .map(f32::from)
        .collect();
    assert_eq!(got, want);
}
