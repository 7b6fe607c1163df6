#!/bin/bash
# The test driver, in automake's format: one "PASS: name" or "FAIL: name" line per test.
cd "$(dirname "$0")/.."
status=0
for t in tests/*.test; do
	if bash "$t" >/dev/null 2>&1; then
		echo "PASS: ${t%.test}"
	else
		echo "FAIL: ${t%.test}"
		status=1
	fi
done
exit $status
