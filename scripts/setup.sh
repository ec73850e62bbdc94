# Sourced by scripts/bench.sh and scripts/test.sh: makes a fresh Debian machine ready.
# Installs a Vulkan driver when none is present (Mesa's lavapipe runs Vulkan on the CPU,
# so no GPU is needed) and selects the Vulkan backend, since wgpu would otherwise fall back
# to a GL software adapter without saying so.
set -euo pipefail

if ! command -v cargo >/dev/null 2>&1; then
    echo "error: cargo not found: install Rust (https://rustup.rs) first" >&2
    exit 1
fi

# Vulkan (lavapipe) for the main suite, EGL + GL (llvmpipe) for the downlevel subset.
drivers_ready() {
    local libs icds
    libs="$(ldconfig -p 2>/dev/null || true)"
    icds="$(ls /usr/share/vulkan/icd.d/ /etc/vulkan/icd.d/ 2>/dev/null || true)"
    [[ "$libs" == *libvulkan.so.1* && "$icds" == *.json* && "$libs" == *libEGL.so.1* ]] &&
        ls /usr/lib/*/dri/swrast_dri.so >/dev/null 2>&1
}
if ! drivers_ready; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "setup: installing Mesa's Vulkan and GL drivers (lavapipe, llvmpipe)..."
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mesa-vulkan-drivers libvulkan1 \
            libegl1 libegl-mesa0 libgl1-mesa-dri >/dev/null
    else
        echo "error: no Vulkan driver found: install mesa-vulkan-drivers libegl1 libgl1-mesa-dri (as root: apt-get install ...)" >&2
        exit 1
    fi
fi

# numpy, for the command-line tool's .npy round-trip test.
if ! python3 -c 'import numpy' >/dev/null 2>&1; then
    echo "setup: installing numpy..."
    python3 -m pip install -q numpy 2>/dev/null ||
        { [ "$(id -u)" = 0 ] && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-numpy >/dev/null; } ||
        { echo "error: could not install numpy (pip install numpy)" >&2; exit 1; }
fi
# einops, which the rearrange tests compare with. Debian 12 has no package of it, so pip
# only; where pip may not change the system python (PEP 668), einops (pure python, no
# dependencies) goes in with --break-system-packages.
if ! python3 -c 'import einops' >/dev/null 2>&1; then
    echo "setup: installing einops..."
    python3 -m pip install -q einops 2>/dev/null ||
        python3 -m pip install -q --break-system-packages einops 2>/dev/null ||
        { echo "error: could not install einops (pip install einops), which the rearrange tests compare with" >&2; exit 1; }
fi

# SwiftShader, the Vulkan driver Debian's chromium ships: a third driver, with other
# limits than lavapipe's (256 invocations, 256-byte offset alignment, subgroups of 4, no
# SHADER_INT64), and the one Dawn runs on here. Only the test command asks for it
# (WGPU_PERMUTE_SWIFTSHADER=1).
SWIFTSHADER_ICD=/usr/lib/chromium/vk_swiftshader_icd.json
if [ "${WGPU_PERMUTE_SWIFTSHADER:-}" = 1 ] && [ ! -f "$SWIFTSHADER_ICD" ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "setup: installing Debian's chromium (for its SwiftShader Vulkan driver)..."
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
    else
        echo "error: $SWIFTSHADER_ICD not found: install Debian's chromium (as root: apt-get install chromium)" >&2
        exit 1
    fi
fi
# Dawn and Tint for Node (the npm package webgpu, pinned by web/package-lock.json), which
# compile every WebGPU variant in the tests (tests/tint.rs).
if [ "${WGPU_PERMUTE_SWIFTSHADER:-}" = 1 ] && [ ! -d "$(dirname "${BASH_SOURCE[0]}")/../web/node_modules/webgpu" ]; then
    if ! command -v npm >/dev/null 2>&1; then
        echo "error: npm not found: install Node.js (as root: apt-get install nodejs npm)" >&2
        exit 1
    fi
    echo "setup: installing Dawn for Node (web/, npm ci)..."
    npm ci --prefix "$(dirname "${BASH_SOURCE[0]}")/../web" --no-audit --no-fund --loglevel=error
fi

export WGPU_BACKEND="${WGPU_BACKEND:-vulkan}"
# Mesa's window-system probing complains without one; no window is ever opened.
if [ -z "${XDG_RUNTIME_DIR:-}" ] || [ ! -d "${XDG_RUNTIME_DIR}" ]; then
    XDG_RUNTIME_DIR="$(mktemp -d)"
    export XDG_RUNTIME_DIR
fi
