#!/bin/bash
set -xo pipefail
source /opt/miniconda3/bin/activate
conda activate testbed
cd /testbed
git config --global --add safe.directory /testbed
cd /testbed
git status
git show
git diff 03e35dd11603a09044f59dc68a946fed3fa9b2ef
source /opt/miniconda3/bin/activate
conda activate testbed
sed -i '/^git+https:\/\/github.com\/Project-MONAI\//d' requirements-dev.txt; python -m pip install types-pkg-resources==0.1.3 pytest; pip install -r requirements-dev.txt;python setup.py develop;
git checkout 03e35dd11603a09044f59dc68a946fed3fa9b2ef tests/test_to_tensor.py
git apply -v - <<'EOF_114329324912'
diff --git a/tests/test_to_tensor.py b/tests/test_to_tensor.py
index 1111111..2222222 100644
--- a/tests/test_to_tensor.py
+++ b/tests/test_to_tensor.py
@@ -1,3 +1,3 @@
 import pytest
-    assert t
+    assert t.shape == (1,)
 

EOF_114329324912
pytest -rA  tests/test_to_tensor.py
git checkout 03e35dd11603a09044f59dc68a946fed3fa9b2ef tests/test_to_tensor.py
