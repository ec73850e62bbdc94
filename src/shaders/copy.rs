//! The shader copy: the benchmark's ceiling, 16-byte units moved with the generic
//! kernel's thread layout; its template, parameter words and generator.

use crate::shaders::Storage;
use crate::shaders::{Build, GENERIC_ITEMS, GENERIC_WORKGROUP, TemplateError, fill, prelude};

/// Template of the benchmarks' copy kernel, the shader ceiling (entry point `vec4_copy`).
pub const VEC4_COPY_WGSL: &str = include_str!("../../shaders/vec4_copy.wgsl");

named_words! {
    /// Words of the benchmarks' copy kernel's parameter block.
    CopyWord {
        /// Workgroups in the dispatch.
        TotalWorkgroups = "TOTAL_WORKGROUPS",
        /// 16-byte units to copy.
        Units = "UNITS",
    }
}

/// The benchmarks' vec4 copy kernel.
pub fn vec4_copy_source(access64: bool) -> Result<String, TemplateError> {
    let kernel = fill(
        "vec4_copy.wgsl",
        VEC4_COPY_WGSL,
        &[("ITEMS", &format!("{GENERIC_ITEMS}u"))],
    )?;
    let prelude = prelude(
        Storage::of(16, access64),
        CopyWord::ALL.len(),
        &CopyWord::decls(),
        1,
        Build::Shipped,
        GENERIC_WORKGROUP,
    )?;
    Ok(prelude + &kernel)
}
