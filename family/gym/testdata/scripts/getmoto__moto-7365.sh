#!/bin/bash
set -xo pipefail
source /opt/miniconda3/bin/activate
conda activate testbed
cd /testbed
git config --global --add safe.directory /testbed
cd /testbed
git status
git show
git diff 082784c07273e7884f2ad679c15eac67c10a569c
source /opt/miniconda3/bin/activate
conda activate testbed
make init
git checkout 082784c07273e7884f2ad679c15eac67c10a569c tests/test_dynamodb/test_dynamodb.py tests/test_dynamodb/data/items.json
git apply -v - <<'EOF_114329324912'
diff --git a/tests/test_dynamodb/test_dynamodb.py b/tests/test_dynamodb/test_dynamodb.py
index 1111111..2222222 100644
--- a/tests/test_dynamodb/test_dynamodb.py
+++ b/tests/test_dynamodb/test_dynamodb.py
@@ -1,3 +1,3 @@
 import pytest
-    assert True
+    assert table.item_count == 1
 
diff --git a/tests/test_core/test_account_id.py b/tests/test_core/test_account_id.py
new file mode 100644
index 0000000..3333333
--- /dev/null
+++ b/tests/test_core/test_account_id.py
@@ -0,0 +1 @@
+def test_account_id(): pass
diff --git a/tests/test_dynamodb/data/items.json b/tests/test_dynamodb/data/items.json
index 1111111..2222222 100644
--- a/tests/test_dynamodb/data/items.json
+++ b/tests/test_dynamodb/data/items.json
@@ -1,3 +1,3 @@
 {
-"a": 1
+"a": 2
 

EOF_114329324912
pytest -n0 -rA tests/test_dynamodb/test_dynamodb.py tests/test_core/test_account_id.py
git checkout 082784c07273e7884f2ad679c15eac67c10a569c tests/test_dynamodb/test_dynamodb.py tests/test_dynamodb/data/items.json
