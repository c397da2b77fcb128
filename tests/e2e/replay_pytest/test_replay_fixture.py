"""Replay as a test fixture, end to end: a real `agentvcr replay` process, asked over HTTP
the way BENCH asks an agent."""

import json
import os
import subprocess
import urllib.error
import urllib.request

AGENTVCR = os.environ.get("AGENTVCR", "agentvcr")


def call(url, path, body=None):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url + path, data=data,
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def recorded_calls(archive):
    """(request, response) bodies of the recorded /v1/responses calls, as bytes.

    Read through `agentvcr export`: the archive keeps large bodies zstd-compressed."""
    out = subprocess.run([AGENTVCR, "export", "--db", str(archive), "--format", "jsonl"],
                         check=True, capture_output=True).stdout
    lines = [json.loads(line) for line in out.splitlines() if line]  # session lines too
    return [(line["request_body"].encode(), line["response_body"].encode())
            for line in lines if line.get("route") == "responses"]


def test_the_agent_is_ready(replay_agent):
    assert call(replay_agent, "/health") == (200, b'{"status":"ready"}')
    status, info = call(replay_agent, "/v1/info")
    assert status == 200 and json.loads(info)["capabilities"]["inference"] is True


def test_recorded_requests_get_the_recorded_bytes(replay_agent, archive):
    for request, response in recorded_calls(archive):
        assert call(replay_agent, "/v1/responses", json.loads(request)) == (200, response)


def test_a_new_request_id_is_stamped_on_the_recorded_answer(replay_agent, archive):
    request, response = recorded_calls(archive)[0]
    request = json.loads(request)
    request["request_id"] = "pytest-1"
    for position, item in enumerate(request["inputs"]):
        item["id"] = 1000 + position
    status, body = call(replay_agent, "/v1/responses", request)
    assert status == 200
    recorded = json.loads(response)
    for output, expected in zip(json.loads(body), recorded):
        assert output["request_id"] == "pytest-1"
        assert output["source_id"] >= 1000
        for field in ("candidate_index", "status", "memory", "internal_steps", "output", "error"):
            assert output[field] == expected[field]


def test_a_miss_is_an_error_candidate_and_is_stored(replay_agent, archive):
    request = json.loads(recorded_calls(archive)[0][0])
    request["inputs"] = request["inputs"][:1]
    request["inputs"][0]["instruction"]["content"] = "Something never recorded"
    status, body = call(replay_agent, "/v1/responses", request)
    assert status == 200
    error = json.loads(body)[0]["error"]
    assert error["code"] == "replay_miss"
    assert "/instruction/content" in error["message"]
    status, counters = call(replay_agent, "/_agentvcr/replay")
    assert json.loads(counters)["misses"] == 1


def test_invalid_requests_get_a_422(replay_agent):
    status, body = call(replay_agent, "/v1/responses", {"request_id": "x"})
    assert status == 422
    assert json.loads(body)["detail"][0]["loc"] == ["body", "inputs"]
