#!/usr/bin/env python3
"""Writes bench/run's workloads into OUTDIR (a run's temp dir), deterministically.

  make_workloads.py OUTDIR PORT

For each workload W in magma, small, close, grow, a2a: W.jsonl (the request bodies, one a line, the exact
wire bytes) and W.expected (line for line, the exact answer the upstream gives to it). Also
upstream.conf: the http-block body of the upstream nginx listening on 127.0.0.1:PORT. Prints
one line per workload: "W lines=N path=P request=MIN/AVG/MAX response=MIN/AVG/MAX" (bytes).

* magma: bench/request.json and bench/response.json as they are (one line).
* small: request.json under a request_id of its own, answered with bench/response-300.json
         (312 bytes) instead: the relay's and the recorder's fixed costs, bodies aside.
* close: magma's line, sent by wrk with `Connection: close` (bench/run sets BENCH_CLOSE): a
         connection per request, as BENCH's python-requests client without a session does.
* grow:  MAGMA POST /v1/responses continuing the episode of request.json (magma-protocol.md
         §13 full history): every line is the next step of the same conversation, its memory
         holding two more history entries (the previous instruction and the agent's turn) than
         the line before, its instruction the env feedback or the user's next task. Bodies grow
         from about 2.4 KB to just over 20 KB. Every line has its own request_id.
* a2a:   A2A JSON-RPC `message/send` POSTs to `/`, a few distinct user messages, each with
         its own JSON-RPC id and messageId; the answer is a completed Task with one artifact.

The upstream answers every MAGMA request with bench/response.json (small's with
bench/response-300.json, chosen by its Content-Length) and every A2A request with one fixed
Task, except that the answer echoes the request's own request_id (MAGMA) or
JSON-RPC id (A2A), as a real agent would: nginx cannot read a body it does not proxy, so it
picks the id with a `map` on the request's Content-Length, unique per line (checked here).
"""
import hashlib
import json
import os
import random
import sys

here = os.path.dirname(os.path.abspath(__file__))
GROW_MAX_BYTES = 20_000
ROBOT = "panda"


def compact(obj):
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def model_turn(say, press):
    action = {} if not press else {ROBOT: {"name": "press_button", "arguments": {"id": press}}}
    return json.dumps({"say": say, "action": action}, ensure_ascii=False)


def env_feedback(press, ok):
    call = {ROBOT: {"name": "press_button", "arguments": {"id": press}}}
    infos = (f"{ROBOT}: press_button succeed with message: You have the {press} button pressed."
             if ok else
             f"{ROBOT}: press_button failed with message: No objects corresponding to id = "
             f"{press}. You must pass the id of the object to take.")
    return json.dumps({"infos": infos, "previous_tool_call": call})


def grow_turns(rng, count):
    """(type, content, say, press) turns after request.json's step (which presses sw3)."""
    turns = [("env", env_feedback("sw3", True), "Done, sw3 is pressed.", "")]
    buttons = [f"sw{i}" for i in range(10)]
    while len(turns) < count:
        task = rng.sample(buttons, rng.randint(2, 4))
        names = ", ".join(task[:-1]) + " and " + task[-1]
        kind, content = "user", f"Please press {names}"
        for press in task:
            if rng.random() < 0.15:  # a wrong button first, then the retry after the feedback
                wrong = f"sw1{rng.randint(0, 9)}"
                turns.append((kind, content, "", wrong))
                kind, content = "env", env_feedback(wrong, False)
            turns.append((kind, content, "", press))
            kind, content = "env", env_feedback(press, True)
        turns.append((kind, content, f"Done, {names} are pressed.", ""))
    return turns


def make_grow(request_text):
    base = json.loads(request_text)
    first = base["inputs"][0]
    history = list(first["memory"]["history"])
    # request.json's own step (env feedback for sw12, the agent presses sw3) goes into memory.
    history += [{"author": "SYSTEM", "content": first["instruction"]["content"]},
                {"author": "MODEL", "content": model_turn("", "sw3")}]
    rng = random.Random(1)
    lines = []
    for n, (kind, content, say, press) in enumerate(grow_turns(rng, 200)):
        request = json.loads(request_text)
        request["request_id"] = hashlib.md5(f"agentvcr-bench-grow-{n}".encode()).hexdigest()
        request["inputs"][0]["instruction"] = {"type": kind, "content": content}
        request["inputs"][0]["memory"]["history"] = list(history)
        text = json.dumps(request, allow_nan=False)
        if len(text.encode()) > GROW_MAX_BYTES and lines:
            lines.append((request["request_id"], text))
            break
        lines.append((request["request_id"], text))
        history += [{"author": "SYSTEM" if kind == "env" else "USER", "content": content},
                    {"author": "MODEL", "content": model_turn(say, press)}]
    return lines


A2A_TEXTS = [
    "Please press sw3",
    "Press sw1, then sw4, and tell me when both are done.",
    "Which buttons can the panda robot reach from its rest position?",
    "Cancel whatever the robot is doing right now.",
    "Press sw7 twice, waiting for the first press to finish before the second one.",
    "Summarise what the robot did in the last task, in one short sentence, in English.",
    "Press every button from sw0 to sw9 in ascending order and report any button that fails "
    "to press, with the message the robot returned for it.",
    "Is the robot free? If it is, press sw2; otherwise wait until it is free and then press "
    "sw2, and confirm in one sentence.",
]

A2A_ANSWER = {
    "jsonrpc": "2.0", "id": 1,
    "result": {
        "kind": "task",
        "id": "9b2c6a1e-4f3d-4e8a-9c71-2d5e0f6a8b13",
        "contextId": "c0ffee00-1a2b-4c3d-8e9f-0a1b2c3d4e5f",
        "status": {"state": "completed", "timestamp": "2025-06-01T12:00:00.000000+00:00"},
        "artifacts": [{"artifactId": "a1", "name": "answer", "parts": [
            {"kind": "text", "text": "Done: the panda robot pressed sw3. The button reported "
                                     "success and the robot is back in its rest position."}]}],
    },
}
ID_MARK = "9999999999"  # stands for the echoed id in the answer template


def make_a2a():
    lines = []
    for n, text in enumerate(A2A_TEXTS, 1):
        message_id = hashlib.md5(f"agentvcr-bench-a2a-{n}".encode()).hexdigest()
        body = {"jsonrpc": "2.0", "id": n, "method": "message/send", "params": {"message": {
            "kind": "message", "role": "user", "parts": [{"kind": "text", "text": text}],
            "messageId": f"{message_id[:8]}-{message_id[8:12]}-{message_id[12:16]}-"
                         f"{message_id[16:20]}-{message_id[20:]}"}}}
        lines.append((str(n), compact(body)))
    return lines


def nginx_text(template, mark=None, variable=None):
    """A single-quoted nginx string of template, with mark (if given) replaced by ${variable}:
    backslashes doubled; ' and $ cannot be in the template."""
    if "'" in template or "$" in template:
        sys.exit("an answer holds a single quote or a dollar sign: not usable in nginx return")
    text = template.replace("\\", "\\\\")
    if mark is not None:
        text = text.replace(mark, "${" + variable + "}")
    if len(text) > 4000:
        sys.exit("an answer over 4000 bytes does not fit in one nginx config token")
    return text


def length_map(name, default, lines):
    seen = {}
    for value, text in lines:
        length = len(text.encode())
        if seen.get(length, value) != value:
            sys.exit(f"{name}: two bodies of {length} bytes answer differently")
        seen[length] = value
    rows = "".join(f"    {length} {value};\n" for length, value in sorted(seen.items()))
    return f"  map $content_length ${name} {{\n    default {default};\n{rows}  }}\n"


def main(outdir, port):
    request_text = open(os.path.join(here, "request.json"), encoding="utf-8").read()
    response_text = open(os.path.join(here, "response.json"), encoding="utf-8").read()
    small_text = open(os.path.join(here, "response-300.json"), encoding="utf-8").read()
    fixed_rid = json.loads(request_text)["request_id"]
    assert response_text.count(fixed_rid) == 1 and small_text.count(fixed_rid) == 1
    small_rid = "small-" + fixed_rid
    small_request = request_text.replace(fixed_rid, small_rid)

    magma = [(fixed_rid, request_text)]
    grow = make_grow(request_text)
    a2a = make_a2a()
    a2a_template = compact(A2A_ANSWER).replace('"id":1,', f'"id":{ID_MARK},', 1)
    assert a2a_template.count(ID_MARK) == 1

    workloads = {
        "magma": ("/v1/responses", magma, lambda rid: response_text.replace(fixed_rid, rid)),
        "small": ("/v1/responses", [(small_rid, small_request)],
                  lambda rid: small_text.replace(fixed_rid, rid)),
        "close": ("/v1/responses", magma, lambda rid: response_text.replace(fixed_rid, rid)),
        "grow": ("/v1/responses", grow, lambda rid: response_text.replace(fixed_rid, rid)),
        "a2a": ("/", a2a, lambda n: a2a_template.replace(ID_MARK, n)),
    }
    for name, (path, lines, answer) in workloads.items():
        bodies = [text.encode() for _, text in lines]
        answers = [answer(value).encode() for value, _ in lines]
        with open(os.path.join(outdir, name + ".jsonl"), "wb") as f:
            f.write(b"".join(b + b"\n" for b in bodies))
        with open(os.path.join(outdir, name + ".expected"), "wb") as f:
            f.write(b"".join(a + b"\n" for a in answers))

        def span(sizes):
            return f"{min(sizes)}/{sum(sizes) // len(sizes)}/{max(sizes)}"
        print(f"{name} lines={len(lines)} path={path} "
              f"request={span([len(b) for b in bodies])} "
              f"response={span([len(a) for a in answers])}")

    small_length = len(small_request.encode())
    if any(len(text.encode()) == small_length for _, text in magma + grow):
        sys.exit("small's request has the length of another workload's")
    conf = (length_map("bench_magma_rid", fixed_rid, magma + grow)
            + length_map("bench_a2a_id", "1", a2a)
            + f"  map $content_length $bench_small {{\n    default 0;\n    {small_length} 1;\n  }}\n"
            + f"""  server {{
    listen 127.0.0.1:{port} backlog=4096;
    default_type application/json;
    location = / {{
      return 200 '{nginx_text(a2a_template, ID_MARK, "bench_a2a_id")}';
    }}
    location / {{
      if ($bench_small) {{
        return 200 '{nginx_text(small_text.replace(fixed_rid, small_rid))}';
      }}
      return 200 '{nginx_text(response_text, fixed_rid, "bench_magma_rid")}';
    }}
  }}""")
    with open(os.path.join(outdir, "upstream.conf"), "w", encoding="utf-8") as f:
        f.write(conf)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
