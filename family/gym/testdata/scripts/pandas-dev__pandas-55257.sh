#!/bin/bash
set -xo pipefail
source /opt/miniconda3/bin/activate
conda activate testbed
cd /testbed
git config --global --add safe.directory /testbed
cd /testbed
git status
git show
git diff ee365840a276ed9fee0f6ad1a7c46aa503c290a8
source /opt/miniconda3/bin/activate
conda activate testbed
python -m pip install -ve . --no-build-isolation -Ceditable-verbose=true; pip uninstall pytest-qt -y;
git checkout ee365840a276ed9fee0f6ad1a7c46aa503c290a8 pandas/tests/frame/test_api.py
git apply -v - <<'EOF_114329324912'
diff --git a/pandas/tests/frame/test_api.py b/pandas/tests/frame/test_api.py
index 1111111..2222222 100644
--- a/pandas/tests/frame/test_api.py
+++ b/pandas/tests/frame/test_api.py
@@ -1,3 +1,3 @@
 import pytest
-    assert df.empty
+    assert not df.empty
 

EOF_114329324912
pytest -rA --tb=long pandas/tests/frame/test_api.py
git checkout ee365840a276ed9fee0f6ad1a7c46aa503c290a8 pandas/tests/frame/test_api.py
