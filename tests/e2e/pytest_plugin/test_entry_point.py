"""The plugin, installed the way a user installs it, loads with no flag: pytest finds it
through its `pytest11` entry point. Installed offline into a virtualenv that sees Debian's
pytest, setuptools and wheel (`--system-site-packages`, `--no-build-isolation`, `--no-index`)."""

import os
import pathlib
import shutil
import subprocess
import sys

PYTHON_DIR = pathlib.Path(__file__).resolve().parents[3] / "python"


def test_the_installed_plugin_loads_through_its_entry_point(tmp_path, demo_archive):
    # pip builds in place: a copy keeps build/ and *.egg-info out of the source tree.
    source = shutil.copytree(PYTHON_DIR, tmp_path / "src", ignore=shutil.ignore_patterns(
        "build", "*.egg-info", "__pycache__"))
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)],
                   check=True)
    subprocess.run([venv / "bin" / "pip", "install", "--quiet", "--no-index", "--no-deps",
                    "--no-build-isolation", "--no-cache-dir", str(source)], check=True)

    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "test_installed.py").write_text(f'''
import json, urllib.request
import pytest_agentvcr

def test_installed(agentvcr):
    assert pytest_agentvcr.__file__.startswith({str(venv)!r})   # not the source tree
    with urllib.request.urlopen(agentvcr.url + "/health", timeout=30) as response:
        assert json.load(response) == {{"status": "ready"}}
''')
    env = {name: value for name, value in os.environ.items() if name != "PYTHONPATH"}
    run = subprocess.run(
        [venv / "bin" / "python", "-m", "pytest", "-q", "-p", "no:cacheprovider",
         f"--agentvcr-archive={demo_archive}", str(tests)],
        cwd=tmp_path, env=env, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "1 passed" in run.stdout
