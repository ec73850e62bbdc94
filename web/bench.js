// The bench page: runs each case of the suite (globalThis.WGPU_PERMUTE_SUITE: suite.js,
// planned for GPUs; suite-cpu.js, planned for CPU adapters, on a browser's fallback adapter
// such as SwiftShader; or ?suite=) and copies of the same bytes on this machine's GPU,
// checks each case's output once, and reports as `wgpu-permute bench --json` does. Each
// finished case is a row of the table and a console line, `BENCH-CASE `; when done it logs
// one console line, `BENCH-JSON ` and the results (the tests read it).
(function () {
    'use strict';
    const { bind, patternWords, checksum } = globalThis.wgpuPermuteReplay;
    const params = new URLSearchParams(location.search);
    const RUNS = Number(params.get('runs') ?? 7);
    const WARMUPS = 2;
    const FILTER = params.get('filter') ?? '';
    // Chrome rounds GPU timestamps (to 100 us by default): a measurement repeats the work
    // until it spans at least this long, and divides.
    const MIN_SPAN_NS = 4e6;
    const status = (text) => { document.getElementById('status').textContent = text; };

    function median(xs) {
        const s = [...xs].sort((a, b) => a - b);
        return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }

    // Times `record` (which records work into an encoder), in seconds per repetition, with
    // timestamp queries around it, or the wall clock to the queue's completion without them.
    function clock(device) {
        const timestamps = device.features.has('timestamp-query');
        let querySet, resolve, read;
        if (timestamps) {
            querySet = device.createQuerySet({ type: 'timestamp', count: 2 });
            resolve = device.createBuffer({ size: 16, usage: GPUBufferUsage.QUERY_RESOLVE | GPUBufferUsage.COPY_SRC });
            read = device.createBuffer({ size: 16, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
        }
        async function once(record, reps) {
            const encoder = device.createCommandEncoder();
            if (timestamps) {
                encoder.beginComputePass({ timestampWrites: { querySet, beginningOfPassWriteIndex: 0 } }).end();
            }
            for (let i = 0; i < reps; i++) record(encoder);
            if (timestamps) {
                encoder.beginComputePass({ timestampWrites: { querySet, endOfPassWriteIndex: 1 } }).end();
                encoder.resolveQuerySet(querySet, 0, 2, resolve, 0);
                encoder.copyBufferToBuffer(resolve, 0, read, 0, 16);
            }
            const start = performance.now();
            device.queue.submit([encoder.finish()]);
            if (!timestamps) {
                await device.queue.onSubmittedWorkDone();
                return (performance.now() - start) * 1e6 / reps;
            }
            await read.mapAsync(GPUMapMode.READ);
            const [begin, end] = new BigUint64Array(read.getMappedRange().slice(0));
            read.unmap();
            return Number(end - begin) / reps;
        }
        async function time(record) {
            const first = await once(record, 1);
            const reps = Math.min(64, Math.max(1, Math.ceil(MIN_SPAN_NS / Math.max(first, 1))));
            for (let i = 0; i < WARMUPS; i++) await once(record, reps);
            const ns = [];
            for (let i = 0; i < RUNS; i++) ns.push(await once(record, reps));
            return { median: median(ns) / 1e9, min: Math.min(...ns) / 1e9, reps };
        }
        const describe = timestamps
            ? 'GPU timestamp queries (WebGPU); median (min) of the runs'
            : 'wall clock to queue completion (no timestamp-query); median (min) of the runs';
        return { time, describe };
    }

    // Every case's copies run in one pair of buffers, as `wgpu-permute bench` times them: a
    // copy's speed follows where its two buffers lie (docs/history/09-cpu-round-19.md), so
    // each case's own buffers would give each case another yardstick. At least 64 MiB each
    // (within the device's limit), so that it is made alike whichever case runs first; made
    // again, larger, for a case that needs more.
    //
    // The copies run at the destination offset of these where the shader copy of the case
    // that makes the pair ran fastest, timed in turns (two rounds), as `wgpu-permute bench`
    // chooses its own (src/bench/pair.rs: a copy's speed may follow its buffers' placement).
    const DST_OFFSETS = [0, 2048, 4096, 65536, 2 ** 20];
    let pair = null;
    async function copyPair(device, timer, c) {
        if (pair && pair.size >= c.copy_bytes) return pair;
        pair?.src.destroy();
        pair?.dst.destroy();
        pair = null;
        const limits = device.limits;
        const size = Math.max(c.copy_bytes, Math.min(64 * 2 ** 20, limits.maxBufferSize));
        const offsets = DST_OFFSETS.filter((at) =>
            at % limits.minStorageBufferOffsetAlignment === 0 && size + at <= limits.maxBufferSize);
        const usage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST;
        const src = device.createBuffer({ size, usage });
        const dst = device.createBuffer({ size: size + Math.max(0, ...offsets), usage });
        device.queue.writeBuffer(src, 0, patternWords(size / 4));
        const times = offsets.map(() => []);
        if (RUNS > 0) {
            const copies = offsets.map((at) => bind(device, shifted(c.shader_copy, at), src, dst));
            for (let round = 0; round < 2; round++) {
                for (const [i, copy] of copies.entries()) {
                    times[i].push((await timer.time((e) => copy.record(e))).median);
                }
            }
            copies.forEach((copy) => copy.destroy());
        }
        const tried = offsets.map((at, i) => ({ dst_offset: at, shader_copy_median_s: median(times[i]) }));
        const fastest = tried.reduce((a, b) => (b.shader_copy_median_s < a.shader_copy_median_s ? b : a), tried[0]);
        const timed = RUNS > 0 && fastest !== undefined;
        const placement = { bytes: size, dst_offset: timed ? fastest.dst_offset : 0, tried: timed ? tried : [] };
        pair = { src, dst, size, placement };
        return pair;
    }

    // A recorded shader copy with its destination windows `at` bytes further on.
    function shifted(recorded, at) {
        const copy = structuredClone(recorded);
        for (const step of copy.works.flatMap((work) => work.steps)) {
            if (step.dispatch) step.dispatch.dst_window[0] += at;
        }
        return copy;
    }

    // Runs one case: buffers, the checked run, then the timings.
    async function runCase(device, timer, c, guard) {
        const usage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST;
        const src = device.createBuffer({ size: c.src_size, usage });
        const dst = device.createBuffer({ size: c.dst_size, usage });
        const readback = device.createBuffer({ size: c.dst_size, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
        device.queue.writeBuffer(src, 0, patternWords(c.src_size / 4));
        device.queue.writeBuffer(dst, 0, new Uint8Array(c.dst_size).fill(guard));
        const result = { ...c, verified: false };
        for (const key of ['work', 'shader_copy', 'checksum', 'src_size', 'dst_size', 'copy_bytes']) delete result[key];
        device.pushErrorScope('validation');
        device.pushErrorScope('out-of-memory');
        let work, copy, copies;
        try {
            work = bind(device, c.work, src, dst);
            copies = await copyPair(device, timer, c);
            copy = bind(device, shifted(c.shader_copy, copies.placement.dst_offset), copies.src, copies.dst);
            const encoder = device.createCommandEncoder();
            work.record(encoder);
            encoder.copyBufferToBuffer(dst, 0, readback, 0, c.dst_size);
            device.queue.submit([encoder.finish()]);
        } catch (e) {
            result.error = String(e.message ?? e);
        }
        const errors = [await device.popErrorScope(), await device.popErrorScope()].filter(Boolean);
        if (errors.length) result.error = errors.map((e) => e.message).join('; ');
        if (!result.error) {
            await readback.mapAsync(GPUMapMode.READ);
            result.verified = checksum(new Uint8Array(readback.getMappedRange())) === c.checksum;
            readback.unmap();
            if (!result.verified) result.error = 'the output differs from the reference';
        }
        if (!result.error && RUNS > 0) {
            const permute = await timer.time((e) => work.record(e));
            const at = copies.placement.dst_offset;
            const bufferCopy = await timer.time((e) => e.copyBufferToBuffer(copies.src, 0, copies.dst, at, c.copy_bytes));
            const shaderCopy = await timer.time((e) => copy.record(e));
            Object.assign(result, {
                permute_median_s: permute.median,
                permute_min_s: permute.min,
                buffer_copy_median_s: bufferCopy.median,
                shader_copy_median_s: shaderCopy.median,
                repetitions: permute.reps,
                gbps: (c.traffic ?? 2 * c.bytes) / permute.median / 1e9,
                vs_buffer_copy: bufferCopy.median / permute.median,
                vs_shader_copy: shaderCopy.median / permute.median,
            });
            result.ratio_to_copy = result.vs_buffer_copy;
        }
        for (const b of [src, dst, readback]) b.destroy();
        work?.destroy();
        copy?.destroy();
        return result;
    }

    function addRow(r) {
        const cells = [
            r.label, (r.bytes / 2 ** 20).toFixed(1), r.kernel,
            r.verified ? 'yes' : `NO: ${r.error}`,
            r.permute_median_s === undefined ? '' : (r.permute_median_s * 1e3).toFixed(3),
            r.gbps === undefined ? '' : r.gbps.toFixed(1),
            r.vs_buffer_copy === undefined ? '' : r.vs_buffer_copy.toFixed(2),
            r.vs_shader_copy === undefined ? '' : r.vs_shader_copy.toFixed(2),
        ];
        const row = document.querySelector('#results tbody').insertRow();
        cells.forEach((text, i) => {
            const cell = row.insertCell();
            cell.textContent = text;
            if (i === 2) cell.className = 'text';
            if (i === 3 && !r.verified) cell.className = 'bad';
        });
    }

    function finish(report) {
        const text = JSON.stringify(report);
        const pre = document.getElementById('json');
        pre.textContent = JSON.stringify(report, null, 1);
        pre.hidden = false;
        const link = document.getElementById('download');
        link.href = URL.createObjectURL(new Blob([text], { type: 'application/json' }));
        link.hidden = false;
        console.log('BENCH-JSON ' + text);
    }

    // A CPU adapter: the browser's fallback adapter (SwiftShader in Chrome), or one that
    // names a software rasteriser. The CPU family's plans run there; the GPU plans' tiles
    // crawl (0.001 of a copy on SwiftShader).
    function onCpu(adapter) {
        const info = adapter.info ?? {};
        if (info.isFallbackAdapter || adapter.isFallbackAdapter) return true;
        const text = [info.vendor, info.architecture, info.device, info.description].join(' ');
        return /swiftshader|llvmpipe|lavapipe|softpipe|software|microsoft basic render/i.test(text);
    }

    // A classic script, as pages opened from file:// cannot fetch files.
    function load(file) {
        return new Promise((resolve, reject) => {
            const script = document.createElement('script');
            script.src = file;
            script.onload = resolve;
            script.onerror = () => reject(new Error(
                `cannot load the suite ${file} (\`wgpu-permute web-suite\` writes it)`));
            document.head.appendChild(script);
        });
    }

    async function main() {
        if (!navigator.gpu) throw new Error('this browser has no WebGPU (navigator.gpu)');
        const adapter = await navigator.gpu.requestAdapter({ powerPreference: 'high-performance' });
        if (!adapter) throw new Error('no WebGPU adapter');
        const info = adapter.info ?? {};
        const name = [info.vendor, info.architecture, info.device, info.description]
            .filter(Boolean).join(' ') || 'unknown adapter';
        const cpu = onCpu(adapter);
        const suiteFile = params.get('suite') ?? (cpu ? 'suite-cpu.js' : 'suite.js');
        status(`${name}: loading ${suiteFile}${cpu ? ' (a CPU adapter: the suite planned for CPU adapters)' : ''}`);
        await load(suiteFile);
        const suite = globalThis.WGPU_PERMUTE_SUITE;
        // WebGPU's default limits, which the suite was planned for; timestamps if offered.
        const features = adapter.features.has('timestamp-query') ? ['timestamp-query'] : [];
        const device = await adapter.requestDevice({ requiredFeatures: features });
        device.addEventListener('uncapturederror', (e) => console.error('uncaptured: ' + e.error.message));
        const timer = clock(device);
        const cases = suite.cases.filter((c) => c.label.includes(FILTER));
        const results = [];
        const started = performance.now();
        for (const [i, c] of cases.entries()) {
            const seconds = ((performance.now() - started) / 1e3).toFixed(0);
            status(`${name}: case ${i + 1} of ${cases.length} (${seconds} s so far), ${c.label}`);
            const r = await runCase(device, timer, c, suite.guard);
            results.push(r);
            addRow(r);
            console.log(`BENCH-CASE ${i + 1}/${cases.length} ${r.label}: ` +
                (r.verified ? 'checked' : `NOT CHECKED: ${r.error}`) +
                (r.vs_buffer_copy === undefined ? '' : `, ${r.vs_buffer_copy.toFixed(2)} of a copy`));
        }
        const ratios = results.map((r) => r.vs_buffer_copy).filter((x) => x !== undefined);
        status(`${name}: ${results.filter((r) => r.verified).length} of ${results.length} cases checked` +
            (ratios.length ? `; permute / copy median ${median(ratios).toFixed(2)}` : ''));
        finish({
            adapter: name,
            device: `${name} (WebGPU, ${navigator.userAgent})`,
            timing: timer.describe,
            command: `web/bench.html${location.search}`,
            suite: suite.made_by,
            suite_file: suiteFile,
            cpu_adapter: cpu,
            seconds: (performance.now() - started) / 1e3,
            copy_placement: pair?.placement ?? null,
            cases: results,
        });
    }

    function start() {
        main().catch((e) => {
            status(`failed: ${e.message ?? e}`);
            finish({ adapter: null, error: String(e.message ?? e), cases: [] });
        });
    }

    start();
})();
