// Compiles WGSL under Dawn and Tint, as Chrome does: node web/tint.mjs MANIFEST.json
//
// The manifest (written by tests/tint.rs) lists shaders: {"file", "entry", "constants",
// "label", "pipeline"}. Each is compiled by createShaderModule (Tint's front end and
// validation); with "pipeline", also built into a compute pipeline with its constants (Tint's
// back end for the adapter, then the driver's compile: about 0.1 s each on SwiftShader).
// Prints one line per shader Tint or Dawn refuses, with its message, and a last line
// `TINT-JSON {"adapter": ..., "compiled": n, "pipelines": n, "refused": [...]}`. Exits 1 if any
// was refused, 2 without an adapter. Dawn finds its Vulkan driver through
// VK_ICD_FILENAMES (SwiftShader's, in the tests).
import { readFileSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { create, globals } from 'webgpu';

Object.assign(globalThis, globals);

const manifestPath = process.argv[2];
if (!manifestPath) {
    console.error('usage: node web/tint.mjs MANIFEST.json');
    process.exit(2);
}
const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
const gpu = create([]);
const adapter = await gpu.requestAdapter();
if (!adapter) {
    console.error('no WebGPU adapter: set VK_ICD_FILENAMES to a Vulkan driver (SwiftShader\'s)');
    process.exit(2);
}
const info = adapter.info;
const adapterName = `${info.vendor} ${info.architecture} ${info.device} ${info.description}`.trim();
// WebGPU's default limits, as a page gets them: no features, no raised limits.
const device = await adapter.requestDevice();
device.addEventListener('uncapturederror', (e) => console.error('uncaptured:', e.error.message));

const refused = [];
let compiled = 0;
let pipelines = 0;
for (const shader of manifest) {
    const code = readFileSync(join(dirname(manifestPath), shader.file), 'utf8');
    device.pushErrorScope('validation');
    const module = device.createShaderModule({ code, label: shader.label });
    const messages = (await module.getCompilationInfo()).messages
        .filter((m) => m.type === 'error')
        .map((m) => `${m.lineNum}:${m.linePos}: ${m.message}`);
    let error = await device.popErrorScope();
    if (!error && messages.length === 0 && shader.pipeline) {
        device.pushErrorScope('validation');
        try {
            device.createComputePipeline({
                layout: 'auto',
                compute: { module, entryPoint: shader.entry, constants: shader.constants },
            });
            pipelines += 1;
        } catch (e) {
            messages.push(e.message);
        }
        error = await device.popErrorScope();
    }
    if (error) messages.push(error.message);
    if (messages.length > 0) {
        refused.push({ label: shader.label, messages });
        writeSync(1, `refused: ${shader.label}\n  ${messages.join('\n  ')}\n`);
    } else {
        compiled += 1;
    }
}
// Written synchronously, and no teardown: dawn.node 0.6.2 on SwiftShader sometimes aborts
// while it tears the device down at exit (a futex error), which must not lose the result.
writeSync(1, 'TINT-JSON ' + JSON.stringify({ adapter: adapterName, compiled, pipelines, refused }) + '\n');
process.exit(refused.length > 0 ? 1 : 0);
