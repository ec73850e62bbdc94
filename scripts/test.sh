#!/usr/bin/env bash
# Quick start, test: set up, then every test with GPU tests on the default Vulkan adapter
# (lavapipe on a machine without a GPU), then a representative GPU subset on wgpu's GL
# backend (llvmpipe through EGL, headless): the downlevel path, without SHADER_INT64 or
# SHADER_F16. Release mode: lavapipe is slow enough. Extra arguments go to the first run.
source "$(dirname "$0")/setup.sh"
cd "$(dirname "$0")/.."
cargo test --release --features cli "$@"
echo "GL backend subset (WGPU_BACKEND=gl):"
WGPU_BACKEND=gl cargo test --release --features cli --test gpu --test reliability -- \
    every_permutation edges_of_every_kernel colour_channels random_permutes forced_64_bit index_math_64_bit \
    permute_slice buffer_errors size_zero gpu_permute_and_recording packed_tiled \
    a_device_with_low_binding_limits grids_fold own_device_plans
