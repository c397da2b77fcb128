"""scripts/check-includes: each kind of layering violation is reported, and allowed includes are
not. The checker is loaded from its script and given file texts, so no tree is needed."""

import importlib.machinery
import importlib.util
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def load_checker():
    path = ROOT / "scripts" / "check-includes"
    loader = importlib.machinery.SourceFileLoader("check_includes", str(path))
    spec = importlib.util.spec_from_loader("check_includes", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


checker = load_checker()


@pytest.mark.parametrize("path, include, why", [
    ("protocol/src/x.cpp", '"agentvcr/store/recorder.hpp"', "protocol/ may not include store/"),
    ("store/src/x.cpp", '"agentvcr/proxy/server.hpp"', "store/ may not include proxy/"),
    ("proxy/src/x.cpp", '"agentvcr/replay/replayer.hpp"', "proxy/ may not include replay/"),
    ("otel/src/x.cpp", '"agentvcr/proxy/server.hpp"', "otel/ may not include proxy/"),
    ("fleet/src/x.cpp", '"agentvcr/cli/command.hpp"', "fleet/ may not include cli/"),
    ("viewer/models/x.cpp", '"agentvcr/services/replay_service.hpp"',
     "viewer/ may not include proxy/services/"),
    ("cli/record_command.cpp", "<boost/asio/io_context.hpp>", "belongs to"),
    ("otel/src/x.cpp", "<boost/beast/http.hpp>", "belongs to"),
    ("cli/x.cpp", '"agentvcr/proxy/connection.hpp"', "exposes Asio/Beast"),
    ("proxy/services/src/x.cpp", '"agentvcr/net/asio.hpp"', "exposes Asio/Beast"),
    ("store/src/x.cpp", "<QString>", "belongs to"),
    ("cli/x.cpp", "<libpq-fe.h>", "belongs to"),
    ("replay/src/x.cpp", "<SQLiteCpp/Database.h>", "belongs to"),
    ("store/src/x.cpp", '"upstream_pool.hpp"', "is not a header of store/"),
])
def test_a_violation_is_reported(path, include, why):
    problems = checker.check(path, f"#include {include}\n")
    assert len(problems) == 1 and why in problems[0], problems
    assert problems[0].startswith(path + ":1:")


@pytest.mark.parametrize("path, include", [
    ("store/src/x.cpp", '"agentvcr/protocol/json_text.hpp"'),
    ("cli/x.cpp", '"agentvcr/services/replay_service.hpp"'),
    ("viewer/models/x.cpp", '"agentvcr/fleet/pull.hpp"'),
    ("proxy/src/x.cpp", '"agentvcr/net/tls_client.hpp"'),
    ("cli/signals.cpp", "<boost/asio/signal_set.hpp>"),
    ("tests/unit/proxy/relay_test.cpp", '"agentvcr/proxy/connection.hpp"'),
    ("tests/integration/x.cpp", "<CLI/CLI.hpp>"),
    ("tests/unit/fleet/x.cpp", "<libpq-fe.h>"),
    ("bench/make_archive.cpp", '"agentvcr/store/recorder.hpp"'),
    ("proxy/src/relay.cpp", '"relay_core.hpp"'),
])
def test_an_allowed_include_passes(path, include):
    assert checker.check(path, f"#include {include}\n") == []


def test_the_tree_keeps_the_rule():
    assert checker.main() == 0
