#!/usr/bin/env bash
# Quick start, test: set up, then run every test (GPU tests run on the default Vulkan
# adapter, lavapipe on a machine without a GPU). Release mode: lavapipe is slow enough.
source "$(dirname "$0")/setup.sh"
cd "$(dirname "$0")/.."
cargo test --release --features cli "$@"
