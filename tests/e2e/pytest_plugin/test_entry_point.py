"""How a user loads the plugin. From a checkout: the one line python/README.md documents, run
as written from a clean copy of the checkout, alone and beside what a build or an install of
the plugin leaves (its `pytest11` entry point). Installed: offline into a virtualenv that sees
Debian's pytest, setuptools and wheel (`--system-site-packages`, `--no-build-isolation`,
`--no-index`), pytest loads it through its entry point with no flag."""

import os
import pathlib
import re
import shutil
import subprocess
import sys

REPO = pathlib.Path(__file__).resolve().parents[3]
PYTHON_DIR = REPO / "python"
CHECKOUT = "path/to/agentvcr"  # the README's name for the checkout


def clean_copy(destination: pathlib.Path) -> pathlib.Path:
    """python/ as a fresh clone has it, without what a build of it may have left here."""
    shutil.copytree(PYTHON_DIR, destination / "python", ignore=shutil.ignore_patterns(
        "build", "*.egg-info", "__pycache__"))
    return destination


def readme_route() -> str:
    """The command line of python/README.md's Install section, as written."""
    readme = (PYTHON_DIR / "README.md").read_text()
    install = readme[readme.index("## Install"):readme.index("## Example")]
    lines = re.findall(r"^PYTHONPATH=.*$", install, re.M)
    assert len(lines) == 1, f"python/README.md's Install should give one route, found {lines}"
    assert CHECKOUT in lines[0], lines[0]
    return lines[0]


def write_project(path: pathlib.Path, plugin_dir: pathlib.Path) -> pathlib.Path:
    """A user's tests folder: one test that talks to the recorded agent and checks which copy
    of the plugin pytest loaded."""
    path.mkdir()
    (path / "test_route.py").write_text(f'''
import json, urllib.request
import pytest_agentvcr

def test_route(agentvcr):
    assert pytest_agentvcr.__file__.startswith({str(plugin_dir)!r})
    with urllib.request.urlopen(agentvcr.url + "/health", timeout=30) as response:
        assert json.load(response) == {{"status": "ready"}}
''')
    return path


def run_route(checkout: pathlib.Path, project: pathlib.Path, archive: pathlib.Path,
              python_bin: pathlib.Path) -> subprocess.CompletedProcess:
    """The README's line through a shell, in `project`, with `python3` from `python_bin`
    (ctest's is Debian's /usr/bin/python3)."""
    line = readme_route().replace(CHECKOUT, str(checkout))
    env = {name: value for name, value in os.environ.items() if name != "PYTHONPATH"}
    env["PATH"] = f"{python_bin}:{env.get('PATH', '')}"
    return subprocess.run(
        ["bash", "-c", f"{line} -q -p no:cacheprovider --agentvcr-archive={archive}"],
        cwd=project, env=env, capture_output=True, text=True)


def test_the_readme_route_runs_from_a_clean_copy_of_the_checkout(tmp_path, demo_archive):
    checkout = clean_copy(tmp_path / "checkout")
    project = write_project(tmp_path / "project", checkout / "python")
    run = run_route(checkout, project, demo_archive, pathlib.Path(sys.executable).parent)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "1 passed" in run.stdout


def test_the_readme_route_survives_a_builds_leftovers_which_git_ignores(tmp_path, demo_archive):
    checkout = clean_copy(tmp_path / "checkout")
    # What a `pip install ./python` leaves in python/, entry point included: pytest finds it on
    # PYTHONPATH and loads the plugin through it as well as through `-p`.
    subprocess.run([sys.executable, "-c", "from setuptools import setup; setup()", "-q",
                    "egg_info", "build"], cwd=checkout / "python", check=True,
                   capture_output=True)
    leftovers = sorted(p.name for p in (checkout / "python").iterdir()
                       if p.name == "build" or p.name.endswith(".egg-info"))
    assert leftovers == ["build", "pytest_agentvcr.egg-info"], leftovers
    project = write_project(tmp_path / "project", checkout / "python")
    run = run_route(checkout, project, demo_archive, pathlib.Path(sys.executable).parent)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "1 passed" in run.stdout
    if (REPO / ".git").exists():
        ignored = subprocess.run(["git", "-C", str(REPO), "check-ignore", "--no-index",
                                  *(f"python/{name}/" for name in leftovers)],
                                 capture_output=True, text=True)
        assert ignored.stdout.split() == [f"python/{name}/" for name in leftovers], ignored


def test_the_installed_plugin_loads_through_its_entry_point(tmp_path, demo_archive):
    # pip builds in place: a copy keeps build/ and *.egg-info out of the source tree.
    source = clean_copy(tmp_path / "src") / "python"
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)],
                   check=True)
    subprocess.run([venv / "bin" / "pip", "install", "--quiet", "--no-index", "--no-deps",
                    "--no-build-isolation", "--no-cache-dir", str(source)], check=True)

    tests = write_project(tmp_path / "tests", venv)  # not the source tree
    env = {name: value for name, value in os.environ.items() if name != "PYTHONPATH"}
    run = subprocess.run(
        [venv / "bin" / "python", "-m", "pytest", "-q", "-p", "no:cacheprovider",
         f"--agentvcr-archive={demo_archive}", str(tests)],
        cwd=tmp_path, env=env, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "1 passed" in run.stdout

    # The README's line beside the installed copy: the checkout's plugin, loaded once.
    checkout = clean_copy(tmp_path / "checkout")
    project = write_project(tmp_path / "project", checkout / "python")
    run = run_route(checkout, project, demo_archive, venv / "bin")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "1 passed" in run.stdout
