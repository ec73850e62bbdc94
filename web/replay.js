// Replays wgpu-permute's recorded GPU work (`work::Recorded::to_json`) on a WebGPU device:
// the same pipelines, parameter blocks, buffer windows, dispatches and copies that
// `Permuter::record` records into a wgpu encoder. A classic script (pages opened from
// file:// cannot load modules), shared by the bench page and the tests' Dawn runner; it
// defines `globalThis.wgpuPermuteReplay`.
(function (root) {
    'use strict';

    // Every shader's bindings in group 0: source window, destination window, parameters.
    const BINDINGS = ['read-only-storage', 'storage', 'uniform'];

    function layoutOf(device) {
        const bindGroupLayout = device.createBindGroupLayout({
            label: 'wgpu-permute',
            entries: BINDINGS.map((type, binding) => ({
                binding,
                visibility: GPUShaderStage.COMPUTE,
                buffer: { type },
            })),
        });
        const pipelineLayout = device.createPipelineLayout({
            label: 'wgpu-permute',
            bindGroupLayouts: [bindGroupLayout],
        });
        return { bindGroupLayout, pipelineLayout };
    }

    // Compiles every shader of `recorded` into a pipeline; refusals surface through the
    // device's error scopes, which the caller owns.
    function compile(device, layout, recorded) {
        return recorded.shaders.map((shader) => device.createComputePipeline({
            label: shader.label,
            layout: layout.pipelineLayout,
            compute: {
                module: device.createShaderModule({ label: shader.label, code: shader.wgsl }),
                entryPoint: shader.entry,
                constants: shader.constants,
            },
        }));
    }

    // Binds `recorded` to buffers `src` and `dst`: compiles its pipelines, uploads every
    // parameter block into one uniform buffer (each at an aligned offset, as the library
    // does) and makes the bind groups. Returns `record(encoder)`, which records the whole
    // work, as often as wanted, and `destroy()`.
    function bind(device, recorded, src, dst) {
        const layout = layoutOf(device);
        const pipelines = compile(device, layout, recorded);
        const dispatches = recorded.works.flatMap((work) => work.steps)
            .filter((step) => step.dispatch).map((step) => step.dispatch);
        const align = device.limits.minUniformBufferOffsetAlignment;
        const blockBytes = Math.max(16, ...dispatches.map((d) => d.params.length * 4));
        const stride = Math.ceil(blockBytes / align) * align;
        const params = device.createBuffer({
            label: 'wgpu-permute params',
            size: Math.max(stride * dispatches.length, 16),
            usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST,
        });
        const words = new Uint32Array(params.size / 4);
        dispatches.forEach((d, i) => words.set(d.params, (i * stride) / 4));
        device.queue.writeBuffer(params, 0, words);
        let next = 0;
        const commands = recorded.works.map((work) => ({
            pipeline: work.shader === null ? null : pipelines[work.shader],
            steps: work.steps.map((step) => {
                if (step.copy) return { copy: step.copy };
                const d = step.dispatch;
                const at = next++ * stride;
                const bindGroup = device.createBindGroup({
                    label: 'wgpu-permute',
                    layout: layout.bindGroupLayout,
                    entries: [
                        { binding: 0, resource: { buffer: src, offset: d.src_window[0], size: d.src_window[1] } },
                        { binding: 1, resource: { buffer: dst, offset: d.dst_window[0], size: d.dst_window[1] } },
                        { binding: 2, resource: { buffer: params, offset: at, size: d.params.length * 4 } },
                    ],
                });
                return { bindGroup, workgroups: d.workgroups };
            }),
        }));
        function record(encoder) {
            for (const work of commands) {
                if (work.pipeline === null) {
                    for (const { copy } of work.steps) {
                        encoder.copyBufferToBuffer(src, copy.src_offset, dst, copy.dst_offset, copy.bytes);
                    }
                    continue;
                }
                const pass = encoder.beginComputePass({ label: 'wgpu-permute' });
                pass.setPipeline(work.pipeline);
                for (const { bindGroup, workgroups } of work.steps) {
                    pass.setBindGroup(0, bindGroup);
                    pass.dispatchWorkgroups(workgroups[0], workgroups[1], workgroups[2]);
                }
                pass.end();
            }
        }
        return { record, destroy: () => params.destroy() };
    }

    // The bench data: 32-bit word `i` of a source buffer is `pattern(i)` (lowbias32, a
    // well-mixed hash of the index), so a misplaced element shows.
    function pattern(i) {
        let x = i >>> 0;
        x ^= x >>> 16;
        x = Math.imul(x, 0x7feb352d);
        x ^= x >>> 15;
        x = Math.imul(x, 0x846ca68b);
        x ^= x >>> 16;
        return x >>> 0;
    }

    function patternWords(count) {
        const words = new Uint32Array(count);
        for (let i = 0; i < count; i++) words[i] = pattern(i);
        return words;
    }

    // FNV-1a over the little-endian 32-bit words of `bytes` (a last partial word padded
    // with zeros), as hex: what the suite's expected checksums are.
    function checksum(bytes) {
        const whole = bytes.length >>> 2;
        const words = new Uint32Array(bytes.buffer, bytes.byteOffset, whole);
        let h = 0x811c9dc5;
        for (let i = 0; i < whole; i++) h = Math.imul(h ^ words[i], 0x01000193);
        if (bytes.length % 4) {
            let tail = 0;
            for (let k = 0; k < bytes.length % 4; k++) tail |= bytes[whole * 4 + k] << (8 * k);
            h = Math.imul(h ^ tail, 0x01000193);
        }
        return (h >>> 0).toString(16).padStart(8, '0');
    }

    root.wgpuPermuteReplay = { bind, pattern, patternWords, checksum };
})(globalThis);
