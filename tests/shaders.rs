//! Every generated WGSL variant validates with naga: runs without a GPU.

use wgpu_permute::plan::{IndexMath, Kernel};
use wgpu_permute::shaders;

fn validate(source: &str, capabilities: naga::valid::Capabilities) -> Result<naga::Module, String> {
    let module = naga::front::wgsl::parse_str(source).map_err(|e| e.emit_to_string(source))?;
    naga::valid::Validator::new(naga::valid::ValidationFlags::all(), capabilities)
        .validate(&module)
        .map_err(|e| e.emit_to_string(source))?;
    Ok(module)
}

#[test]
fn every_variant_validates_and_names_its_entry_point_after_its_kernel() {
    let variants = shaders::all_variants();
    assert!(variants.len() > 200);
    for v in variants {
        let source = shaders::source(&v).expect("shader kernels have source");
        assert!(!source.contains("{{"), "unfilled placeholder in {v:?}");
        // Only the u64 variants may need a feature: moving 16-bit data needs no SHADER_F16.
        let caps = if v.index == IndexMath::U64 {
            naga::valid::Capabilities::SHADER_INT64
        } else {
            naga::valid::Capabilities::empty()
        };
        // Pipeline constants get values at pipeline creation; naga validates them as such.
        let module = validate(&source, caps).unwrap_or_else(|e| panic!("{v:?}:\n{e}"));
        let names: Vec<&str> = module
            .entry_points
            .iter()
            .map(|e| e.name.as_str())
            .collect();
        assert_eq!(names, [v.kernel.name()], "{v:?}");
    }
}

#[test]
fn u64_variants_really_need_int64() {
    let v = shaders::all_variants()
        .into_iter()
        .find(|v| v.index == IndexMath::U64)
        .unwrap();
    let source = shaders::source(&v).unwrap();
    assert!(validate(&source, naga::valid::Capabilities::empty()).is_err());
}

#[test]
fn kernels_without_shaders_have_no_source() {
    for kernel in [Kernel::Empty, Kernel::Copy] {
        let v = wgpu_permute::plan::Variant {
            kernel,
            rank: 1,
            unit: 4,
            index: IndexMath::U32,
            boxed: false,
            specialized: false,
        };
        assert!(shaders::source(&v).is_none());
    }
}

#[test]
fn shader_files_are_named_after_their_kernels() {
    assert!(shaders::GENERIC_WGSL.starts_with("// generic:"));
    assert!(shaders::TILED_WGSL.starts_with("// tiled:"));
    assert!(shaders::GENERIC_WGSL.contains("fn generic("));
    assert!(shaders::TILED_WGSL.contains("fn tiled("));
}

#[test]
fn the_benchmark_copy_shader_validates() {
    let module = validate(
        wgpu_permute::bench::VEC4_COPY_WGSL,
        naga::valid::Capabilities::empty(),
    )
    .unwrap_or_else(|e| panic!("vec4_copy:\n{e}"));
    assert_eq!(module.entry_points[0].name, "vec4_copy");
}
