#!/usr/bin/env python3
"""Side by side: mini-swe-agent's own batch runner against swebench-run, on the same images with the
same scripted turns.

    scripts/bench/vs_mini.py MINI_SWE_AGENT_CHECKOUT --bin bin/swebench-run [--commands 5,34]
        [--instances 24] [--workers 4] [--rounds 1] [--json rows.json]

MINI_SWE_AGENT_CHECKOUT is a checkout of github.com/SWE-agent/mini-swe-agent (nothing of it enters
this repository). Its batch runner (minisweagent.run.benchmarks.swebench.main: config merge, thread
pool, process_instance, DockerEnvironment with `docker run` and one `docker exec` per command, its
preds.json and trajectories) runs in a child process with its DeterministicModel replaying the same
turns as swebench-run's scripted model: `true 1` … `true COMMANDS-1`, then the submission. The one
thing replaced is the dataset loader: main() calls datasets.load_dataset(PATH, split=...); the
child gives it a module of that name that reads the instances from a local JSON lines file (the
HuggingFace `datasets` package is not needed for anything measured here).

For each command count and round, in turn: mini-swe-agent, swebench-run with environment.launcher=off
(one Docker exec per command), swebench-run with the launcher; each over the same INSTANCES instances
(the demo images, each used INSTANCES/6 times) with WORKERS workers, the default bridge network, cwd
/testbed and mini-swe-agent's swebench.yaml settings (both sides run `bash -c`). Measured: the wall
time of each whole run, and the CPU time the Docker engine's processes (dockerd, containerd, the
containerd shims and what they reaped: runc, fuse-overlayfs) spent during it.

Needs a Python >= 3.10 with pydantic 2, jinja2, pyyaml, requests, python-dotenv, prompt_toolkit, rich,
typer, tenacity and platformdirs; Debian's packages (python3-rich, python3-typer, python3-tenacity,
python3-platformdirs) are used from /usr/lib/python3/dist-packages when the interpreter lacks them.
The child says exactly which module is missing.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SUBMIT = "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"


def demo_images():
    images = []
    with open(os.path.join(ROOT, "demo", "images.tsv")) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            images.append(line.split("\t")[2])
    return images


def write_inputs(tmp, instances, commands):
    images = demo_images()
    ids = [f"bench__vsmini-{i:03d}" for i in range(instances)]
    rows = []
    for i, iid in enumerate(ids):
        img = images[i % len(images)]
        rows.append({"instance_id": iid, "repo": "bench/vsmini", "problem_statement": f"Benchmark task {iid}: do nothing.",
                     "image": img, "docker_image": img})
    ds = os.path.join(tmp, f"dataset-{commands}.jsonl")
    with open(ds, "w") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")
    # Each command its own (true ignores its arguments): swebench-run's config stops an agent that
    # repeats one action more than 5 times.
    cmds = [f"true {k + 1}" for k in range(commands - 1)] + [SUBMIT]
    # swebench-run's scripted model: per instance, one turn per command.
    script = os.path.join(tmp, f"scripted-{commands}.yaml")
    with open(script, "w") as f:
        turns = [{"content": f"step {k + 1}", "commands": [c]} for k, c in enumerate(cmds)]
        json.dump({iid: turns for iid in ids}, f)  # JSON is YAML
    # mini-swe-agent's DeterministicModel: the same turns, as its text-mode messages.
    outputs = [{"role": "assistant", "content": f"step {k + 1}", "extra": {"actions": [{"command": c}], "cost": 0.0}}
               for k, c in enumerate(cmds)]
    cfg = os.path.join(tmp, f"mini-{commands}.yaml")
    with open(cfg, "w") as f:
        json.dump({"model": {"model_class": "deterministic", "model_name": "deterministic", "outputs": outputs,
                             "cost_per_call": 0.0},
                   "agent": {"cost_limit": 0, "step_limit": 0}}, f)
    return ds, script, cfg


class EngineMeter:
    """CPU seconds of the Docker engine's processes (dockerd, containerd, the containerd shims,
    with the children they reaped), sampled every 50 ms: a container's shim ends with it."""

    def __init__(self):
        self.engine, self.base, self.last = {}, {}, {}
        self.stopped = threading.Event()
        self.sample(first=True)
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def sample(self, first=False):
        for pid in os.listdir("/proc"):
            if not pid.isdigit():
                continue
            try:
                if pid not in self.engine:
                    with open(f"/proc/{pid}/comm") as f:
                        comm = f.read().strip()
                    self.engine[pid] = comm in ("dockerd", "containerd") or comm.startswith("containerd-shim")
                if not self.engine[pid]:
                    continue
                with open(f"/proc/{pid}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            t = sum(int(x) for x in fields[11:15])  # utime stime cutime cstime
            self.base.setdefault(pid, t if first else 0)
            self.last[pid] = t

    def run(self):
        while not self.stopped.wait(0.05):
            self.sample()

    def stop(self):
        self.stopped.set()
        self.thread.join()
        self.sample()
        return sum(t - self.base[p] for p, t in self.last.items()) / os.sysconf("SC_CLK_TCK")


def timed(argv, env=None):
    meter, t0 = EngineMeter(), time.monotonic()
    p = subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall, cpu = time.monotonic() - t0, meter.stop()
    if p.returncode != 0:
        sys.exit(f"vs_mini: {argv[0]} … exited {p.returncode}:\n{p.stderr[-3000:]}")
    return wall, cpu


def submitted_mini(out, n):
    with open(os.path.join(out, "preds.json")) as f:
        preds = json.load(f)
    bad = [k for k, v in preds.items() if v.get("model_patch") is None]
    if len(preds) != n or bad:
        sys.exit(f"vs_mini: mini-swe-agent finished {len(preds)} of {n} instances ({len(bad)} without a submission); see {out}/minisweagent.log")


def submitted_ours(out, n):
    ok = 0
    with open(os.path.join(out, "status.jsonl")) as f:
        for line in f:
            ok += json.loads(line).get("exit_status") == "Submitted"
    if ok != n:
        sys.exit(f"vs_mini: swebench-run submitted {ok} of {n} instances; see {out}/status.jsonl")


def run_mini(args, ds, cfg, out):
    shutil.rmtree(out, ignore_errors=True)
    argv = [args.python, os.path.abspath(__file__), "--mini-child", args.mini, ds, out, cfg, str(args.workers)]
    wall, cpu = timed(argv)
    submitted_mini(out, args.instances)
    return wall, cpu


def run_ours(args, ds, script, out, launcher):
    shutil.rmtree(out, ignore_errors=True)
    argv = [args.bin, "run", "--split", ds, "--model", "scripted:" + script, "--workers", str(args.workers), "-o", out,
            "--pull", "never", "--progress", "none", "-c", "environment.launcher=" + launcher]
    wall, cpu = timed(argv)
    submitted_ours(out, args.instances)
    return wall, cpu


def mini_child(mini, ds, out, cfg, workers):
    """Runs mini-swe-agent's batch main() in this process."""
    sys.path.insert(0, os.path.join(mini, "src"))
    sys.path.append("/usr/lib/python3/dist-packages")  # Debian's rich, typer, tenacity, platformdirs
    missing = []
    for mod in ("pydantic", "jinja2", "yaml", "requests", "dotenv", "prompt_toolkit", "rich", "typer", "tenacity", "platformdirs"):
        try:
            __import__(mod)
        except ImportError:
            missing.append(mod)
    if missing:
        sys.exit("vs_mini: mini-swe-agent needs these Python modules, missing here: " + ", ".join(missing))
    import pydantic
    if int(pydantic.VERSION.split(".")[0]) < 2:
        sys.exit(f"vs_mini: mini-swe-agent needs pydantic 2, this Python has {pydantic.VERSION}")
    import types

    def load_dataset(path, split=None):
        with open(path) as f:
            return [json.loads(line) for line in f if line.strip()]

    sys.modules["datasets"] = types.SimpleNamespace(load_dataset=load_dataset)
    os.environ.setdefault("MSWEA_SILENT_STARTUP", "1")
    from minisweagent.run.benchmarks import swebench

    swebench.main(subset=ds, split="test", slice_spec="", filter_spec="", shuffle=False, output=out,
                  workers=int(workers), model=None, model_class=None, redo_existing=True,
                  config_spec=[str(swebench.DEFAULT_CONFIG_FILE), cfg], environment_class=None)


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--mini-child":
        mini_child(*sys.argv[2:7])
        return
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("mini", help="a mini-swe-agent checkout")
    p.add_argument("--bin", required=True, help="the swebench-run binary (built with make build, so that it embeds the launcher)")
    p.add_argument("--python", default=sys.executable, help="the Python that runs mini-swe-agent")
    p.add_argument("--commands", default="5,34", help="commands per instance, comma-separated")
    p.add_argument("--instances", type=int, default=24)
    p.add_argument("--workers", type=int, default=4)
    p.add_argument("--rounds", type=int, default=1)
    p.add_argument("--json", help="also write the rows as JSON (bench.Row) to this file")
    args = p.parse_args()
    args.mini = os.path.abspath(args.mini)
    if not os.path.isdir(os.path.join(args.mini, "src", "minisweagent")):
        sys.exit(f"vs_mini: {args.mini} is not a mini-swe-agent checkout (no src/minisweagent)")
    rows = []
    with tempfile.TemporaryDirectory(prefix="swebench-vsmini-") as tmp:
        for n in [int(x) for x in args.commands.split(",")]:
            ds, script, cfg = write_inputs(tmp, args.instances, n)
            res = {"mini": [], "off": [], "auto": []}
            for r in range(args.rounds):
                for side in ("mini", "off", "auto"):
                    out = os.path.join(tmp, f"out-{n}-{side}-{r}")
                    if side == "mini":
                        w, c = run_mini(args, ds, cfg, out)
                    else:
                        w, c = run_ours(args, ds, script, out, side)
                    res[side].append((w, c))
                    print(f"vs_mini: {n} commands, round {r + 1}, {side}: {w:.1f} s wall, {c:.1f} s engine CPU", file=sys.stderr, flush=True)
            med = {s: (statistics.median(w for w, _ in v), statistics.median(c for _, c in v)) for s, v in res.items()}
            what = f"vs mini-swe-agent: {args.instances} instances × {n} commands, {args.workers} workers"
            line = "; ".join(f"{label} {med[s][0]:.1f} s wall, {med[s][1]:.1f} s engine CPU"
                             for s, label in (("mini", "mini-swe-agent"), ("off", "ours with exec"), ("auto", "ours with the launcher")))
            rows.append({"What": what, "Measured": line + f" (median of {args.rounds})", "NA": True})
            ratio_off, ratio = med["mini"][0] / med["off"][0], med["mini"][0] / med["auto"][0]
            goal = "≥ 2×" if n >= 34 else ""
            rows.append({"What": f"vs mini-swe-agent, {n} commands: mini-swe-agent ÷ ours (wall)",
                         "Measured": f"with the launcher {ratio:.2f}× faster (with exec {ratio_off:.2f}×); engine CPU {med['mini'][1] / max(med['auto'][1], 1e-9):.2f}× less",
                         "Goal": goal, "Pass": ratio >= 2 if goal else False, "NA": not goal})
    for r in rows:
        print(f"| {r['What']} | {r['Measured']} | {r.get('Goal', '')} | {'–' if r['NA'] else ('pass' if r['Pass'] else '**miss**')} |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=2)


if __name__ == "__main__":
    main()
