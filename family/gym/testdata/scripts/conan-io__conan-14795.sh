#!/bin/bash
set -xo pipefail
source /opt/miniconda3/bin/activate
conda activate testbed
cd /testbed
export PYTHONPATH=${PYTHONPATH:-}:$(pwd)
git config --global --add safe.directory /testbed
cd /testbed
git status
git show
git diff 65a70c9c3e2fc7a00fd235aa5558cc9592e605d3
source /opt/miniconda3/bin/activate
conda activate testbed
echo 'cython<3' > /tmp/constraint.txt; export PIP_CONSTRAINT=/tmp/constraint.txt; python -m pip install -r conans/requirements.txt; python -m pip install -r conans/requirements_server.txt; python -m pip install -r conans/requirements_dev.txt 
git checkout 65a70c9c3e2fc7a00fd235aa5558cc9592e605d3 conans/test/unittests/client/test_conf.py
git apply -v - <<'EOF_114329324912'
diff --git a/conans/test/unittests/client/test_conf.py b/conans/test/unittests/client/test_conf.py
index 1111111..2222222 100644
--- a/conans/test/unittests/client/test_conf.py
+++ b/conans/test/unittests/client/test_conf.py
@@ -1,3 +1,3 @@
 import pytest
-    assert conf
+    assert conf.get('x')
 

EOF_114329324912
pytest -n0 -rA conans/test/unittests/client/test_conf.py
git checkout 65a70c9c3e2fc7a00fd235aa5558cc9592e605d3 conans/test/unittests/client/test_conf.py
