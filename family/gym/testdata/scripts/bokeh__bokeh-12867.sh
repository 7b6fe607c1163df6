#!/bin/bash
set -xo pipefail
source /opt/miniconda3/bin/activate
conda activate testbed
cd /testbed
git config --global --add safe.directory /testbed
cd /testbed
git status
git show
git diff af53c07ae875aaf734cae5bee2e6070db4c4d6fc
source /opt/miniconda3/bin/activate
conda activate testbed
pip install "setuptools<66" "jinja2<3.1"; printf "1
" | python setup.py develop; bokeh sampledata;
git checkout af53c07ae875aaf734cae5bee2e6070db4c4d6fc tests/unit/bokeh/core/test_properties.py
git apply -v - <<'EOF_114329324912'
diff --git a/tests/unit/bokeh/core/test_properties.py b/tests/unit/bokeh/core/test_properties.py
index 1111111..2222222 100644
--- a/tests/unit/bokeh/core/test_properties.py
+++ b/tests/unit/bokeh/core/test_properties.py
@@ -1,3 +1,3 @@
 import pytest
-    assert p
+    assert p.value
 

EOF_114329324912
pytest -rA -n0 tests/unit/bokeh/core/test_properties.py
git checkout af53c07ae875aaf734cae5bee2e6070db4c4d6fc tests/unit/bokeh/core/test_properties.py
