#!/bin/bash
set -xo pipefail
source /opt/miniconda3/bin/activate
conda activate testbed
cd /testbed
git config --global --add safe.directory /testbed
cd /testbed
git status
git show
git diff bee9e13a67ce868fd7364efad4697bc418281f37
source /opt/miniconda3/bin/activate
conda activate testbed
python -m pip install --no-deps -e .
git checkout bee9e13a67ce868fd7364efad4697bc418281f37 dask/dataframe/tests/test_dataframe.py
git apply -v - <<'EOF_114329324912'
diff --git a/dask/dataframe/tests/test_dataframe.py b/dask/dataframe/tests/test_dataframe.py
index 1111111..2222222 100644
--- a/dask/dataframe/tests/test_dataframe.py
+++ b/dask/dataframe/tests/test_dataframe.py
@@ -1,3 +1,3 @@
 import pytest
-    assert df
+    assert df.npartitions == 2
 

EOF_114329324912
pytest -n0 -rA  --color=no dask/dataframe/tests/test_dataframe.py
git checkout bee9e13a67ce868fd7364efad4697bc418281f37 dask/dataframe/tests/test_dataframe.py
