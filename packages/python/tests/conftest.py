import os
import sys

import pytest

# The package from source, as `pip install ./packages/python` would provide it.
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "src"))
sys.path.insert(0, os.path.dirname(__file__))

from helpers import SERVER_URL  # noqa: E402


def pytest_collection_modifyitems(config, items):  # type: ignore[no-untyped-def]
    if SERVER_URL:
        return
    skip = pytest.mark.skip(reason="needs a jtrace server: JTRACE_TEST_URL and keys (npm test provides them)")
    for item in items:
        if "server" in item.keywords:
            item.add_marker(skip)


def pytest_configure(config):  # type: ignore[no-untyped-def]
    config.addinivalue_line("markers", "server: needs the real jtrace server")
