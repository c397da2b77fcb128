"""The ``agentvcr`` fixture: a recorded agent (or a recording proxy) for each test.

One ``agentvcr`` process serves each test: ``agentvcr replay`` answers from an archive,
``agentvcr record`` relays to a live agent and records, and ``agentvcr replay --on-miss
forward`` does both (replays what it can, asks and records the live agent for the rest).
Processes listen on port 0 and announce their URL through a ready file, so tests never
race for ports. Replay misses are read from ``--miss-log`` after the test's call phase and
turn a passing test into a failure naming the route, the input, the closest recorded step
and the JSON paths that differ.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import time
import urllib.request
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Sequence, Tuple, Union

import pytest

MODES = ("replay", "record", "forward")
ON_MISS = ("error", "ignore")
SCOPES = ("function", "session")
MARKER_KEYS = ("archive", "session", "conversation", "ignore", "on_miss", "scope", "fork_at")

START_TIMEOUT_S = 30.0  # loading an archive of 100k steps takes about a second
STOP_TIMEOUT_S = 30.0  # a recorder drains its queue and index before it exits

MARKER_HELP = (
    "agentvcr(archive=PATH, session=ID|[IDs], conversation=ID|[IDs], ignore=[JSONPTR...], "
    'on_miss="error"|"ignore", scope="function"|"session", fork_at=N): the archive the '
    "agentvcr fixture serves, which part of it, what a replay miss does to the test, and (in "
    "forward mode) the depth from which each conversation goes to the live agent"
)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("agentvcr", "agentvcr: recorded AI agents as test fixtures")
    group.addoption("--agentvcr-archive", metavar="PATH",
                    help="archive for tests whose agentvcr marker names none "
                         "(ini: agentvcr_archive)")
    group.addoption("--agentvcr-mode", choices=MODES,
                    help="replay (default): serve the archive; record: relay to the upstream "
                         "and record; forward: replay, and ask and record the upstream on a "
                         "miss (ini: agentvcr_mode)")
    group.addoption("--agentvcr-upstream", metavar="URL",
                    help="the live agent, for record and forward (ini: agentvcr_upstream)")
    group.addoption("--agentvcr-binary", metavar="PATH",
                    help="the agentvcr executable (env AGENTVCR, ini agentvcr_binary; "
                         "default: agentvcr on PATH)")
    parser.addini("agentvcr_archive", "archive for tests whose marker names none, "
                  "relative to the ini file")
    parser.addini("agentvcr_mode", "replay, record or forward (default replay)")
    parser.addini("agentvcr_upstream", "the live agent's base URL, for record and forward")
    parser.addini("agentvcr_binary", "the agentvcr executable")


@dataclass(frozen=True)
class Settings:
    """The run-wide choices, from the command line, the environment and the ini file."""

    mode: str
    upstream: Optional[str]
    binary: str
    archive: Optional[Path]

    @staticmethod
    def from_config(config: pytest.Config) -> "Settings":
        def pick(option: str, ini: str) -> Optional[str]:
            return config.getoption(option) or config.getini(ini) or None

        mode = pick("agentvcr_mode", "agentvcr_mode") or "replay"
        if mode not in MODES:
            raise pytest.UsageError(f"agentvcr: mode must be one of {', '.join(MODES)}, "
                                    f"got {mode!r}")
        upstream = pick("agentvcr_upstream", "agentvcr_upstream")
        if mode != "replay" and not upstream:
            raise pytest.UsageError(
                f"agentvcr: --agentvcr-mode {mode} asks a live agent, but none is given: "
                "pass --agentvcr-upstream URL or set agentvcr_upstream in the ini file")
        # A per-run choice (command line, then environment) beats the checked-in ini file:
        # CI points AGENTVCR at the binary it just built.
        binary = (config.getoption("agentvcr_binary") or os.environ.get("AGENTVCR")
                  or config.getini("agentvcr_binary") or "agentvcr")
        archive: Optional[Path] = None
        if config.getoption("agentvcr_archive"):
            archive = config.invocation_params.dir / config.getoption("agentvcr_archive")
        elif config.getini("agentvcr_archive"):
            base = config.inipath.parent if config.inipath else config.rootpath
            archive = base / config.getini("agentvcr_archive")
        return Settings(mode, upstream, binary, archive)


SETTINGS = pytest.StashKey[Settings]()


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", MARKER_HELP)
    config.stash[SETTINGS] = Settings.from_config(config)


@dataclass(frozen=True)
class Miss:
    """One input replay had no recorded answer for: a line of ``agentvcr replay --miss-log``."""

    route: str
    request_id: str
    position: int
    source_id: Optional[int]
    closest_step_id: Optional[int]
    differences: List[str]
    policy: str
    reason: str
    differences_truncated: bool = False
    input: Any = None  # the keyed input, when the agentvcr binary logs it
    raw: Dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @staticmethod
    def from_line(line: Dict[str, Any]) -> "Miss":
        return Miss(route=line.get("route", ""), request_id=line.get("request_id", ""),
                    position=line.get("position", 0), source_id=line.get("source_id"),
                    closest_step_id=line.get("closest_step_id"),
                    differences=list(line.get("differences", [])),
                    policy=line.get("policy", ""), reason=line.get("reason", ""),
                    differences_truncated=bool(line.get("differences_truncated")),
                    input=line.get("input"), raw=line)


@dataclass(frozen=True)
class Target:
    """What one agentvcr process serves; tests with equal targets may share a process."""

    mode: str
    archive: Path
    sessions: Tuple[int, ...]
    conversations: Tuple[int, ...]
    ignore: Tuple[str, ...]
    upstream: Optional[str]
    binary: str
    fork_at: Optional[int] = None

    def command(self, ready: Path, miss_log: Path, session_name: str) -> List[str]:
        listen = ["--listen", "127.0.0.1:0", "--ready-file", str(ready)]
        if self.mode == "record":
            return [self.binary, "record", "--upstream", str(self.upstream), "--db",
                    str(self.archive), "--session", session_name, *listen]
        command = [self.binary, "replay", "--db", str(self.archive), *listen,
                   "--miss-log", str(miss_log)]
        for session in self.sessions:
            command += ["--session", str(session)]
        for conversation in self.conversations:
            command += ["--conversation", str(conversation)]
        for pointer in self.ignore:
            command += ["--ignore", pointer]
        if self.mode == "forward":
            command += ["--on-miss", "forward", "--upstream", str(self.upstream)]
            if self.fork_at is not None:
                command += ["--fork-at", str(self.fork_at)]
        else:
            # A test run must not change the archive it replays (often a checked-in file);
            # the miss log is where the plugin reads misses from.
            command.append("--no-store-misses")
        return command


class AgentvcrProcess:
    """A running ``agentvcr`` process, started on port 0 and waited for through its ready file."""

    def __init__(self, target: Target, workdir: Path, session_name: str) -> None:
        self.target = target
        self.ready = workdir / "agentvcr.url"
        self.miss_log = workdir / "misses.jsonl"
        self.stderr_path = workdir / "agentvcr.stderr"
        self.miss_log.touch()
        command = target.command(self.ready, self.miss_log, session_name)
        with open(self.stderr_path, "wb") as stderr:
            try:
                self.popen = subprocess.Popen(command, stdin=subprocess.DEVNULL,
                                              stdout=subprocess.DEVNULL, stderr=stderr)
            except OSError as error:
                pytest.fail(f"agentvcr: cannot run {target.binary!r} ({error.strerror}); "
                            "set --agentvcr-binary, the AGENTVCR environment variable or "
                            "agentvcr_binary in the ini file", pytrace=False)
        self.url = self._wait_until_ready(command)

    def _wait_until_ready(self, command: Sequence[str]) -> str:
        deadline = time.monotonic() + START_TIMEOUT_S
        while not self.ready.exists():
            if self.popen.poll() is not None:
                self._fail_start(command, f"exited with status {self.popen.returncode}")
            if time.monotonic() > deadline:
                self.stop()
                self._fail_start(command, f"was not ready after {START_TIMEOUT_S:.0f} s")
            time.sleep(0.02)
        return self.ready.read_text().strip()

    def _fail_start(self, command: Sequence[str], what: str) -> None:
        stderr = self.stderr_path.read_text(errors="replace").strip() or "(nothing on stderr)"
        pytest.fail(f"agentvcr: `{' '.join(command)}` {what}:\n{stderr}", pytrace=False)

    def stop(self) -> None:
        """SIGINT lets replay print its counters and record drain; kill if that hangs."""
        if self.popen.poll() is not None:
            return
        self.popen.send_signal(signal.SIGINT)
        try:
            self.popen.wait(timeout=STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            self.popen.kill()
            self.popen.wait()

    def miss_log_size(self) -> int:
        return self.miss_log.stat().st_size

    def misses_from(self, offset: int) -> List[Miss]:
        """The misses logged after byte `offset`; replay flushes whole lines, one per miss."""
        with open(self.miss_log, "rb") as log:
            log.seek(offset)
            text = log.read().decode("utf-8", errors="replace")
        complete = text[: text.rfind("\n") + 1]
        return [Miss.from_line(json.loads(line)) for line in complete.splitlines() if line]


class Agent:
    """What the ``agentvcr`` fixture yields: where the agent is, and what it missed."""

    def __init__(self, process: AgentvcrProcess, on_miss: str, test_id: str) -> None:
        self._process = process
        self._start = process.miss_log_size()  # a shared process: only this test's misses
        self._reported = 0
        self.on_miss = on_miss
        self.scope = scope_name(test_id)

    @property
    def headers(self) -> Dict[str, str]:
        """Headers to send with every request: the test's scope. Replay gives the test cursors of
        its own, so that a test on a shared process sees the recording from its first answer, and
        serves it what was recorded in its scope first; record keeps the scope with what it
        records. Neither passes the header on to the agent."""
        return {"X-Agentvcr-Scope": self.scope}

    def end_scope(self) -> None:
        """Rewinds this test's scope on a replay process, which ends it and frees its place."""
        if self.mode == "record" or self._process.popen.poll() is not None:
            return
        rewind = urllib.request.Request(
            f"{self.url}/_agentvcr/replay/rewind?scope={self.scope}", data=b"", method="POST")
        with urllib.request.urlopen(rewind, timeout=STOP_TIMEOUT_S):
            pass

    @property
    def url(self) -> str:
        """Base URL of the agent to talk to, ``http://127.0.0.1:PORT``."""
        return self._process.url

    @property
    def archive(self) -> Path:
        return self._process.target.archive

    @property
    def mode(self) -> str:
        return self._process.target.mode

    @property
    def pid(self) -> int:
        return self._process.popen.pid

    @property
    def misses(self) -> List[Miss]:
        """Every miss of this test so far (forwarded ones too, with policy ``forward``)."""
        if self.mode == "record":
            return []
        return self._process.misses_from(self._start)

    def take_failing_misses(self) -> List[Miss]:
        """Misses not reported yet that should fail the test: forwarded ones were answered."""
        misses = self.misses
        new, self._reported = misses[self._reported:], len(misses)
        if self.on_miss == "ignore":
            return []
        return [miss for miss in new if miss.policy != "forward"]


AGENT = pytest.StashKey[Agent]()


def scope_name(test_id: str) -> str:
    """A replay scope for the test `test_id`: its name's readable tail and a digest of the whole
    id, within the 64 letters, digits and '-._~' a scope is named by."""
    digest = hashlib.sha256(test_id.encode()).hexdigest()[:12]
    tail = re.sub(r"[^A-Za-z0-9._~-]+", "-", test_id.rsplit("::", 1)[-1]).strip("-")
    return f"{tail[:48]}-{digest}" if tail else digest


def _ids(value: Union[None, int, Sequence[int]], name: str) -> Tuple[int, ...]:
    if value is None:
        return ()
    values = [value] if isinstance(value, int) else list(value)
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        pytest.fail(f"agentvcr marker: {name}= takes an id or a list of ids, got {value!r}",
                    pytrace=False)
    return tuple(values)


def _marker_options(item: pytest.Item) -> Dict[str, Any]:
    """The agentvcr markers' keywords, the closest marker winning (function over class
    over module), so a module can name the archive and a test add `ignore`."""
    options: Dict[str, Any] = {}
    for marker in item.iter_markers("agentvcr"):
        if marker.args:
            pytest.fail("agentvcr marker: use keywords, e.g. "
                        '@pytest.mark.agentvcr(archive="run.sqlite")', pytrace=False)
        for key, value in marker.kwargs.items():
            if key not in MARKER_KEYS:
                pytest.fail(f"agentvcr marker: unknown keyword {key!r} "
                            f"(known: {', '.join(MARKER_KEYS)})", pytrace=False)
            options.setdefault(key, value)
    return options


def _target(item: pytest.Item, settings: Settings, options: Dict[str, Any]) -> Target:
    if "archive" in options:  # relative to the test file, so a test and its archive move together
        archive = Path(item.path).parent / Path(os.fspath(options["archive"]))
    elif settings.archive is not None:
        archive = settings.archive
    else:
        pytest.fail("agentvcr: no archive: use @pytest.mark.agentvcr(archive=...), "
                    "--agentvcr-archive PATH or agentvcr_archive in the ini file",
                    pytrace=False)
    archive = archive.resolve()
    if settings.mode != "record" and not archive.exists():
        pytest.fail(f"agentvcr: archive {archive} does not exist; record it first "
                    "(--agentvcr-mode record --agentvcr-upstream URL)", pytrace=False)
    if settings.mode == "record":
        archive.parent.mkdir(parents=True, exist_ok=True)
    ignore = options.get("ignore") or ()
    if isinstance(ignore, str):
        ignore = (ignore,)
    fork_at = options.get("fork_at")
    if fork_at is not None:
        if isinstance(fork_at, bool) or not isinstance(fork_at, int) or fork_at < 0:
            pytest.fail(f"agentvcr marker: fork_at= takes a depth (an int >= 0), got {fork_at!r}",
                        pytrace=False)
        if settings.mode != "forward":
            pytest.fail(f"agentvcr marker: fork_at={fork_at} sends the steps from there on to "
                        "the live agent: run with --agentvcr-mode forward --agentvcr-upstream "
                        "URL", pytrace=False)
    binary = settings.binary
    if shutil.which(binary) is None:
        pytest.fail(f"agentvcr: binary {binary!r} not found or not executable; set "
                    "--agentvcr-binary, the AGENTVCR environment variable or "
                    "agentvcr_binary in the ini file", pytrace=False)
    return Target(mode=settings.mode, archive=archive,
                  sessions=_ids(options.get("session"), "session"),
                  conversations=_ids(options.get("conversation"), "conversation"),
                  ignore=tuple(ignore), upstream=settings.upstream, binary=binary,
                  fork_at=fork_at)


@pytest.fixture(scope="session")
def _agentvcr_shared(
        tmp_path_factory: pytest.TempPathFactory) -> Iterator[Dict[Target, AgentvcrProcess]]:
    """Processes of tests marked scope="session", one per target, stopped at the end."""
    processes: Dict[Target, AgentvcrProcess] = {}
    yield processes
    for process in processes.values():
        process.stop()


@pytest.fixture()
def agentvcr(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory,
             _agentvcr_shared: Dict[Target, AgentvcrProcess]) -> Iterator[Agent]:
    """An agentvcr process for this test (or shared by the session): see the README."""
    settings = request.config.stash[SETTINGS]
    options = _marker_options(request.node)
    on_miss = options.get("on_miss", "error")
    scope = options.get("scope", "function")
    if on_miss not in ON_MISS:
        pytest.fail(f"agentvcr marker: on_miss must be one of {ON_MISS}, got {on_miss!r}",
                    pytrace=False)
    if scope not in SCOPES:
        pytest.fail(f"agentvcr marker: scope must be one of {SCOPES}, got {scope!r}",
                    pytrace=False)
    target = _target(request.node, settings, options)
    if scope == "session":
        process = _agentvcr_shared.get(target)
        if process is None:
            process = AgentvcrProcess(target, tmp_path_factory.mktemp("agentvcr-session"),
                                      "pytest session")
            _agentvcr_shared[target] = process
        agent = Agent(process, on_miss, request.node.nodeid)
        request.node.stash[AGENT] = agent
        yield agent
        agent.end_scope()
        return
    process = AgentvcrProcess(target, tmp_path_factory.mktemp("agentvcr"), request.node.nodeid)
    try:
        agent = Agent(process, on_miss, request.node.nodeid)
        request.node.stash[AGENT] = agent
        yield agent
    finally:
        process.stop()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """Misses fail the test they happened in: after the call phase (and again after teardown,
    for misses of fixtures' teardowns). A test that failed anyway gets them as a section."""
    outcome = yield
    report: pytest.TestReport = outcome.get_result()
    agent = item.stash.get(AGENT, None)
    if agent is None or report.when == "setup":
        return
    misses = agent.take_failing_misses()
    if not misses:
        return
    text = describe_misses(misses, agent.archive)
    if report.passed:
        report.outcome = "failed"
        report.longrepr = text
    elif not report.skipped:
        report.sections.append(("agentvcr replay misses", text))


def describe_misses(misses: Sequence[Miss], archive: Path) -> str:
    """The near-miss report a test fails with, one paragraph per missed input."""
    count = f"{len(misses)} input" + ("s" if len(misses) != 1 else "")
    lines = [f"agentvcr replay had no recorded answer for {count} (archive {archive}):"]
    for number, miss in enumerate(misses, 1):
        input_id = "" if miss.source_id is None else f" (id {miss.source_id})"
        lines.append(f"  [{number}] route {miss.route}, request_id {miss.request_id!r}, "
                     f"input {miss.position}{input_id}")
        if miss.input is not None:
            lines.append(f"      live input: {_describe_input(miss.input)}")
        lines.append(f"      closest recorded: {_describe_step(archive, miss)}")
        more = ", ..." if miss.differences_truncated else ""
        lines.append(f"      differs at: {', '.join(miss.differences) or '(nothing keyed)'}{more}")
        lines.append(f"      {miss.reason}")
    lines.append('Ignore volatile parts with @pytest.mark.agentvcr(ignore=["/json/pointer"]), '
                 "record the new inputs with --agentvcr-mode forward, or accept misses with "
                 'on_miss="ignore".')
    return "\n".join(lines)


def _describe_input(keyed: Any) -> str:
    """The input that missed: its instruction first, then all of it as replay keyed it."""
    text = _shorten(json.dumps(keyed, sort_keys=True))
    instruction = keyed.get("instruction") if isinstance(keyed, dict) else None
    if not isinstance(instruction, dict):
        return text
    content = _shorten(json.dumps(instruction.get("content")))
    return f"instruction {instruction.get('type')}: {content}; keyed as {text}"


def _describe_step(archive: Path, miss: Miss) -> str:
    """The closest recorded step, with its instruction read from the archive (read-only)."""
    if miss.closest_step_id is None:
        return "none"
    text = f"step {miss.closest_step_id}"
    if miss.route != "responses":
        return text
    try:
        with closing(sqlite3.connect(f"{archive.as_uri()}?mode=ro", uri=True)) as db:
            row = db.execute("SELECT conversation_id, instruction_type, instruction_content "
                             "FROM steps WHERE id = ?", (miss.closest_step_id,)).fetchone()
    except sqlite3.Error:
        row = None  # another schema, or a file replay has since locked: the id is still useful
    if row is None:
        return text
    conversation, kind, content = row
    instruction = _shorten(json.dumps(content))
    return f"{text} (conversation {conversation}), instruction {kind}: {instruction}"


def _shorten(text: str, limit: int = 300) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."
