package gym

// The evaluation specifications SWE-Gym's harness fork (github.com/SWE-Gym/SWE-Bench-Fork, commit
// 242429c188fcfd06aad13fce9a54d450470bf0ac, swebench/harness/constants.py) adds for the
// repositories of SWE-Gym, as data: per repository (lower-cased, as the fork keys them) and
// version, the commands its eval script runs — eval_commands, install, test_cmd. The fork's
// image-build fields (python, packages, pre_install, env_patches) are not here: SWE-Gym's images
// are built, and evaluation runs none of them.

// spec is one repository version's specification.
type spec struct {
	EvalCommands []string // run first, in /testbed with the testbed environment active
	Install      string   // rerun before the tests ("" when the fork has none)
	TestCmd      string   // the test command, before the test files
}

// specGroup is a spec shared by several versions of a repository.
type specGroup struct {
	repo     string
	versions []string
	spec     spec
}

// specGroups are the fork's specifications of the SWE-Gym repositories (and of
// HypothesisWorks/hypothesis, which the fork also adds).
var specGroups = []specGroup{
	{
		repo:     "getmoto/moto",
		versions: []string{"0.4", "1.0", "1.2", "1.3", "2.0", "2.1", "2.2", "2.3", "3.0", "3.1", "4.0", "4.1", "4.2", "5.0"},
		spec: spec{
			Install: "make init",
			TestCmd: "pytest -n0 -rA",
		},
	},
	{
		repo:     "python/mypy",
		versions: []string{"0.800", "0.810", "0.820", "0.910", "0.920"},
		spec: spec{
			Install: "python -m pip install -r test-requirements.txt; python -m pip install -e .; pip install pytest pytest-xdist; hash -r;",
			TestCmd: "pytest -n0 -rA -k",
		},
	},
	{
		repo:     "python/mypy",
		versions: []string{"0.940", "0.950", "0.960", "0.970", "0.980", "0.990"},
		spec: spec{
			Install: "python -m pip install -r test-requirements.txt; python -m pip install -e .; pip install pytest pytest-xdist; hash -r",
			TestCmd: "pytest -n0 -rA -k",
		},
	},
	{
		repo:     "python/mypy",
		versions: []string{"1.0", "1.1", "1.2", "1.3", "1.4", "1.5", "1.6"},
		spec: spec{
			Install: "python -m pip install -r test-requirements.txt; python -m pip install -e .; hash -r",
			TestCmd: "pytest -n0 -rA -k",
		},
	},
	{
		repo:     "python/mypy",
		versions: []string{"1.10", "1.11", "1.7", "1.8", "1.9"},
		spec: spec{
			Install: "python -m pip install -r test-requirements.txt; python -m pip install -e .; hash -r",
			TestCmd: "pytest -rA -k",
		},
	},
	{
		repo:     "pandas-dev/pandas",
		versions: []string{"0.16", "0.17", "0.18", "0.19", "0.20", "0.21", "0.22", "0.23", "0.24", "0.25", "0.26", "1.0", "1.1", "1.2", "1.3", "1.4", "1.5", "2.0", "2.1"},
		spec: spec{
			Install: "python -m pip install 'numpy<2'; python -m pip install -ve . --no-build-isolation -Ceditable-verbose=true; pip uninstall pytest-qt -y;",
			TestCmd: "pytest -rA --tb=long",
		},
	},
	{
		repo:     "pandas-dev/pandas",
		versions: []string{"2.2", "3.0"},
		spec: spec{
			Install: "python -m pip install -ve . --no-build-isolation -Ceditable-verbose=true; pip uninstall pytest-qt -y;",
			TestCmd: "pytest -rA --tb=long",
		},
	},
	{
		repo:     "pydantic/pydantic",
		versions: []string{"0.10", "0.11", "0.13", "0.14", "0.15", "0.151", "0.17", "0.18", "0.2", "0.20", "0.201", "0.24", "0.27", "0.29", "0.32", "0.4", "0.41", "0.6", "0.9", "1.01", "1.10", "1.31", "1.4", "1.41", "1.5", "1.51", "1.6", "1.7", "1.71", "1.8", "1.9", "2.0", "2.01", "2.02", "2.03", "2.04", "2.4", "2.5", "2.6", "2.7"},
		spec: spec{
			Install: "export PATH=\"$HOME/.local/bin:$PATH\"; pdm add pre-commit; make install;",
			TestCmd: "pytest -rA --tb=short -vv -o console_output_style=classic --no-header",
		},
	},
	{
		repo:     "iterative/dvc",
		versions: []string{"0.1", "0.12", "0.13", "0.14", "0.15", "0.16", "0.17", "0.18", "0.19", "0.20", "0.21", "0.22", "0.23", "0.24", "0.27", "0.28", "0.29", "0.30", "0.31", "0.32", "0.33", "0.34", "0.35", "0.40", "0.41", "0.50", "0.51", "0.52", "0.53", "0.54", "0.55", "0.56", "0.57", "0.58", "0.59", "0.60", "0.61", "0.62", "0.63", "0.65", "0.66", "0.68", "0.69", "0.70", "0.71", "0.74", "0.75", "0.76", "0.77", "0.78", "0.8", "0.80", "0.81", "0.82", "0.83", "0.84", "0.85", "0.86", "0.87", "0.88", "0.89", "0.9", "0.90", "0.91", "0.92", "0.93", "1.0", "1.1", "1.10", "1.11", "1.2", "1.3", "1.4", "1.5", "1.6", "1.7", "1.8", "1.9", "2.0", "2.1", "2.10", "2.11", "2.12", "2.13", "2.15", "2.17", "2.19", "2.2", "2.20", "2.21", "2.22", "2.23", "2.24", "2.27", "2.28", "2.3", "2.30", "2.33", "2.34", "2.35", "2.38", "2.4", "2.41", "2.43", "2.44", "2.45", "2.46", "2.48", "2.5", "2.50", "2.51", "2.52", "2.54", "2.55", "2.56", "2.57", "2.58", "2.6", "2.7", "2.8", "2.9", "3.0", "3.1", "3.2", "3.3"},
		spec: spec{
			Install: "python -m pip install --upgrade pip wheel GitPython; python -m pip install \"cython<3.0.0\" && python -m pip install --no-build-isolation pyyaml==5.4.1; python -m pip install git+https://github.com/iterative/mock-ssh-server.git || true; python -m pip install -r tests/requirements.txt || true; python -m pip install -r test-requirements.txt || true; python -m pip install -e \".[tests,dev,all_remotes,all,testing]\"; python -m pip install \"numpy<=1.20\"; python -m pip install \"pytest<8\";",
			TestCmd: "pytest -rA",
		},
	},
	{
		repo:     "iterative/dvc",
		versions: []string{"3.10", "3.11", "3.12", "3.13", "3.14", "3.15", "3.17", "3.19", "3.23", "3.24", "3.28", "3.29", "3.36", "3.37", "3.38", "3.4", "3.43", "3.47", "3.48", "3.49", "3.5", "3.6"},
		spec: spec{
			Install: "python -m pip install --upgrade pip wheel GitPython; python -m pip install \"cython<3.0.0\" && python -m pip install --no-build-isolation pyyaml==5.4.1; python -m pip install git+https://github.com/iterative/mock-ssh-server.git || true; python -m pip install -r tests/requirements.txt || true; python -m pip install -r test-requirements.txt || true; python -m pip install -e \".[tests,dev,all_remotes,all,testing]\";",
			TestCmd: "pytest -rA",
		},
	},
	{
		repo:     "dask/dask",
		versions: []string{"2.11", "2.12", "2.13", "2.14", "2.15", "2.16", "2.17", "2.18", "2.19", "2.21", "2.22", "2.23", "2.25", "2.26", "2.27", "2.28", "2.29", "2.30", "2020.12", "2021.01", "2021.02", "2021.03", "2021.04", "2021.05", "2021.06", "2021.07", "2021.08", "2021.09", "2021.10", "2021.11", "2021.12", "2022.01", "2022.02", "2022.03", "2022.04", "2022.05", "2022.10", "2022.11", "2022.12", "2022.6", "2022.7", "2022.8", "2022.9", "2023.1", "2023.10", "2023.11", "2023.12", "2023.2", "2023.3", "2023.4", "2023.5", "2023.6", "2023.7", "2023.8", "2023.9", "2024.1", "2024.2", "2024.3", "2024.4", "2024.5"},
		spec: spec{
			Install: "python -m pip install --no-deps -e .",
			TestCmd: "pytest -n0 -rA  --color=no",
		},
	},
	{
		repo:     "conan-io/conan",
		versions: []string{"1.33", "1.34", "1.35", "1.36", "1.37", "1.38", "1.39", "1.40", "1.41", "1.42", "1.43", "1.44", "1.45", "1.46", "1.47", "1.48", "1.49", "1.50", "1.51", "1.52", "1.53", "1.54", "1.55", "1.57", "1.58", "1.59", "2.0"},
		spec: spec{
			EvalCommands: []string{"export PYTHONPATH=${PYTHONPATH:-}:$(pwd)"},
			Install:      "echo 'cython<3' > /tmp/constraint.txt; export PIP_CONSTRAINT=/tmp/constraint.txt; python -m pip install -r conans/requirements.txt; python -m pip install -r conans/requirements_server.txt; python -m pip install -r conans/requirements_dev.txt ",
			TestCmd:      "pytest -n0 -rA",
		},
	},
	{
		repo:     "conan-io/conan",
		versions: []string{"1.60", "1.61", "1.62", "2.1", "2.2", "2.3", "2.4"},
		spec: spec{
			EvalCommands: []string{"export PYTHONPATH=${PYTHONPATH:-}:$(pwd)"},
			Install:      "python -m pip install -r conans/requirements.txt; python -m pip install -r conans/requirements_server.txt; python -m pip install -r conans/requirements_dev.txt ",
			TestCmd:      "pytest -n0 -rA",
		},
	},
	{
		repo:     "project-monai/monai",
		versions: []string{"0.1", "0.105", "0.11", "0.2", "0.3", "0.4", "0.5", "0.6", "0.7", "0.8", "0.9", "1.0", "1.1", "1.2", "1.3"},
		spec: spec{
			Install: "sed -i '/^git+https:\\/\\/github.com\\/Project-MONAI\\//d' requirements-dev.txt; python -m pip install types-pkg-resources==0.1.3 pytest; pip install -r requirements-dev.txt;python setup.py develop;",
			TestCmd: "pytest -rA ",
		},
	},
	{
		repo:     "bokeh/bokeh",
		versions: []string{"0.10", "0.11", "0.1181316818", "0.12", "0.13", "0.4", "0.5", "0.6", "0.7", "0.8", "0.9", "1.0", "1.1", "1.2", "1.3", "1.4", "2.0", "2.1", "2.3", "2.4"},
		spec: spec{
			Install: "pip install \"setuptools<66\" \"jinja2<3.1\"; printf \"1\n\" | python setup.py develop; bokeh sampledata;",
			TestCmd: "pytest -rA -n0",
		},
	},
	{
		repo:     "bokeh/bokeh",
		versions: []string{"3.0", "3.3", "3.4", "3.5"},
		spec: spec{
			Install: "python -m pip install -e .; python -m pip install bokeh_sampledata;",
			TestCmd: "pytest -rA -n0",
		},
	},
	{
		repo:     "modin-project/modin",
		versions: []string{"0.1", "0.10", "0.11", "0.12", "0.13", "0.14", "0.15", "0.16", "0.17", "0.18", "0.19", "0.2", "0.3", "0.4", "0.6", "0.8", "0.9"},
		spec: spec{
			Install: "python -m pip install -e .; python -m pip install numpy==1.23.1 protobuf==3.20.1;",
			TestCmd: "pytest -n0 -rA",
		},
	},
	{
		repo:     "modin-project/modin",
		versions: []string{"0.20", "0.21", "0.22", "0.23", "0.24", "0.25", "0.26", "0.27", "0.28", "0.29", "0.30"},
		spec: spec{
			Install: "python -m pip install -e .;",
			TestCmd: "pytest -n0 -rA",
		},
	},
	{
		repo:     "facebookresearch/hydra",
		versions: []string{"0.1", "0.10", "0.11", "0.12", "0.9", "1.0", "1.1", "1.2"},
		spec: spec{
			Install: "sed -i 's|isort@git+git://github.com/timothycrosley/isort|isort@git+https://github.com/timothycrosley/isort|g' requirements/dev.txt; { tail -n1 requirements/requirements.txt | grep -q \".\" && echo \"\"; } >> requirements/requirements.txt; echo \"pip==24.0\" >> requirements/requirements.txt;pip install \"pip==24.0\"; pip install -r requirements/dev.txt; pip install -e .;",
			TestCmd: "pytest -rA --tb=long",
		},
	},
	{
		repo:     "facebookresearch/hydra",
		versions: []string{"1.3", "1.4"},
		spec: spec{
			Install: "pip install -r requirements/dev.txt; pip install -e .;",
			TestCmd: "pytest -rA --tb=long",
		},
	},
	{
		repo:     "hypothesisworks/hypothesis",
		versions: []string{"3.55", "3.59", "3.60", "3.61", "3.63", "3.66", "3.67", "3.68", "3.69", "3.70", "3.71", "3.73", "3.75", "3.79", "3.82", "3.85", "3.86", "3.88", "4.0", "4.12", "4.14", "4.15", "4.18", "4.2", "4.23", "4.24", "4.26", "4.32", "4.38", "4.4", "4.40", "4.42", "4.44", "4.46", "4.50", "4.54", "4.55", "5.1", "5.10", "5.12", "5.15", "5.2", "5.20", "5.23", "5.24", "5.32", "5.33", "5.36", "5.38", "5.4", "5.41", "5.42", "5.43", "5.47", "5.5", "5.6", "5.8", "5.9", "6.1", "6.100", "6.102", "6.13", "6.14", "6.18", "6.21", "6.24", "6.28", "6.29", "6.30", "6.31", "6.36", "6.4", "6.40", "6.43", "6.45", "6.46", "6.47", "6.50", "6.53", "6.54", "6.59", "6.6", "6.62", "6.66", "6.71", "6.74", "6.77", "6.8", "6.81", "6.87", "6.88", "6.93", "6.98", "6.99"},
		spec: spec{
			Install: "python -m pip install -r requirements/test.txt; python -m pip install -e hypothesis-python/;",
			TestCmd: "pytest -n0 -rA --tb=no --no-header",
		},
	},
}
