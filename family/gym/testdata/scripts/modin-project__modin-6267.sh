#!/bin/bash
set -xo pipefail
source /opt/miniconda3/bin/activate
conda activate testbed
cd /testbed
git config --global --add safe.directory /testbed
cd /testbed
git status
git show
git diff 3e9b3833f4ae63a6ff53c7411a008112e1e7b61c
source /opt/miniconda3/bin/activate
conda activate testbed
python -m pip install -e .;
git checkout 3e9b3833f4ae63a6ff53c7411a008112e1e7b61c modin/pandas/test/test_series.py
git apply -v - <<'EOF_114329324912'
diff --git a/modin/pandas/test/test_series.py b/modin/pandas/test/test_series.py
index 1111111..2222222 100644
--- a/modin/pandas/test/test_series.py
+++ b/modin/pandas/test/test_series.py
@@ -1,3 +1,3 @@
 import pytest
-    df_equals(a, b)
+    df_equals(a, b.copy())
 

EOF_114329324912
pytest -n0 -rA modin/pandas/test/test_series.py
git checkout 3e9b3833f4ae63a6ff53c7411a008112e1e7b61c modin/pandas/test/test_series.py
