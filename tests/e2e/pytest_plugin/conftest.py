"""Shared pieces of the pytest-agentvcr tests: real archives, a real live agent, real requests.

Every archive is recorded by `agentvcr demo` (or by `agentvcr record` in front of the demo's
scripted agent, `agentvcr mock magma`), and every inner test run talks HTTP to a real
`agentvcr` process. The plugin is imported from the source tree (python/), and inner runs
load it with `-p pytest_agentvcr.plugin`; test_entry_point.py installs it for real instead.
"""

import json
import os
import pathlib
import signal
import subprocess
import sys
import time
import urllib.request

import pytest

pytest_plugins = ["pytester"]

REPO = pathlib.Path(__file__).resolve().parents[3]
PYTHON_DIR = REPO / "python"
sys.path.insert(0, str(PYTHON_DIR))

AGENTVCR = os.environ.get("AGENTVCR", "agentvcr")
FIXTURES = pathlib.Path(os.environ.get("AGENTVCR_FIXTURES", REPO / "fixtures"))

# Imported by every inner test file: how a test asks the agent, and the requests it asks.
INNER_HELPERS = '''
import json, pathlib, urllib.request
import pytest

REQUESTS = json.loads((pathlib.Path(__file__).parent / "requests.json").read_text())

def ask(url, body, headers=None):
    request = urllib.request.Request(url + "/v1/responses", json.dumps(body).encode(),
                                     {"Content-Type": "application/json", **(headers or {})})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.load(response)
'''


def wait_for_ready_file(process: subprocess.Popen, ready: pathlib.Path) -> str:
    deadline = time.monotonic() + 30
    while not ready.exists():
        assert process.poll() is None, f"{process.args} exited"
        assert time.monotonic() < deadline, f"{process.args} not ready"
        time.sleep(0.02)
    return ready.read_text().strip()


def stop(process: subprocess.Popen) -> None:
    process.send_signal(signal.SIGINT)
    process.wait(timeout=30)


def ask(url: str, body: dict) -> list:
    request = urllib.request.Request(url + "/v1/responses", json.dumps(body).encode(),
                                     {"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.load(response)


@pytest.fixture(scope="session")
def demo_archive(tmp_path_factory) -> pathlib.Path:
    """The bundled demo episodes, recorded afresh. Tests copy it before writing to it."""
    path = tmp_path_factory.mktemp("demo") / "demo.sqlite"
    subprocess.run([AGENTVCR, "demo", "--db", str(path), "--fixtures", str(FIXTURES)],
                   check=True, stdout=subprocess.DEVNULL)
    return path


@pytest.fixture(scope="session")
def live_agent(tmp_path_factory) -> str:
    """The demo's scripted MAGMA agent, listening: the upstream of record and forward."""
    workdir = tmp_path_factory.mktemp("live")
    process = subprocess.Popen(
        [AGENTVCR, "mock", "magma", "--script", str(FIXTURES / "demo" / "agent-script.json"),
         "--listen", "127.0.0.1:0", "--ready-file", str(workdir / "url")],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    yield wait_for_ready_file(process, workdir / "url")
    stop(process)


@pytest.fixture(scope="session")
def requests(demo_archive) -> dict:
    """`recorded`: the demo's first recorded input, alone in a request, and the candidates it
    got; `new`: the same input asking for another button, which the demo never recorded."""
    out = subprocess.run([AGENTVCR, "export", "--db", str(demo_archive), "--format", "jsonl"],
                         check=True, capture_output=True).stdout
    exchanges = [json.loads(line) for line in out.splitlines() if line]
    first = next(e for e in exchanges if e.get("route") == "responses")
    request, response = json.loads(first["request_body"]), json.loads(first["response_body"])
    recorded_input = request["inputs"][0]
    assert recorded_input["instruction"]["content"] == "Please press sw1"
    new_input = json.loads(json.dumps(recorded_input))
    new_input["instruction"]["content"] = "Please press sw4"
    new_input["id"] = 7
    return {
        "recorded": {"request_id": "pytest-recorded", "inputs": [recorded_input]},
        "recorded_candidates": [c for c in response if c["source_id"] == recorded_input["id"]],
        "new": {"request_id": "pytest-new", "inputs": [new_input]},
    }


@pytest.fixture(scope="session")
def new_archive(tmp_path_factory, live_agent, requests) -> pathlib.Path:
    """An archive holding only the `new` request, recorded by `agentvcr record`."""
    workdir = tmp_path_factory.mktemp("new")
    process = subprocess.Popen(
        [AGENTVCR, "record", "--upstream", live_agent, "--db", str(workdir / "new.sqlite"),
         "--listen", "127.0.0.1:0", "--ready-file", str(workdir / "url")],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    ask(wait_for_ready_file(process, workdir / "url"), requests["new"])
    stop(process)
    return workdir / "new.sqlite"


@pytest.fixture()
def inner(pytester, requests):
    """Writes an inner test file (with the helpers and requests.json) and runs pytest on it
    in process, with the plugin loaded from the source tree."""

    def run(source: str, *args: str) -> pytest.RunResult:
        (pytester.path / "requests.json").write_text(json.dumps(requests))
        pytester.makepyfile(test_inner=INNER_HELPERS + source)
        return pytester.runpytest("-p", "pytest_agentvcr.plugin", "-p", "no:cacheprovider",
                                  *args)

    return run
