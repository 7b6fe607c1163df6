# Accepts pytest-xdist's -n option (SWE-Gym's test commands pass -n0), which this test image
# does not have installed.
def pytest_addoption(parser):
    parser.getgroup("xdist")._addoption("-n", dest="numprocesses", default=None, help="stand-in for pytest-xdist's -n")
