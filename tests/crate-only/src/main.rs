//! Permutes f32 and f16 data through the crate alone; see Cargo.toml.

use half::f16;
use wgpu_permute::{PermuteError, Permuter};

fn main() {
    match (Permuter::new_default(), cfg!(feature = "backends")) {
        (Ok(p), true) => {
            let out = p
                .permute_slice(&[1f32, 2., 3., 4., 5., 6.], &[2, 3], &[1, 0])
                .expect("permute");
            assert_eq!(out, [1., 4., 2., 5., 3., 6.]);
            let halves: Vec<f16> = (0..6).map(|i| f16::from_f32(i as f32)).collect();
            let out = p.permute_slice(&halves, &[3, 2], &[1, 0]).expect("permute f16");
            assert_eq!(out, [0., 2., 4., 1., 3., 5.].map(f16::from_f32));
            println!("crate-only app: permuted on {}", p.device().adapter_info().name);
        }
        (Err(PermuteError::NoBackend { requested }), false) => {
            println!("crate-only app without backends: NoBackend ({requested}), as it should");
        }
        (result, backends) => {
            eprintln!("crate-only app (backends: {backends}): unexpected {:?}", result.err());
            std::process::exit(1);
        }
    }
}
