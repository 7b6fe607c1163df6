# swebench-run's driver for log parsers shipped as Python source in dataset rows (SWE-bench-Live's
# log_parser column). It runs inside a sandbox, never in swebench-run's process, as
# `python3 -I -c DRIVER REQUEST`, REQUEST a JSON file {"source": ..., "log": ...} it removes once
# read. It is written for swebench-run and does what SWE-bench-Live's harness does with such a
# parser: execute the source in a fresh namespace, call its function `parser` on the log with
# stdout and stderr captured, and take a false result as an empty map. The reply is one JSON
# line after MARK:
# {"status": [[test, status, is_str], ...]} in the parser's order, or {"error": traceback,
# "stderr": ...} when the parser raised or returned something that is not a map to strings, or
# {"python": "X.Y"} when this Python is too old for the parsers (they use 3.10 syntax).
# Keep it runnable by old Pythons up to the version check.
import io
import json
import os
import sys
import traceback

MARK = "@@swebench-run-parser-reply@@"


def reply(obj):
    sys.__stdout__.write("\n" + MARK + json.dumps(obj) + "\n")
    sys.__stdout__.flush()


def main(request):
    if sys.version_info < (3, 10):
        os.remove(request)
        reply({"python": "%d.%d" % (sys.version_info[0], sys.version_info[1])})
        return 3
    import contextlib

    with open(request, encoding="utf-8") as f:
        req = json.load(f)
    os.remove(request)
    source, log = req["source"], req["log"]
    out, err = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            namespace = {}
            exec(compile(source, "log_parser", "exec"), namespace)
            if "parser" not in namespace:
                raise NotImplementedError("the log_parser source defines no function named 'parser'")
            result = namespace["parser"](log)
            if not result:
                result = {}
        if not isinstance(result, dict):
            raise TypeError("parser returned a %s, not a dict of test name to status" % type(result).__name__)
        pairs = []
        for name, status in result.items():
            if not isinstance(status, str):
                raise TypeError("parser returned status %r for test %r: not a string" % (status, name))
            if isinstance(name, str):
                pairs.append([name, status, True])
                continue
            # The harness keeps the key as it is: json.dump writes an int, float, bool or None key
            # as text in status.json (and refuses any other, failing the instance), and the key
            # equals no test name.
            key = next(iter(json.loads(json.dumps({name: None}))))
            pairs.append([key, status, False])
    except BaseException:
        reply({"error": traceback.format_exc(), "stderr": err.getvalue()})
        return 0
    reply({"status": pairs})
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
