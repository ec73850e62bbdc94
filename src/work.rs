//! The GPU work of a plan as data: which shader runs, and its steps (parameter blocks, the
//! buffer windows bound, dispatch sizes, buffer copies). [`Permuter::record`] records
//! exactly these steps into a wgpu encoder, and [`Recorded`] writes the same steps out for
//! another WebGPU implementation to replay (Dawn in the tests, a browser in the bench page),
//! so the two cannot drift apart.
//!
//! Replaying: every shader has three bindings in group 0, the source window (read-only
//! storage), the destination window (storage) and the parameter block (uniform). A
//! [`Work`] with a shader is one compute pass; each [`Step::Dispatch`] binds its windows and
//! its parameter block, then dispatches. [`Step::Copy`] is `copyBufferToBuffer`. Works run
//! in order; dispatches that write one buffer are ordered by the implementation.
//!
//! [`Permuter::record`]: crate::Permuter::record

use crate::PermuteError;
use crate::plan::tuning::{GENERIC_ITEMS, GENERIC_WORKGROUP};
use crate::plan::{DeviceCaps, Kernel, Plan, Variant, fold_grid, prefers_access64};
use crate::shaders::{self, CopyWord};

/// A shader the work runs: a kernel variant (with the pipeline constants of a
/// shape-specialised plan), or the benchmark's shader copy.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Shader {
    /// A kernel variant; `constants` are its pipeline constants (names and whole values).
    Kernel {
        /// The variant.
        variant: Variant,
        /// Pipeline constants of a shape-specialised plan: the generic kernel's `D{i}`, `S{i}`,
        /// the micro kernel's `P{i}` and `BANDED` (`shaders::constants`).
        constants: Vec<(String, u64)>,
    },
    /// The shader copy of 16-byte units (`vec4_copy`), with 64-bit components or not.
    Copy {
        /// Moves `vec2<u64>` rather than `vec4<u32>` (needs `SHADER_INT64`).
        access64: bool,
    },
}

impl Shader {
    /// The WGSL source.
    pub fn wgsl(&self) -> Result<String, PermuteError> {
        match self {
            Shader::Kernel { variant, .. } => shaders::source(variant),
            Shader::Copy { access64 } => shaders::vec4_copy_source(*access64),
        }
        .map_err(|e| PermuteError::Internal(format!("shader generation: {e}")))
    }

    /// The entry point.
    pub fn entry(&self) -> &'static str {
        match self {
            Shader::Kernel { variant, .. } => variant.kernel().name(),
            Shader::Copy { .. } => "vec4_copy",
        }
    }

    /// A label for pipelines: `wgpu-permute tiled rank 2 unit 4 ...`.
    pub fn label(&self) -> String {
        match self {
            Shader::Kernel { variant, .. } => format!("wgpu-permute {variant}"),
            Shader::Copy { access64 } => format!("wgpu-permute vec4_copy access64={access64}"),
        }
    }

    /// The pipeline constants as wgpu takes them.
    pub fn constants(&self) -> Vec<(&str, f64)> {
        match self {
            Shader::Kernel { constants, .. } => constants
                .iter()
                .map(|(name, value)| (name.as_str(), *value as f64))
                .collect(),
            Shader::Copy { .. } => Vec::new(),
        }
    }
}

/// One step of a [`Work`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// `copy_buffer_to_buffer` of `bytes` bytes, source to destination.
    Copy {
        /// Byte offset in the source buffer.
        src_offset: u64,
        /// Byte offset in the destination buffer.
        dst_offset: u64,
        /// Bytes copied (a multiple of 4).
        bytes: u64,
    },
    /// One dispatch of the work's shader.
    Dispatch {
        /// The parameter block (binding 2), whole `vec4<u32>`s.
        params: Vec<u32>,
        /// Byte offset and size of the source window (binding 0).
        src_window: (u64, u64),
        /// Byte offset and size of the destination window (binding 1).
        dst_window: (u64, u64),
        /// Workgroups in x, y and z.
        workgroups: [u32; 3],
    },
}

/// The GPU work of one plan: its shader (none for copies and empty plans) and its steps.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Work {
    /// The shader every dispatch runs.
    pub shader: Option<Shader>,
    /// The steps, in order.
    pub steps: Vec<Step>,
}

impl Work {
    /// The work of `plan` on buffers that allow copies: nothing, a buffer copy, a buffer
    /// copy per row ([`Plan::row_copies`]), or one dispatch per chunk (binding window) of
    /// its kernel.
    pub fn of(plan: &Plan) -> Work {
        let (rows, bytes) = plan.row_copy_steps();
        if !rows.is_empty() {
            let steps = rows.into_iter().map(|(src_offset, dst_offset)| Step::Copy {
                src_offset,
                dst_offset,
                bytes,
            });
            return Work {
                shader: None,
                steps: steps.collect(),
            };
        }
        Work::of_kernel(plan)
    }

    /// The work of `plan`'s kernel, its row copies aside (buffers that do not allow copies).
    pub fn of_kernel(plan: &Plan) -> Work {
        match (plan.kernel, plan.variant()) {
            (Kernel::Copy, _) => Work {
                shader: None,
                steps: vec![Step::Copy {
                    src_offset: plan.src_start(),
                    dst_offset: plan.dst_offset,
                    bytes: plan.bytes,
                }],
            },
            (_, Some(variant)) => Work {
                shader: Some(Shader::Kernel {
                    variant,
                    constants: shaders::constants(plan)
                        .into_iter()
                        .map(|(name, value)| (name, value as u64))
                        .collect(),
                }),
                steps: plan
                    .chunks
                    .iter()
                    .map(|chunk| Step::Dispatch {
                        params: shaders::params(plan, chunk),
                        src_window: chunk.src_window,
                        dst_window: chunk.dst_window,
                        workgroups: chunk.workgroups,
                    })
                    .collect(),
            },
            (_, None) => Work {
                shader: None,
                steps: Vec::new(),
            },
        }
    }

    /// The benchmark's shader copy of the first `bytes` bytes (a multiple of 16) of the
    /// source into the destination from `dst_offset` on (a multiple of the device's storage
    /// offset alignment: the bench tries a few, `bench::CopyPlacement`), 16 bytes per access
    /// as the kernels move data on a device with `caps` (64-bit components where they take
    /// them): one dispatch per binding window, as the kernels split a tensor past one
    /// storage binding.
    pub fn shader_copy(
        bytes: u64,
        dst_offset: u64,
        caps: &DeviceCaps,
    ) -> Result<Work, PermuteError> {
        // Windows of whole 16-byte units, each starting on the offset alignment.
        let align = (caps.storage_offset_alignment as u64).max(16);
        if !dst_offset.is_multiple_of(align) {
            return Err(PermuteError::Internal(format!(
                "the shader copy's destination offset {dst_offset} is not a multiple of {align}"
            )));
        }
        dst_offset
            .checked_add(bytes)
            .ok_or(PermuteError::SizeOverflow)?;
        let limit = caps
            .max_storage_binding
            .min(crate::plan::tuning::MAX_WINDOW_BYTES);
        let window = (limit / align * align).max(align);
        let mut steps = Vec::new();
        let mut at = 0;
        while at < bytes || steps.is_empty() {
            let size = (bytes - at).min(window);
            let units = size / 16;
            let total = units.div_ceil((GENERIC_WORKGROUP * GENERIC_ITEMS) as u64);
            let mut params = vec![0u32; CopyWord::ALL.len().next_multiple_of(4)];
            params[CopyWord::TotalWorkgroups as usize] =
                u32::try_from(total).map_err(|_| PermuteError::SizeOverflow)?;
            params[CopyWord::Units as usize] =
                u32::try_from(units).map_err(|_| PermuteError::SizeOverflow)?;
            steps.push(Step::Dispatch {
                params,
                src_window: (at, size),
                dst_window: (dst_offset + at, size),
                workgroups: fold_grid(total, caps.max_workgroups_per_dim)?,
            });
            at += size;
        }
        Ok(Work {
            shader: Some(Shader::Copy {
                access64: prefers_access64(caps),
            }),
            steps,
        })
    }
}

/// The recorded form of several works (an operation's plans), self-contained: the WGSL of
/// each distinct shader once, and the works referring to them by index. With the `json`
/// feature, `Recorded::to_json` writes it for `web/replay.js`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Recorded {
    /// The distinct shaders, in first-use order.
    pub shaders: Vec<Shader>,
    /// Each work's shader (an index into `shaders`) and steps.
    pub works: Vec<(Option<usize>, Vec<Step>)>,
}

impl Recorded {
    /// The recorded form of the plans of an operation, in order.
    pub fn of_plans(plans: &[Plan]) -> Recorded {
        let mut recorded = Recorded {
            shaders: Vec::new(),
            works: Vec::new(),
        };
        for plan in plans {
            recorded.push(Work::of(plan));
        }
        recorded
    }

    /// Appends `work`, its shader shared with an earlier work's where they are the same.
    pub fn push(&mut self, work: Work) {
        let shader =
            work.shader.map(
                |shader| match self.shaders.iter().position(|s| *s == shader) {
                    Some(i) => i,
                    None => {
                        self.shaders.push(shader);
                        self.shaders.len() - 1
                    }
                },
            );
        self.works.push((shader, work.steps));
    }

    /// As JSON: `{"shaders": [{"label", "entry", "wgsl", "constants": {name: value}}],
    /// "works": [{"shader": index or null, "steps": [{"copy": {"src_offset", "dst_offset",
    /// "bytes"}} or {"dispatch": {"params": [u32], "src_window": [offset, size],
    /// "dst_window": [offset, size], "workgroups": [x, y, z]}}]}]}`. Sizes are exact in
    /// JSON numbers up to 2^53 bytes.
    #[cfg(feature = "json")]
    pub fn to_json(&self) -> Result<serde_json::Value, PermuteError> {
        use serde_json::json;
        let shaders = self
            .shaders
            .iter()
            .map(|shader| {
                let constants: serde_json::Map<String, serde_json::Value> = shader
                    .constants()
                    .into_iter()
                    .map(|(name, value)| (name.to_string(), json!(value)))
                    .collect();
                Ok(json!({
                    "label": shader.label(),
                    "entry": shader.entry(),
                    "wgsl": shader.wgsl()?,
                    "constants": constants,
                }))
            })
            .collect::<Result<Vec<_>, PermuteError>>()?;
        let step = |step: &Step| match step {
            Step::Copy {
                src_offset,
                dst_offset,
                bytes,
            } => {
                json!({"copy": {"src_offset": src_offset, "dst_offset": dst_offset, "bytes": bytes}})
            }
            Step::Dispatch {
                params,
                src_window,
                dst_window,
                workgroups,
            } => json!({"dispatch": {
                "params": params,
                "src_window": [src_window.0, src_window.1],
                "dst_window": [dst_window.0, dst_window.1],
                "workgroups": workgroups,
            }}),
        };
        let works: Vec<serde_json::Value> = self
            .works
            .iter()
            .map(|(shader, steps)| {
                json!({"shader": shader, "steps": steps.iter().map(step).collect::<Vec<_>>()})
            })
            .collect();
        Ok(json!({"shaders": shaders, "works": works}))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shader copy's destination windows start at its offset, its source's at 0, window
    /// by window past one binding; an offset off the alignment is refused.
    #[test]
    fn the_shader_copy_writes_from_its_destination_offset() {
        let caps = DeviceCaps {
            max_storage_binding: 1 << 20,
            storage_offset_alignment: 256,
            ..DeviceCaps::default()
        };
        let work = Work::shader_copy(3 << 19, 4096, &caps).unwrap();
        let windows: Vec<_> = (work.steps.iter())
            .map(|step| match step {
                Step::Dispatch {
                    src_window,
                    dst_window,
                    ..
                } => (*src_window, *dst_window),
                Step::Copy { .. } => panic!("a dispatch was expected"),
            })
            .collect();
        let (mib, half) = (1 << 20, 1 << 19);
        let want = [((0, mib), (4096, mib)), ((mib, half), (4096 + mib, half))];
        assert_eq!(windows, want);
        assert!(matches!(
            Work::shader_copy(1 << 20, 128, &caps),
            Err(PermuteError::Internal(_))
        ));
    }
}
