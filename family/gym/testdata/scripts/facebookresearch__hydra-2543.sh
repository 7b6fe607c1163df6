#!/bin/bash
set -xo pipefail
source /opt/miniconda3/bin/activate
conda activate testbed
cd /testbed
git config --global --add safe.directory /testbed
cd /testbed
git status
git show
git diff a29f2afc8a36364f60965473ac6bd12b2740d4b1
source /opt/miniconda3/bin/activate
conda activate testbed
pip install -r requirements/dev.txt; pip install -e .;
git checkout a29f2afc8a36364f60965473ac6bd12b2740d4b1 tests/test_utils.py
git apply -v - <<'EOF_114329324912'
diff --git a/tests/test_utils.py b/tests/test_utils.py
index 1111111..2222222 100644
--- a/tests/test_utils.py
+++ b/tests/test_utils.py
@@ -1,3 +1,3 @@
 import pytest
-    assert x
+    assert x == {}
 

EOF_114329324912
pytest -rA --tb=long tests/test_utils.py
git checkout a29f2afc8a36364f60965473ac6bd12b2740d4b1 tests/test_utils.py
