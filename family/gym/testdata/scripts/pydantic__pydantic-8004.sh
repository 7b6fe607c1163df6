#!/bin/bash
set -xo pipefail
source /opt/miniconda3/bin/activate
conda activate testbed
cd /testbed
git config --global --add safe.directory /testbed
cd /testbed
git status
git show
git diff e7936eea3d0d86eac92260ac62ede7e51c819748
source /opt/miniconda3/bin/activate
conda activate testbed
export PATH="$HOME/.local/bin:$PATH"; pdm add pre-commit; make install;
git checkout e7936eea3d0d86eac92260ac62ede7e51c819748 tests/test_main.py
git apply -v - <<'EOF_114329324912'
diff --git a/tests/test_main.py b/tests/test_main.py
index 1111111..2222222 100644
--- a/tests/test_main.py
+++ b/tests/test_main.py
@@ -1,3 +1,3 @@
 import pytest
-    assert m.x == 1
+    assert m.x == 2
 

EOF_114329324912
pytest -rA --tb=short -vv -o console_output_style=classic --no-header tests/test_main.py
git checkout e7936eea3d0d86eac92260ac62ede7e51c819748 tests/test_main.py
