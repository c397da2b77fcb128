"""pytest-agentvcr end to end: inner pytest runs (pytester) against real agentvcr processes."""

import json
import os
import pathlib
import re
import shutil
import socket
import sqlite3
import subprocess

import pytest

AGENTVCR = os.environ.get("AGENTVCR", "agentvcr")
PYTHON_DIR = pathlib.Path(__file__).resolve().parents[3] / "python"


def copy(archive, to):
    to.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(archive, to)
    return to


def pid_is_gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def port_is_closed(url: str) -> bool:
    host, port = re.match(r"http://([^:]+):(\d+)", url).groups()
    with socket.socket() as probe:
        return probe.connect_ex((host, int(port))) != 0


# --- replay ---------------------------------------------------------------------------------

def test_replay_serves_the_recorded_answers(inner, demo_archive):
    result = inner(f'''
def test_recorded(agentvcr):
    assert agentvcr.mode == "replay"
    assert str(agentvcr.archive) == {str(demo_archive)!r}
    answer = ask(agentvcr.url, REQUESTS["recorded"])
    assert [c["output"] for c in answer] == [c["output"] for c in REQUESTS["recorded_candidates"]]
    assert answer[0]["request_id"] == "pytest-recorded"
    assert agentvcr.misses == []
''', f"--agentvcr-archive={demo_archive}")
    result.assert_outcomes(passed=1)


def test_a_miss_fails_the_test_with_the_near_miss_text(inner, demo_archive):
    result = inner('''
def test_asks_something_new(agentvcr):
    answer = ask(agentvcr.url, REQUESTS["new"])
    assert answer[0]["error"]["code"] == "replay_miss"   # the test itself would pass
''', f"--agentvcr-archive={demo_archive}")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines([
        "*agentvcr replay had no recorded answer for 1 input (archive *demo.sqlite):",
        "*[[]1] route responses, request_id 'pytest-new', input 0 (id 7)",
        '*live input: instruction user: "Please press sw4"; keyed as {*',
        '*closest recorded: step 1 (conversation 1), instruction user: "Please press sw1"',
        "*differs at: /instruction/content",
        "*agentvcr replay: no recorded answer for this input*",
    ])


def test_each_test_on_a_shared_process_has_a_replay_scope_of_its_own(inner, demo_archive):
    result = inner('''
def status(url):
    with urllib.request.urlopen(url + "/_agentvcr/replay", timeout=30) as response:
        return json.load(response)

def ask_scoped(agent, body):
    request = urllib.request.Request(agent.url + "/v1/responses", json.dumps(body).encode(),
                                     {"Content-Type": "application/json", **agent.headers})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.load(response)

SCOPES = []

@pytest.mark.agentvcr(scope="session")
def test_first(agentvcr):
    SCOPES.append(agentvcr.scope)
    assert agentvcr.headers == {"X-Agentvcr-Scope": agentvcr.scope}
    assert ask_scoped(agentvcr, REQUESTS["recorded"])[0]["request_id"] == "pytest-recorded"
    assert status(agentvcr.url)["scopes"] == [agentvcr.scope]

@pytest.mark.agentvcr(scope="session")
def test_second(agentvcr):
    assert agentvcr.scope not in SCOPES
    assert status(agentvcr.url)["scopes"] == [], "the first test's scope ended with it"
    ask_scoped(agentvcr, REQUESTS["recorded"])
    assert agentvcr.misses == []
''', f"--agentvcr-archive={demo_archive}")
    result.assert_outcomes(passed=2)


def test_on_miss_ignore_exposes_the_misses_without_failing(inner, demo_archive):
    result = inner('''
@pytest.mark.agentvcr(on_miss="ignore")
def test_asks_something_new(agentvcr):
    assert agentvcr.misses == []
    ask(agentvcr.url, REQUESTS["new"])
    [miss] = agentvcr.misses
    assert (miss.route, miss.request_id, miss.source_id) == ("responses", "pytest-new", 7)
    assert miss.differences == ["/instruction/content"]
    assert miss.closest_step_id == 1 and miss.policy == "error"
''', f"--agentvcr-archive={demo_archive}")
    result.assert_outcomes(passed=1)


def test_replay_leaves_the_archive_untouched(inner, demo_archive, tmp_path):
    archive = copy(demo_archive, tmp_path / "demo.sqlite")

    def rows():  # through SQLite, so that what sits in the WAL counts too
        with sqlite3.connect(archive) as db:
            return [db.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
                    for table in ("sessions", "exchanges", "replay_misses")]

    before = rows()
    result = inner('''
def test_asks_something_new(agentvcr):
    ask(agentvcr.url, REQUESTS["new"])
''', f"--agentvcr-archive={archive}")
    result.assert_outcomes(failed=1)
    assert rows() == before


def test_the_process_is_stopped_after_a_failing_test(inner, demo_archive, pytester):
    result = inner('''
def test_fails(agentvcr):
    (pathlib.Path(__file__).parent / "seen.json").write_text(
        json.dumps({"pid": agentvcr.pid, "url": agentvcr.url}))
    ask(agentvcr.url, REQUESTS["new"])
    assert False, "the test's own failure"
''', f"--agentvcr-archive={demo_archive}")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*the test's own failure*",
                                 "*agentvcr replay misses*",
                                 "*differs at: /instruction/content"])
    seen = json.loads((pytester.path / "seen.json").read_text())
    assert pid_is_gone(seen["pid"])
    assert port_is_closed(seen["url"])


def test_function_scope_starts_a_process_per_test(inner, demo_archive, pytester):
    result = inner('''
@pytest.mark.parametrize("n", [1, 2])
def test_pid(agentvcr, n):
    (pathlib.Path(__file__).parent / f"pid{n}").write_text(str(agentvcr.pid))
''', f"--agentvcr-archive={demo_archive}")
    result.assert_outcomes(passed=2)
    pids = [int((pytester.path / f"pid{n}").read_text()) for n in (1, 2)]
    assert pids[0] != pids[1] and all(pid_is_gone(pid) for pid in pids)


def test_session_scope_shares_one_process_and_blames_each_miss_on_its_test(
        inner, demo_archive, pytester):
    result = inner('''
pytestmark = pytest.mark.agentvcr(scope="session")

def test_misses(agentvcr):
    (pathlib.Path(__file__).parent / "pid1").write_text(str(agentvcr.pid))
    ask(agentvcr.url, REQUESTS["new"])

def test_hits(agentvcr):
    (pathlib.Path(__file__).parent / "pid2").write_text(str(agentvcr.pid))
    ask(agentvcr.url, REQUESTS["recorded"])
    assert agentvcr.misses == []
''', f"--agentvcr-archive={demo_archive}")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*FAILED test_inner.py::test_misses*"])
    pids = {int((pytester.path / f"pid{n}").read_text()) for n in (1, 2)}
    assert len(pids) == 1 and pid_is_gone(pids.pop())


# --- choosing the archive -------------------------------------------------------------------

def test_the_marker_chooses_the_archive_relative_to_the_test_file(
        inner, demo_archive, new_archive, pytester):
    copy(new_archive, pytester.path / "archives" / "new.sqlite")
    result = inner('''
@pytest.mark.agentvcr(archive="archives/new.sqlite")
def test_marked(agentvcr):
    assert agentvcr.archive == pathlib.Path(__file__).parent / "archives" / "new.sqlite"
    ask(agentvcr.url, REQUESTS["new"])      # recorded there: a hit

def test_unmarked(agentvcr):
    ask(agentvcr.url, REQUESTS["new"])      # the command line's demo archive: a miss
''', f"--agentvcr-archive={demo_archive}")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*FAILED test_inner.py::test_unmarked*"])


def test_the_marker_selects_sessions_conversations_and_ignored_paths(
        inner, demo_archive, new_archive, tmp_path):
    both = tmp_path / "both.sqlite"
    subprocess.run([AGENTVCR, "merge", str(both), str(demo_archive), str(new_archive)],
                   check=True, capture_output=True)
    with sqlite3.connect(both) as db:
        def where(instruction):
            [row] = db.execute("SELECT session_id, conversation_id FROM steps "
                               "WHERE instruction_content = ?", (instruction,)).fetchall()
            return row
        new_session, new_conversation = where("Please press sw4")
        _, recorded_conversation = where("Please press sw1")
    result = inner(f'''
def served(agentvcr):
    """Which of the two requests the agent has an answer for."""
    hits = []
    for name in ("recorded", "new"):
        before = len(agentvcr.misses)
        ask(agentvcr.url, REQUESTS[name])
        if len(agentvcr.misses) == before:
            hits.append(name)
    return hits

@pytest.mark.agentvcr(on_miss="ignore")
def test_all(agentvcr):
    assert served(agentvcr) == ["recorded", "new"]

@pytest.mark.agentvcr(session={new_session}, on_miss="ignore")
def test_session(agentvcr):
    assert served(agentvcr) == ["new"]

@pytest.mark.agentvcr(conversation=[{recorded_conversation}], on_miss="ignore")
def test_conversation(agentvcr):
    assert served(agentvcr) == ["recorded"]

@pytest.mark.agentvcr(session=[{new_session}], conversation={new_conversation}, on_miss="ignore")
def test_session_and_conversation(agentvcr):
    assert served(agentvcr) == ["new"]

@pytest.mark.agentvcr(archive={str(demo_archive)!r}, ignore=["/instruction/content"])
def test_ignore(agentvcr):
    assert served(agentvcr) == ["recorded", "new"]
''', f"--agentvcr-archive={both}")
    result.assert_outcomes(passed=5)


def test_ini_options_choose_archive_mode_upstream_and_binary(
        inner, demo_archive, live_agent, pytester, monkeypatch):
    archive = copy(demo_archive, pytester.path / "archives" / "demo.sqlite")
    monkeypatch.delenv("AGENTVCR", raising=False)   # the environment would beat the ini file
    pytester.makeini(f"""
[pytest]
agentvcr_archive = archives/demo.sqlite
agentvcr_mode = forward
agentvcr_upstream = {live_agent}
agentvcr_binary = {shutil.which(AGENTVCR)}
""")
    result = inner(f'''
def test_from_ini(agentvcr):
    assert agentvcr.archive == pathlib.Path({str(archive)!r})
    assert agentvcr.mode == "forward"
    assert ask(agentvcr.url, REQUESTS["new"])[0]["status"] == "completed"
    assert [m.policy for m in agentvcr.misses] == ["forward"]
''')
    result.assert_outcomes(passed=1)


def test_no_archive_anywhere_is_a_clear_error(inner):
    result = inner('''
def test_needs_an_archive(agentvcr):
    pass
''')
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*agentvcr: no archive: use @pytest.mark.agentvcr(archive=...)*"])


# --- record and forward ---------------------------------------------------------------------

def test_record_mode_records_through_the_proxy(inner, live_agent, tmp_path):
    archive = tmp_path / "recorded" / "run.sqlite"
    result = inner('''
def test_records(agentvcr):
    assert agentvcr.mode == "record"
    answer = ask(agentvcr.url, REQUESTS["new"], agentvcr.headers)
    assert answer[0]["status"] == "completed"
    assert agentvcr.misses == []
''', "--agentvcr-mode=record", f"--agentvcr-upstream={live_agent}",
        f"--agentvcr-archive={archive}")
    result.assert_outcomes(passed=1)
    with sqlite3.connect(archive) as db:
        sessions = db.execute("SELECT mode, name FROM sessions").fetchall()
    assert sessions == [("record", "test_inner.py::test_records")]
    with sqlite3.connect(archive) as db:
        [(headers,)] = db.execute("SELECT request_headers FROM exchanges WHERE route = 'responses'")
    assert any(name == "X-Agentvcr-Scope" and value.startswith("test_records-")
               for name, value in json.loads(headers)), "the scope is kept for replay"
    result = inner('''
def test_replays_what_was_recorded(agentvcr):
    assert ask(agentvcr.url, REQUESTS["new"])[0]["status"] == "completed"
''', f"--agentvcr-archive={archive}")
    result.assert_outcomes(passed=1)


def test_forward_mode_asks_the_live_agent_on_a_miss_and_records_it(
        inner, demo_archive, live_agent, tmp_path):
    archive = copy(demo_archive, tmp_path / "forward.sqlite")
    result = inner('''
def test_forwards(agentvcr):
    assert agentvcr.mode == "forward"
    ask(agentvcr.url, REQUESTS["recorded"])
    assert ask(agentvcr.url, REQUESTS["new"])[0]["status"] == "completed"
    [miss] = agentvcr.misses
    assert miss.policy == "forward" and miss.differences == ["/instruction/content"]
''', "--agentvcr-mode=forward", f"--agentvcr-upstream={live_agent}",
        f"--agentvcr-archive={archive}")
    result.assert_outcomes(passed=1)
    result = inner('''
def test_replays_what_was_forwarded(agentvcr):
    assert ask(agentvcr.url, REQUESTS["new"])[0]["status"] == "completed"
    assert agentvcr.misses == []
''', f"--agentvcr-archive={archive}")
    result.assert_outcomes(passed=1)


@pytest.mark.parametrize("fork_at, forked_exchanges", [(0, 1), (1, 0)])
def test_fork_at_sends_the_steps_from_that_depth_to_the_live_agent_as_a_fork(
        inner, demo_archive, live_agent, tmp_path, fork_at, forked_exchanges):
    archive = copy(demo_archive, tmp_path / "fork.sqlite")
    result = inner(f'''
@pytest.mark.agentvcr(fork_at={fork_at})
def test_forks(agentvcr):
    assert ask(agentvcr.url, REQUESTS["recorded"])[0]["status"] == "completed"
    assert agentvcr.misses == []
''', "--agentvcr-mode=forward", f"--agentvcr-upstream={live_agent}",
        f"--agentvcr-archive={archive}")
    result.assert_outcomes(passed=1)
    # The recorded first step is depth 0: a fork at 0 asks it live, a fork at 1 replays it.
    db = sqlite3.connect(archive)
    forks = db.execute("SELECT s.name, count(e.id) FROM sessions s LEFT JOIN exchanges e "
                       "ON e.session_id = s.id WHERE s.mode = 'fork' GROUP BY s.id").fetchall()
    db.close()
    assert forks == ([(f"fork of 1 at {fork_at}", forked_exchanges)] if forked_exchanges else [])


def test_fork_at_outside_forward_mode_is_a_clear_error(inner, demo_archive):
    result = inner('''
@pytest.mark.agentvcr(fork_at=2)
def test_never_runs(agentvcr):
    pass
''', f"--agentvcr-archive={demo_archive}")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*agentvcr marker: fork_at=2 sends the steps from there on to "
                                 "the live agent: run with --agentvcr-mode forward*"])


@pytest.mark.parametrize("mode", ["record", "forward"])
def test_a_mode_without_upstream_is_a_usage_error(inner, demo_archive, mode):
    result = inner('''
def test_never_runs(agentvcr):
    pass
''', f"--agentvcr-mode={mode}", f"--agentvcr-archive={demo_archive}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*agentvcr: --agentvcr-mode {mode} asks a live agent, "
                                 "but none is given: pass --agentvcr-upstream URL*"])


# --- errors and registration ----------------------------------------------------------------

def test_a_missing_binary_is_a_clear_error(inner, demo_archive):
    result = inner('''
def test_needs_the_binary(agentvcr):
    pass
''', "--agentvcr-binary=/nonexistent/agentvcr", f"--agentvcr-archive={demo_archive}")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*agentvcr: binary '/nonexistent/agentvcr' not found*"])


def test_a_process_that_dies_at_start_shows_its_stderr(inner, demo_archive):
    result = inner('''
@pytest.mark.agentvcr(ignore=["not-a-pointer"])
def test_bad_pointer(agentvcr):
    pass
''', f"--agentvcr-archive={demo_archive}")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*agentvcr replay --db * exited with status 2:",
                                 "*--ignore 'not-a-pointer' is not a JSON pointer*"])


def test_the_marker_is_registered_for_strict_markers(inner, demo_archive, pytester):
    result = inner('''
@pytest.mark.agentvcr(archive="nowhere.sqlite")
def test_marked():
    pass
''', "--strict-markers")
    result.assert_outcomes(passed=1)
    result = pytester.runpytest("-p", "pytest_agentvcr.plugin", "--markers")
    result.stdout.fnmatch_lines(["@pytest.mark.agentvcr(archive=PATH, *"])


def test_an_unknown_marker_keyword_is_refused(inner, demo_archive):
    result = inner('''
@pytest.mark.agentvcr(archiv="typo.sqlite")
def test_typo(agentvcr):
    pass
''', f"--agentvcr-archive={demo_archive}")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*agentvcr marker: unknown keyword 'archiv'*"])


# --- the README example ---------------------------------------------------------------------

def test_the_readme_example_records_then_replays(pytester, live_agent):
    readme = (PYTHON_DIR / "README.md").read_text()
    example = re.search(r"```python\n(.*?)```", readme, re.S).group(1)
    pytester.makepyfile(test_example=example)
    base = ["-p", "pytest_agentvcr.plugin", "-p", "no:cacheprovider"]
    recording = pytester.runpytest(*base, "--agentvcr-mode=record",
                                   f"--agentvcr-upstream={live_agent}")
    recording.assert_outcomes(passed=1)
    assert (pytester.path / "recordings" / "press.sqlite").exists()
    replaying = pytester.runpytest(*base)
    replaying.assert_outcomes(passed=1)
