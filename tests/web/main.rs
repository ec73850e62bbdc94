//! WebGPU as browsers run it: Tint (Chrome's WGSL compiler) and Dawn (its WebGPU
//! implementation) on SwiftShader (Chromium's Vulkan driver).
//!
//! - `tint`: every shader variant a WebGPU device can be planned to run, compiled by Tint
//!   (Dawn for Node, the npm package `webgpu`).
//! - `replay`: recorded work ([`wgpu_permute::work::Recorded`]) run by the bench page in
//!   headless Chromium and checked against the CPU reference, guard bytes included.
//! - `page`: the bench page itself, its suite shrunk, and the committed suite up to date.
//!
//! Work runs in Chromium rather than in Node: dawn.node 0.6.2 on SwiftShader crashed or hung
//! while waiting for submitted work (7 of 12 runs of two small cases), never while only
//! compiling. Needs Node.js, `web/node_modules` (`npm ci --prefix web`) and Debian's
//! `chromium` (its SwiftShader driver too), which scripts/setup.sh installs. Without them
//! the tests fail with instructions, unless `WGPU_PERMUTE_SKIP_WEB=1` says to skip them
//! (they then say so).

#[path = "../common/mod.rs"]
mod common;
// The page's suites are JSON (the `json` and `bench` features, which `cli` includes).
#[cfg(all(feature = "json", feature = "bench"))]
mod page;
#[cfg(all(feature = "json", feature = "bench"))]
mod replay;
#[cfg(feature = "json")]
mod tint;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Chromium's SwiftShader Vulkan driver, unless `VK_ICD_FILENAMES` names another.
const SWIFTSHADER_ICD: &str = "/usr/lib/chromium/vk_swiftshader_icd.json";

/// The repository root and the Vulkan driver to run on; `None` when skipped on request.
fn web_setup(what: &str) -> Option<(PathBuf, String)> {
    if std::env::var("WGPU_PERMUTE_SKIP_WEB").is_ok_and(|v| v == "1") {
        eprintln!("skipped: WGPU_PERMUTE_SKIP_WEB=1 is set, {what} not run");
        return None;
    }
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let icd = std::env::var("VK_ICD_FILENAMES").unwrap_or_else(|_| SWIFTSHADER_ICD.into());
    let chromium = Command::new("chromium").arg("--version").output();
    assert!(
        root.join("web/node_modules/webgpu").is_dir()
            && Path::new(&icd).is_file()
            && chromium.is_ok_and(|o| o.status.success()),
        "{what} needs Node.js, `npm ci --prefix web`, Chromium and SwiftShader's Vulkan \
         driver ({icd}; apt-get install chromium), as scripts/setup.sh installs them; or set \
         WGPU_PERMUTE_SKIP_WEB=1 to skip it"
    );
    Some((root, icd))
}

/// Times a run of dawn.node may crash before the test gives up: dawn.node 0.6.2 on
/// SwiftShader sometimes aborts on its own (`std::system_error`, a futex error), once in a
/// CI run of four; a refusal exits normally with its messages and is never retried.
const NODE_CRASHES: usize = 3;

/// How long one run of dawn.node may take before it counts as a crash: a manifest of 500
/// shaders compiles in a few seconds, but dawn.node 0.6.2 on SwiftShader once hung, every
/// thread waiting on a futex, for 17 minutes on the first manifest of a CI run (killed, the
/// retry took seconds).
const NODE_TIMEOUT: Duration = Duration::from_secs(180);

/// Output of `command`, which is killed (and reported as killed by a signal) if it runs
/// longer than `timeout`; its output is read as it comes, so that no pipe fills.
fn output_within(command: &mut Command, timeout: Duration) -> std::process::Output {
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("node runs");
    let read = |pipe: Option<Box<dyn std::io::Read + Send>>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_end(&mut bytes);
            }
            bytes
        })
    };
    let stdout = read(child.stdout.take().map(|p| Box::new(p) as _));
    let stderr = read(child.stderr.take().map(|p| Box::new(p) as _));
    let deadline = Instant::now() + timeout;
    let status = loop {
        if let Some(status) = child.try_wait().expect("node is waited for") {
            break status;
        }
        if Instant::now() > deadline {
            eprintln!("killed after {timeout:?}");
            let _ = child.kill();
            break child.wait().expect("node is waited for");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    std::process::Output {
        status,
        stdout: stdout.join().unwrap_or_default(),
        stderr: stderr.join().unwrap_or_default(),
    }
}

/// Runs `node web/<script> <manifest>` on the driver `icd`; asserts it succeeded and
/// returns the JSON after its last line's `prefix`. A run killed by a signal before its
/// summary line, or after [`NODE_TIMEOUT`], is run again (see [`NODE_CRASHES`]), and says so.
fn node(root: &Path, script: &str, manifest: &Path, icd: &str, prefix: &str) -> String {
    let mut crashes = 0;
    let out = loop {
        let mut command = Command::new("node");
        command
            .arg(root.join("web").join(script))
            .arg(manifest)
            .env("VK_ICD_FILENAMES", icd);
        let out = output_within(&mut command, NODE_TIMEOUT);
        let summarised = String::from_utf8_lossy(&out.stdout).contains(prefix);
        if out.status.code().is_some() || summarised || crashes + 1 >= NODE_CRASHES {
            break out;
        }
        crashes += 1;
        eprintln!(
            "web/{script} crashed ({}), run {crashes} of {NODE_CRASHES}: {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        );
    };
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() || (stdout.contains(prefix) && out.status.code().is_none()),
        "web/{script} failed ({}):\n{stdout}\n{stderr}",
        out.status
    );
    stdout
        .lines()
        .find_map(|l| l.strip_prefix(prefix))
        .unwrap_or_else(|| panic!("no {prefix}line from web/{script}:\n{stdout}\n{stderr}"))
        .to_string()
}

/// A run past its time is killed and reported as killed by a signal (so retried as a
/// crash); one within it keeps its output.
#[test]
fn a_run_past_its_time_is_killed() {
    let start = Instant::now();
    let out = output_within(Command::new("sleep").arg("30"), Duration::from_millis(300));
    assert!(out.status.code().is_none(), "{:?}", out.status);
    assert!(start.elapsed() < Duration::from_secs(10));
    let out = output_within(Command::new("echo").arg("done"), Duration::from_secs(30));
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout), "done\n");
}

/// How long a page may take before the test gives up on it.
const PAGE_TIMEOUT: Duration = Duration::from_secs(300);

/// Opens `web/bench.html?<query>` in headless Chromium (WebGPU on SwiftShader), with a
/// fresh profile named `name`, and returns the JSON of the page's `BENCH-JSON` console line.
#[cfg(feature = "json")]
fn bench_page(root: &Path, name: &str, query: &str) -> serde_json::Value {
    let profile = tempdir(root, &format!("{name}-profile"));
    let url = format!("file://{}/web/bench.html?{query}", root.display());
    let mut child = Command::new("chromium")
        .args([
            "--headless=new",
            "--no-sandbox",
            "--enable-unsafe-webgpu",
            "--use-webgpu-adapter=swiftshader",
            "--enable-logging=stderr",
            "--v=0",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-default-apps",
            "--disable-sync",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(&url)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("chromium starts");
    let (sender, receiver) = std::sync::mpsc::channel();
    let stderr = child.stderr.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if sender.send(line).is_err() {
                break;
            }
        }
    });
    let deadline = Instant::now() + PAGE_TIMEOUT;
    let mut log = Vec::new();
    let found = loop {
        match receiver.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            Ok(line) if line.contains("\"BENCH-JSON ") => break Some(line),
            Ok(line) => log.push(line),
            Err(_) => break None,
        }
    };
    let _ = child.kill();
    let _ = child.wait();
    let line = found.unwrap_or_else(|| {
        panic!(
            "{url} wrote no BENCH-JSON line in {PAGE_TIMEOUT:?}; Chromium said:\n{}",
            log.join("\n")
        )
    });
    // `[...:INFO:CONSOLE:N] "BENCH-JSON {...}", source: file:///.../bench.js (N)`
    let start = line.find("\"BENCH-JSON ").unwrap() + "\"BENCH-JSON ".len();
    let end = line.rfind("\", source:").expect("a console line");
    serde_json::from_str(&line[start..end]).expect("the page's JSON")
}

/// An empty directory under target/.
fn tempdir(root: &Path, name: &str) -> PathBuf {
    let dir = root.join("target/web-tests").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
