"""A pytest fixture that serves a recorded archive with `agentvcr replay`.

This is the fixture docs/replay.md shows: copy it into your own conftest.py and point
AGENTVCR_ARCHIVE at the archive your tests should see. Here the archive is recorded from
the bundled demo first, so the tests run anywhere agentvcr builds.
"""

import os
import pathlib
import signal
import subprocess
import time

import pytest

AGENTVCR = os.environ.get("AGENTVCR", "agentvcr")


@pytest.fixture(scope="session")
def archive(tmp_path_factory):
    """The archive to replay: AGENTVCR_ARCHIVE, or the demo recorded afresh."""
    if "AGENTVCR_ARCHIVE" in os.environ:
        return pathlib.Path(os.environ["AGENTVCR_ARCHIVE"])
    path = tmp_path_factory.mktemp("archive") / "demo.sqlite"
    command = [AGENTVCR, "demo", "--db", str(path)]
    if "AGENTVCR_FIXTURES" in os.environ:
        command += ["--fixtures", os.environ["AGENTVCR_FIXTURES"]]
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    return path


@pytest.fixture()
def replay_agent(archive, tmp_path):
    """Base URL of a deterministic mock agent answering from `archive`.

    Function-scoped: each test starts from the first recorded answer of every input.
    """
    ready = tmp_path / "replay.url"
    process = subprocess.Popen(
        [AGENTVCR, "replay", "--db", str(archive), "--listen", "127.0.0.1:0",
         "--ready-file", str(ready)],
        stdout=subprocess.DEVNULL, stderr=open(tmp_path / "replay.log", "w"))
    deadline = time.monotonic() + 30
    while not ready.exists():
        if process.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError((tmp_path / "replay.log").read_text())
        time.sleep(0.02)
    yield ready.read_text().strip()
    process.send_signal(signal.SIGINT)
    process.wait(timeout=30)
