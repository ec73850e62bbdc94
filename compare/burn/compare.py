"""Joins wgpu-permute bench reports (ours-*.json) and burn reports (burn-*.json) in a folder:
per case, the median over runs of each side's median time on the device (GPU timestamps on
both sides where the adapter has them: our bench's `permute_device_median_s`, burn's
`device_median_ms` from its profiler), the ratio, and our bench's own ratio to the shader
copy. On a CPU device our bench's `permute_median_s` adds the host's time to record the
work, which burn's profiler window does not see: 20-40 us, a sixth of an 84 KB permute.
Prints a Markdown table."""
import glob
import json
import statistics
import sys


def on_device(c, name):
    """A case's median on the device: `name`'s device median, where the report has one."""
    return c.get(f"{name}_device_median_s", c[f"{name}_median_s"])


folder = sys.argv[1]
ours = [json.load(open(p)) for p in sorted(glob.glob(f"{folder}/ours-*.json"))]
burn = [json.load(open(p)) for p in sorted(glob.glob(f"{folder}/burn-*.json"))]
device = ours[0]["device"]
if any("permute_device_median_s" not in c for run in ours for c in run["cases"]):
    print("warning: reports without device times (older bench): their times include recording")
copies = [statistics.median(on_device(c, "shader_copy") for c in run["cases"]) for run in ours]
print(f"{len(ours)} runs of each, alternating; device: {device}")
per_run = ", ".join(f"{c * 1e3:.1f} ms" for c in copies)
print(f"shader copy on the device (median over cases, per run): {per_run}")
print()
print(
    "| case | kernel | this crate ms (GPU) | burn ms (GPU) | this / burn "
    "| / shader copy (bench) |"
)
print("|---|---|---|---|---|---|")
for case in ours[0]["cases"]:
    label = case["case"]
    mine = statistics.median(
        on_device(c, "permute") * 1e3 for run in ours for c in run["cases"] if c["case"] == label
    )
    ratio = statistics.median(
        c["vs_shader_copy"] for run in ours for c in run["cases"] if c["case"] == label
    )
    theirs = [r["device_median_ms"] for run in burn for r in run if r["case"] == label]
    if theirs:
        b = statistics.median(theirs)
        cells = f"{b:.2f} | {mine / b:.2f}"
    else:
        cells = "- | -"
    print(f"| `{label}` | {case['kernel']} | {mine:.2f} | {cells} | {ratio:.2f} |")
