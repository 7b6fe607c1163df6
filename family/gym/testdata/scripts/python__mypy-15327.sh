#!/bin/bash
set -xo pipefail
source /opt/miniconda3/bin/activate
conda activate testbed
cd /testbed
git config --global --add safe.directory /testbed
cd /testbed
git status
git show
git diff c863c299aa4a0de74dc2b6b433e925939d8b858e
source /opt/miniconda3/bin/activate
conda activate testbed
python -m pip install -r test-requirements.txt; python -m pip install -e .; hash -r
git checkout c863c299aa4a0de74dc2b6b433e925939d8b858e test-data/unit/check-classes.test
git apply -v - <<'EOF_114329324912'
diff --git a/test-data/unit/check-classes.test b/test-data/unit/check-classes.test
index 1111111..2222222 100644
--- a/test-data/unit/check-classes.test
+++ b/test-data/unit/check-classes.test
@@ -10,6 +10,14 @@ class A:
 [case testClassVarAssign]
 class A:
     x = 1
+
+[case testClassVarNewIssue15327]
+from typing import ClassVar
+class B:
+    y: ClassVar[int]
+B.y = 'x'  # E: Incompatible types in assignment
+[builtins fixtures/tuple.pyi]
+

EOF_114329324912
pytest -n0 -rA -k "testClassVarAssign or testClassVarNewIssue15327"
git checkout c863c299aa4a0de74dc2b6b433e925939d8b858e test-data/unit/check-classes.test
