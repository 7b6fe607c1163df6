#!/bin/bash
# The test runner of this demo instance, in the shape of SWE-bench Pro's per-instance
# run_scripts/<instance_id>/run_script.sh (written for swebench-run's demo): without arguments it
# runs every test; with one argument, a comma-separated list of test files, it runs those.
set -e

run_all_tests() {
  python -m pytest -v -p no:cacheprovider tests
}

run_selected_tests() {
  echo "run_script.sh: running $# test file(s)" >&2
  python -m pytest -v -p no:cacheprovider "$@"
}

if [ $# -eq 0 ]; then
  run_all_tests
  exit $?
fi

if [[ "$1" == *","* ]]; then
  IFS=',' read -r -a files <<< "$1"
else
  files=("$@")
fi
run_selected_tests "${files[@]}"
