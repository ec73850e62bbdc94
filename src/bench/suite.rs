//! The benchmark's cases: real-model permutes ([`default_suite`]) and views
//! ([`view_suite`]), each an operation on a contiguous source.

use crate::Relayout;
use crate::plan::Options;
use crate::view::{Bound, View};

/// One benchmark case: an operation on a contiguous source tensor, with what the reports
/// say of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Case {
    /// `[64,512,512] (0,2,1) 4B`, or `view: slice [8192,4096]->[4096,4096] 4B`.
    pub label: String,
    /// The source tensor's shape (contiguous, row-major).
    pub shape: Vec<usize>,
    /// A permute case's permutation (output dim `i` is source dim `perm[i]`); empty for views.
    pub perm: Vec<usize>,
    /// A view case's name (`slice`, `flip`, ...): listed in the views section, even one
    /// that plans as a permute.
    pub view: Option<&'static str>,
    pub op: Relayout,
}

impl Case {
    /// A permute case. Panics on a bad permutation: the suites are fixed.
    pub fn new(shape: &[usize], perm: &[usize], elem_size: usize) -> Self {
        Case {
            label: format!("[{}] ({}) {elem_size}B", list(shape), list(perm)),
            shape: shape.to_vec(),
            perm: perm.to_vec(),
            view: None,
            op: Relayout::permute(shape, perm, elem_size).expect("a valid suite permute"),
        }
    }

    /// A view case: `view` of a contiguous `shape` tensor, padding read as zeros.
    pub fn view(name: &'static str, shape: &[usize], view: View, elem_size: usize) -> Self {
        let label = format!(
            "view: {name} [{}]->[{}] {elem_size}B",
            list(shape),
            list(&view.shape)
        );
        let padded = !view.bounds.is_empty();
        let op =
            Relayout::view(view, shape.iter().product(), elem_size).expect("a valid suite view");
        Case {
            label,
            shape: shape.to_vec(),
            perm: Vec::new(),
            view: Some(name),
            op: if padded {
                op.with_fill(&vec![0; elem_size])
            } else {
                op
            },
        }
    }

    /// Bytes of the output (of the source too, for a permute).
    pub fn bytes(&self) -> u64 {
        (self.op.dst_len() * self.op.elem_size()) as u64
    }

    /// Bytes of the source tensor.
    pub fn source_bytes(&self) -> u64 {
        (self.op.src_len() * self.op.elem_size()) as u64
    }

    /// The case's operation with `options` forcing choices.
    pub fn with_options(&self, options: Options) -> Relayout {
        self.op.clone().with_options(options)
    }

    /// `[64,512,512] (0,2,1) 4B`, or `view: slice [8192,4096]->[4096,4096] 4B`.
    pub fn label(&self) -> String {
        self.label.clone()
    }
}

fn list(v: &[usize]) -> String {
    v.iter()
        .map(|x| x.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

/// The default suite: real-model permutes of 16-64 MiB each at `scale` 1 (plus images of 4.6
/// and 18 MiB, and a small odd one for variety). `scale` multiplies the outermost dim, for
/// GPUs that finish these too quickly to time well.
pub fn default_suite(scale: usize) -> Vec<Case> {
    default_suite_sized(&|n| n * scale.max(1))
}

/// [`default_suite`] with each case's outermost dim `n` made `outer(n)` (at least 1):
/// smaller suites for tests.
pub fn default_suite_sized(outer: &dyn Fn(usize) -> usize) -> Vec<Case> {
    let cases: [(&[usize], &[usize], usize); 16] = [
        (&[4096, 4096], &[1, 0], 4),
        (&[64, 512, 512], &[0, 2, 1], 4),
        (&[64, 512, 512], &[0, 2, 1], 2),
        (&[64, 512, 512], &[0, 2, 1], 1),
        (&[512, 512, 64], &[1, 0, 2], 4),
        (&[8, 512, 16, 64], &[0, 2, 1, 3], 4),
        (&[8, 512, 16, 64], &[0, 2, 1, 3], 2),
        (&[32, 64, 56, 56], &[0, 2, 3, 1], 4),
        (&[32, 56, 56, 64], &[0, 3, 1, 2], 4),
        (&[64, 64, 64, 64], &[3, 2, 1, 0], 4),
        (&[8, 8, 8, 8, 8, 32], &[2, 5, 0, 4, 1, 3], 4),
        (&[32, 512, 512], &[0, 2, 1], 8),
        (&[2048, 2048], &[1, 0], 16),
        (&[3, 1000, 7], &[2, 0, 1], 4),
        // Images: 8-bit NHWC to planes (a data loader's), f32 NCHW to interleaved channels.
        (&[32, 224, 224, 3], &[0, 3, 1, 2], 1),
        (&[32, 3, 224, 224], &[0, 2, 3, 1], 4),
    ];
    cases
        .iter()
        .map(|(shape, perm, elem)| {
            let mut shape = shape.to_vec();
            shape[0] = outer(shape[0]).max(1);
            Case::new(&shape, perm, *elem)
        })
        .collect()
}

/// The views section: views of f32 tensors materialised contiguously, 64 MiB of output each
/// at `scale` 1 (the head split 16 MiB, the padded NCHW4c 3 MiB: real-model shapes).
/// `scale` multiplies the outermost dim, as in [`default_suite`].
pub fn view_suite(scale: usize) -> Vec<Case> {
    view_suite_sized(&|n| n * scale.max(1))
}

/// [`view_suite`] with each case's outermost dim `n` made `outer(n)` (at least 1).
pub fn view_suite_sized(outer: &dyn Fn(usize) -> usize) -> Vec<Case> {
    let s = |n: usize| outer(n).max(1);
    let strided = |shape: &[usize], strides: &[usize], offset: usize| View {
        shape: shape.to_vec(),
        strides: strides.iter().map(|&x| x as isize).collect(),
        offset: offset as isize,
        ..View::contiguous(&[])
    };
    let flipped = |mut view: View, dim: usize| {
        view.offset += view.strides[dim] * (view.shape[dim] as isize - 1);
        view.strides[dim] = -view.strides[dim];
        view
    };
    let (r, c) = (s(4096), 4096);
    let square = View::contiguous(&[r, c]);
    // `b s (h d) -> b h s d`: a permute, so planned exactly as the permute.
    let (b, t, h, d) = (s(8), 512, 16, 64);
    // NCHW -> NCHW4c on 6 channels: `n (cb c) h w -> n cb h w c` with c = 4, where the
    // combined channel index `(cb c)` past 6 reads the fill value 0.
    let (n, ch, y, x) = (s(32), 6, 56, 56);
    let nchw4c = View {
        bounds: vec![Bound {
            dims: vec![1, 4],
            valid: 0..ch,
        }],
        ..strided(&[n, 2, y, x, 4], &[ch * y * x, 4 * y * x, x, 1, y * x], 0)
    };
    vec![
        Case::view(
            "slice ::2",
            &[2 * r, c],
            strided(&[r, c], &[2 * c, 1], 0),
            4,
        ),
        Case::view("flip dim 1", &[r, c], flipped(square.clone(), 1), 4),
        Case::view("flip dim 0", &[r, c], flipped(square, 0), 4),
        Case::view("broadcast", &[1, c], strided(&[r, c], &[0, 1], 0), 4),
        Case::view(
            "head split",
            &[b, t, h * d],
            strided(&[b, h, t, d], &[t * h * d, d, h * d, 1], 0),
            4,
        ),
        Case::view("NCHW4c pad", &[n, ch, y, x], nchw4c, 4),
    ]
}
