"""jqlite: a few of jq's filters, for the Multi-SWE-bench demo instances."""
import json
import sys


def apply(name, value):
    if name == ".":
        return value
    if name == "keys":
        return list(value.keys())
    if name == "length":
        return len(value)
    raise SystemExit("jqlite: unknown filter " + name)


if __name__ == "__main__":
    print(json.dumps(apply(sys.argv[1], json.load(sys.stdin))))
