"""`pip install ./packages/python` works offline (no build isolation: setuptools from the system)
and installs a typed package that imports with the standard library only."""

import importlib.util
import os
import shutil
import subprocess
import sys
import venv

import pytest

PACKAGE = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))


@pytest.mark.skipif(importlib.util.find_spec("pip") is None or importlib.util.find_spec("setuptools") is None,
                    reason="pip or setuptools is not installed for this interpreter")
def test_installs_offline_and_imports(tmp_path):
    venv.create(tmp_path / "env", system_site_packages=True, with_pip=False)
    python = str(tmp_path / "env" / "bin" / "python")
    # A copy, so that the build leaves nothing in the checkout.
    copy = tmp_path / "package"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__", "test", "tests"))
    subprocess.run([python, "-m", "pip", "install", "--quiet", "--no-index", "--no-build-isolation",
                    "--no-cache-dir", "--target", str(tmp_path / "site"), str(copy)], check=True, timeout=120, cwd=tmp_path)
    site = tmp_path / "site" / "jtrace"
    assert (site / "py.typed").exists() and (site / "_protocol.py").exists()
    # Modules loaded before jtrace (site hooks of the interpreter) are not its doing.
    probe = ("import sys; before = set(sys.modules); import jtrace; assert jtrace.create_recorder; "
             "assert not [m for m in set(sys.modules) - before if m.split('.')[0] not in sys.stdlib_module_names | {'jtrace'}]"
             if sys.version_info >= (3, 10) else "import jtrace")
    subprocess.run([python, "-I", "-c", f"import sys; sys.path.insert(0, {str(tmp_path / 'site')!r}); {probe}"], check=True, timeout=60)
