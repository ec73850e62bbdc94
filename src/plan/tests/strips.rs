//! Strips on CPU devices: flat strips over images of any size, channels by position,
//! lane-major runs.

use super::*;

/// Flat strips take images whose pixel counts, batch strides or plane offsets are not whole
/// 16 bytes, both ways, on CPU devices: where the planes are written as 4-byte elements or
/// read, the images have at least a block of pixels and all of them a whole number of
/// blocks; aligned images keep the aligned strips, and there are no bands.
#[test]
fn flat_strips_take_images_of_any_size() {
    use crate::convert::{Conversion, Dtype};
    let cpu = cpu();
    let (normalise, back) = image_conversions();
    let block = |shape: &[usize], perm: &[usize], elem: usize, c: Option<&Conversion>| {
        let mut req = Request::new(shape, perm, elem);
        req.conversion = c;
        let p = plan::plan(&req, &cpu).unwrap();
        let block = p.variant().and_then(|v| v.block());
        if block.is_some_and(|b| b.flat) {
            assert_eq!(p.micro_band(), None, "{p}");
        }
        block.map(|b| (b.flat, b.strip))
    };
    let (to_planes, to_pixels) = ([0, 3, 1, 2], [0, 2, 3, 1]);
    let flat_cols = Some((true, Some(Strip::Cols(3))));
    let flat_rows = Some((true, Some(Strip::Rows(3))));
    // Inception's 299 pixels a side, both ways, converting and not.
    let odd = [32, 299, 299, 3];
    let planes = [32, 3, 299, 299];
    assert_eq!(block(&odd, &to_planes, 1, Some(&normalise)), flat_cols);
    assert_eq!(block(&planes, &to_pixels, 4, Some(&back)), flat_rows);
    assert_eq!(block(&odd, &to_planes, 4, None), flat_cols);
    assert_eq!(block(&planes, &to_pixels, 1, None), flat_rows);
    assert_eq!(block(&[32, 5, 5, 3], &to_planes, 4, None), flat_cols);
    // 224 pixels a side: the aligned strips.
    let aligned = Some((false, Some(Strip::Cols(3))));
    let image = [32, 224, 224, 3];
    assert_eq!(block(&image, &to_planes, 1, Some(&normalise)), aligned);
    // Pixels of all images not a whole number of runs of blocks (one image of 299^2 pixels,
    // five): the blocks in whole runs, then the last pixels of the last image as a view on
    // the generic kernel, converting as the blocks do.
    let (one, five) = ([1, 299, 299, 3], [5, 299, 299, 3]);
    assert_eq!(block(&one, &to_planes, 1, Some(&normalise)), flat_cols);
    assert_eq!(block(&five, &to_planes, 4, None), flat_cols);
    assert_eq!(
        block(&[1, 3, 299, 299], &to_pixels, 4, Some(&back)),
        flat_rows
    );
    for (shape, perm, elem, c) in [
        (one, to_planes, 1, Some(&normalise)),
        (five, to_planes, 4, None),
        ([1, 3, 299, 299], to_pixels, 4, Some(&back)),
    ] {
        let mut req = Request::new(&shape, &perm, elem);
        req.conversion = c;
        let p = plan::plan(&req, &cpu).unwrap();
        let block = p.variant().and_then(|v| v.block()).unwrap();
        let (blocks, _) = plan::flat_blocks(&p, &block).unwrap();
        let run = crate::plan::tuning::MICRO_FLAT_RUN;
        assert_eq!((block.run, blocks % run as u64), (run, 0), "{p}");
        let parts = plan::with_edges(p.clone(), req.options, &cpu, &Default::default()).unwrap();
        assert_eq!(parts.len(), 2, "{p}");
        let tail = &parts[1];
        assert_eq!(tail.kernel, Kernel::Generic, "{tail}");
        assert_eq!(tail.conversion.is_some(), c.is_some(), "{tail}");
        let moved = blocks * block.elements() + tail.units();
        assert_eq!(moved, p.units(), "{p}");
    }
    // An affine over part of a merged short dim (3 channels of `2 x 3` values) cannot be
    // read over a tail's short dim: whole blocks only, no tail.
    let affine = Conversion::new(Dtype::U8, Dtype::F32)
        .unwrap()
        .with_affine(2, &[1.0, 2.0, 3.0], &[0.0; 3])
        .unwrap();
    let mut req = Request::new(&[16, 17, 2, 3], &[0, 2, 3, 1], 1);
    req.conversion = Some(&affine);
    let p = plan::plan(&req, &cpu).unwrap();
    assert!(
        p.variant().and_then(|v| v.block()).is_some_and(|b| b.flat),
        "{p}"
    );
    assert_eq!(plan::flat_tail(&p), None, "{p}");
    // The tail is a view of the plan's units, which may be wider than the elements: `[2, 5,
    // 4]` bytes `(1, 0, 2)` moves 4-byte units, one pixel of two of them left to the tail.
    let p = plan::plan(&Request::new(&[2, 5, 4], &[1, 0, 2], 1), &cpu).unwrap();
    let parts = plan::with_edges(p.clone(), Default::default(), &cpu, &Default::default()).unwrap();
    assert_eq!(parts.len(), 2, "{p}");
    assert_eq!((parts[1].unit, parts[1].bytes), (4, 8), "{}", parts[1]);
    // Not for 8-bit planes written (a word shared by two invocations), nor images of fewer
    // pixels than a block.
    assert_eq!(block(&odd, &to_planes, 1, None), None);
    assert_eq!(block(&[64, 1, 3, 3], &to_planes, 4, None), None);
    // Short dims that the block's side divides (4 and 8 f32 channels, 8 f16 planes), where
    // the pixels are odd: flat too, and among the validated variants.
    let all = crate::shaders::all_variants();
    for (shape, elem, strip) in [
        ([4, 9, 4], 4, Strip::Cols(4)),
        ([4, 9, 8], 4, Strip::Cols(8)),
        ([4, 4, 9], 4, Strip::Rows(4)),
        ([8, 8, 9], 2, Strip::Rows(8)),
    ] {
        let p = plan::plan(&Request::new(&shape, &[0, 2, 1], elem), &cpu).unwrap();
        let v = p.variant().unwrap();
        assert_eq!(
            v.block().map(|b| (b.flat, b.strip)),
            Some((true, Some(strip))),
            "{p}"
        );
        assert!(all.contains(&v), "{v} is not validated");
    }
}

#[test]
fn strips_hold_their_channels_by_position() {
    use crate::convert::{Conversion, Dtype};
    let cpu = cpu();
    let affine = |axis: usize, n: usize| {
        Conversion::new(Dtype::U8, Dtype::F32)
            .unwrap()
            .with_affine(axis, &[0.5, 2.0, -1.0][..n], &[1.0, 0.0, 3.0][..n])
            .unwrap()
    };
    let planned = |shape: &[usize], perm: &[usize], c: &Conversion| {
        let mut req = Request::new(shape, perm, 1);
        req.conversion = Some(c);
        plan::plan(&req, &cpu).unwrap()
    };
    // The image's three channels, and strips of 6 (2 x 3 values) whose channels step by 3
    // (the merged dim's outer axis) or by 1 (its inner axis, two rounds of 3).
    let image = planned(&[32, 224, 224, 3], &[0, 3, 1, 2], &affine(1, 3));
    assert_eq!(image.channels_by_position(), Some(3), "{image}");
    for (axis, n, want) in [(1, 2, [0, 0, 0, 1, 1, 1]), (2, 3, [0, 1, 2, 0, 1, 2])] {
        let p = planned(&[2, 32, 2, 3], &[0, 2, 3, 1], &affine(axis, n));
        assert_eq!(p.channels_by_position(), Some(6), "{p}");
        // Step 1, six positions, then each position's scale and (64 words on) its bias.
        let words = crate::shaders::params(&p, &p.chunks[0]);
        let scales: Vec<u32> = want
            .iter()
            .map(|&c| [0.5f32, 2.0, -1.0][c].to_bits())
            .collect();
        let biases: Vec<u32> = want
            .iter()
            .map(|&c| [1.0f32, 0.0, 3.0][c].to_bits())
            .collect();
        let at = (0..words.len() - 6)
            .find(|&i| words[i..i + 2] == [1, 6] && words[i + 4..i + 10] == scales[..])
            .unwrap_or_else(|| panic!("no table by position in {words:?}"));
        let bias_at = at + 4 + crate::convert::MAX_CHANNELS;
        assert_eq!(words[bias_at..bias_at + 6], biases[..], "{p}");
    }
    // Square blocks' channels move with the block: computed, not by position.
    let columns = Conversion::new(Dtype::U8, Dtype::F32)
        .unwrap()
        .with_affine(1, &[2.0; 64], &[1.0; 64])
        .unwrap();
    let square = planned(&[2, 64, 64], &[0, 2, 1], &columns);
    assert!(
        square
            .variant()
            .and_then(|v| v.block())
            .is_some_and(|b| b.strip.is_none())
    );
    assert_eq!(square.channels_by_position(), None, "{square}");
}

/// An aligned column strip's runs are lane-major on CPU devices, over at most two batch dims,
/// where they make
/// `MICRO_LANE_MAJOR_MIN_WORKGROUPS` workgroups (runs of `MICRO_LANE_MAJOR_RUN`, the last
/// workgroup's ending part way), never on GPUs (no runs) nor in bands; fewer blocks keep
/// neighbour runs.
#[test]
fn column_strips_run_lane_major_where_blocks_are_many() {
    use crate::plan::tuning::{MICRO_LANE_MAJOR_RUN, MICRO_WORKGROUP};
    let block = |shape: &[usize], perm: &[usize], caps: &DeviceCaps| {
        let micro = Options {
            kernel: Some(Kernel::Micro),
            ..Options::default()
        };
        let p = plan::plan(&Request::new(shape, perm, 1).with_options(micro), caps).unwrap();
        (p.variant().and_then(|v| v.block()).unwrap(), p)
    };
    // 32 images of 224 x 224 pixels: 100352 blocks of 16 pixels.
    let (b, p) = block(&[32, 50176, 3], &[0, 2, 1], &cpu());
    assert!(b.lane_major && b.strip == Some(Strip::Cols(3)), "{p}");
    assert_eq!(b.run, MICRO_LANE_MAJOR_RUN, "{p}");
    let per_workgroup = (MICRO_LANE_MAJOR_RUN * MICRO_WORKGROUP) as u64;
    assert_eq!(p.workgroups(), 100352u64.div_ceil(per_workgroup), "{p}");
    assert_eq!(p.micro_band(), None, "{p}");
    // 1100 images of 240 pixels: 16500 blocks, the last workgroup's runs end part way.
    let (b, p) = block(&[1100, 240, 3], &[0, 2, 1], &cpu());
    assert!(b.lane_major, "{p}");
    assert_eq!(p.workgroups(), 16500u64.div_ceil(per_workgroup), "{p}");
    // Two batch dims (a centre crop's): lane-major too, a listed variant.
    let (b, p) = block(&[550, 2, 240, 3], &[1, 0, 3, 2], &cpu());
    assert!(b.lane_major && b.strip == Some(Strip::Cols(3)), "{p}");
    assert!(validated().contains(&p.variant().unwrap()), "{p}");
    // Planes to pixels, and three batch dims: neighbour runs.
    let (b, p) = block(&[1100, 3, 240], &[0, 2, 1], &cpu());
    assert!(!b.lane_major && b.strip == Some(Strip::Rows(3)), "{p}");
    let (b, p) = block(&[275, 2, 2, 240, 3], &[2, 1, 0, 4, 3], &cpu());
    assert_eq!(p.dims.len(), 5, "{p}");
    assert!(!b.lane_major && b.strip == Some(Strip::Cols(3)), "{p}");
    // One image: 3136 blocks, 4 workgroups lane_major: neighbour runs.
    let (b, p) = block(&[50176, 3], &[1, 0], &cpu());
    assert!(!b.lane_major && b.run == 4, "{p}");
    let (b, p) = block(&[32, 50176, 3], &[0, 2, 1], &DeviceCaps::default());
    assert!(!b.lane_major && b.run == 1, "{p}");
}

/// Past one binding (128 MiB), flat strips run in boxes of whole images, as many as start
/// a whole run of blocks (32 images of 299^2 pixels; the box's interleaved side on whole 16
/// bytes), both ways; the boxes' blocks add up to the whole tensor's, the tail (one image
/// more than a box's multiple) left to a part as in one binding. Two batch dims out of
/// order would cut images out of order: not flat past one binding.
#[test]
fn flat_strips_split_into_whole_images_past_one_binding() {
    let cpu = cpu();
    let (normalise, back) = image_conversions();
    for (shape, perm, c, interleaved_in) in [
        ([128, 299, 299, 3], [0, 3, 1, 2], &normalise, true),
        ([129, 299, 299, 3], [0, 3, 1, 2], &normalise, true),
        ([128, 3, 299, 299], [0, 2, 3, 1], &back, false),
    ] {
        let mut req = Request::new(&shape, &perm, c.from().size());
        req.conversion = Some(c);
        let p = plan::plan(&req, &cpu).unwrap();
        let block = p.variant().and_then(|v| v.block()).unwrap();
        assert!(block.flat && p.chunks.len() > 1, "{p}");
        check_chunks(&p, &cpu, cpu.max_storage_binding);
        let images = plan::cpu::flat_box_images(&p, &block).unwrap();
        assert_eq!(images, 32, "{p}");
        let (unit, strides) = match interleaved_in {
            true => (p.unit, p.in_strides()),
            false => (p.dst_unit(), p.out_strides_by_input_dim()),
        };
        let mut blocks = 0;
        for c in &p.chunks {
            assert_eq!(c.lo[0] % images, 0, "{p}: {c:?}");
            assert_eq!(
                (c.lo[1], c.lo[2], c.hi[1], c.hi[2]),
                (0, 0, p.dims[1], p.dims[2])
            );
            assert_eq!(c.lo[0] * strides[0] * unit as u64 % 16, 0, "{p}: {c:?}");
            let extents: Vec<u64> = (0..3).map(|d| c.hi[d] - c.lo[d]).collect();
            blocks += plan::flat_box_blocks(&p, &block, &extents).unwrap().0;
        }
        assert_eq!(
            Some(blocks),
            plan::flat_blocks(&p, &block).map(|b| b.0),
            "{p}"
        );
        let parts = plan::with_edges(p.clone(), req.options, &cpu, &Default::default()).unwrap();
        let tail = parts.get(1).map_or(0, |t| t.units());
        assert_eq!(blocks * block.elements() + tail, p.units(), "{p}");
        assert_eq!(parts.len(), 1 + (shape[0] == 129) as usize, "{p}");
    }
    let p = plan::plan(&Request::new(&[2, 64, 89401, 3], &[1, 0, 3, 2], 4), &cpu).unwrap();
    assert!(p.chunks.len() > 1, "{p}");
    assert!(
        !p.variant().and_then(|v| v.block()).is_some_and(|b| b.flat),
        "{p}"
    );
}

/// Interleaved u8 images normalised into f32 planes (torchvision's values), and f32 back to
/// u8.
fn image_conversions() -> (crate::convert::Conversion, crate::convert::Conversion) {
    use crate::convert::{Conversion, Dtype};
    let normalise = Conversion::new(Dtype::U8, Dtype::F32)
        .unwrap()
        .normalized(1, &[0.485, 0.456, 0.406], &[0.229, 0.224, 0.225])
        .unwrap();
    (normalise, Conversion::new(Dtype::F32, Dtype::U8).unwrap())
}
