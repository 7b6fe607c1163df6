"""Parses this demo instance's test output into SWE-bench Pro's output.json.

Written for swebench-run's demo in the shape of SWE-bench Pro's per-instance
run_scripts/<instance_id>/parser.py: `python parser.py STDOUT STDERR OUTPUT` reads the test run's
stdout and stderr and writes {"tests": [{"name": ..., "status": PASSED|FAILED|SKIPPED|ERROR}]}.
"""

import json
import re
import sys

# pytest -v prints "tests/test_x.py::test_y PASSED  [ 50%]" per test.
RESULT = re.compile(r"^(\S+::\S+) (PASSED|FAILED|SKIPPED|ERROR|XFAIL|XPASS)\b")
STATUS = {"PASSED": "PASSED", "XPASS": "PASSED", "FAILED": "FAILED", "ERROR": "ERROR", "SKIPPED": "SKIPPED", "XFAIL": "SKIPPED"}


def parse(stdout, stderr):
    tests = []
    for line in stdout.splitlines():
        m = RESULT.match(line)
        if m:
            tests.append({"name": m.group(1), "status": STATUS[m.group(2)]})
    return tests


def main(stdout_path, stderr_path, output_path):
    with open(stdout_path) as f:
        stdout = f.read()
    with open(stderr_path) as f:
        stderr = f.read()
    with open(output_path, "w") as f:
        json.dump({"tests": parse(stdout, stderr)}, f, indent=2)


if __name__ == "__main__":
    if len(sys.argv) != 4:
        print("usage: python parser.py STDOUT STDERR OUTPUT_JSON")
        sys.exit(1)
    main(*sys.argv[1:])
