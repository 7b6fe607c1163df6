#!/usr/bin/env python3
"""The subprocess reference of the benchmarks: what the Python peers (mini-swe-agent,
SWE-agent's docker deployments) do for every command — one `docker exec` process, output
captured with stderr merged, and a thread per worker.

Prints {"seconds": [...]} with the wall time of each command, measured here (the interpreter's
own start-up is not counted).

  peer_exec.py --container ID [--cwd /tmp] [-n 100] [--workers 1] -- COMMAND
"""
import argparse
import json
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor


def run_one(container, cwd, command):
    start = time.perf_counter()
    # mini-swe-agent: [docker, "exec", "-w", cwd, *env, container, "bash", "-lc", command];
    # `bash -c` here, as in the Go references, so that only the mechanism differs.
    res = subprocess.run(
        ["docker", "exec", "-w", cwd, container, "bash", "-c", command],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        text=True, encoding="utf-8", errors="replace",
    )
    took = time.perf_counter() - start
    if res.returncode != 0:
        raise SystemExit(f"docker exec exited with {res.returncode}: {res.stdout}")
    return took


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--container", required=True)
    ap.add_argument("--cwd", default="/tmp")
    ap.add_argument("-n", type=int, default=100)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("command", nargs="+")
    a = ap.parse_args()
    command = " ".join(a.command)
    with ThreadPoolExecutor(max_workers=a.workers) as pool:
        secs = list(pool.map(lambda _: run_one(a.container, a.cwd, command), range(a.n)))
    json.dump({"seconds": secs}, sys.stdout)


if __name__ == "__main__":
    main()
