#!/usr/bin/env python3
"""The caller of bench/full-history: drives MAGMA 2.0 episodes against an agent (or a proxy in
front of it) step by step, as BENCH does: GET /health and /v1/info first, then one
POST /v1/responses per step with one input (slot 0, one candidate, one episode at a time), the
memory of the chosen candidate sent back verbatim, and about 450 bytes of new environment
feedback per step after the first (a user instruction). Requests are formatted as BENCH's
`requests` sends them (`json.dumps` defaults: spaced, ASCII-escaped).

Everything is seeded, so two runs send and receive the same bytes. Every answer is checked as
BENCH checks it (status 200, candidate order, a completed candidate, a memory object); the
first failure stops the run with a message.

    python3 caller.py --url http://127.0.0.1:8080 --episodes 10 --steps 100 \\
        [--traffic FILE] [--seed 1]

Prints one JSON line: exchanges, steps, request and response body bytes. --traffic writes
every request and response body, in order, concatenated: the raw traffic to compress.
"""

import argparse
import http.client
import json
import random
import sys
import urllib.parse

TOOLS = [
    {"name": "cancel_current_action",
     "description": "Cancel the current action running on the targeted robot.", "arguments": {}},
    {"name": "press_button", "description": "Press a button.",
     "arguments": {"id": {"description": "Name of the button to press.", "type": "str"}}},
]


class Caller:
    def __init__(self, url, traffic):
        parts = urllib.parse.urlsplit(url)
        self.conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=360)
        self.traffic = traffic
        self.exchanges = 0
        self.request_bytes = 0
        self.response_bytes = 0

    def call(self, method, path, body=None):
        headers = {"Content-Type": "application/json"} if body is not None else {}
        self.conn.request(method, path, body=body, headers=headers)
        reply = self.conn.getresponse()
        data = reply.read()
        self.exchanges += 1
        self.request_bytes += len(body or b"")
        self.response_bytes += len(data)
        if self.traffic:
            self.traffic.write(body or b"")
            self.traffic.write(data)
        if reply.status != 200:
            sys.exit(f"caller: {method} {path} answered {reply.status}: {data[:300]!r}")
        try:
            return json.loads(data)
        except ValueError:
            sys.exit(f"caller: {method} {path} answered a body that is not JSON: {data[:300]!r}")


def feedback(rng, step, button, robot, joints):
    """The environment's report on the last call: about 450 bytes of JSON, most of it the
    same shape every step, with what changed (button, timing, joint angles) new."""
    for i in range(len(joints)):
        joints[i] = round(joints[i] + rng.uniform(-0.05, 0.05), 4)
    payload = {
        "infos": f"{robot}: press_button succeed with message: You have the {button} button "
                 f"pressed. The button light is now on and the panel registered the press.",
        "previous_tool_call": {robot: {"name": "press_button", "arguments": {"id": button}}},
        "robot_statuses": {robot: "FREE"},
        "execution": {"step": step, "duration_s": round(rng.uniform(0.8, 3.5), 3),
                      "joint_positions": list(joints),
                      "gripper": rng.choice(["open", "closed"])},
    }
    return json.dumps(payload)


def run_episode(caller, rng, steps, path):
    buttons = [f"sw{i}" for i in range(12)]
    task = rng.sample(buttons, 3)
    robot = "panda"
    joints = [round(rng.uniform(-2.0, 2.0), 4) for _ in range(7)]
    attributes = {"objects": buttons, "known_robots": [robot], "robot_statuses": {robot: "FREE"}}
    memory = {"history": []}
    instruction = {"type": "user", "content": f"Please press {task[0]}, {task[1]} and {task[2]}, "
                                              "then keep pressing the buttons I ask for."}
    for step in range(steps):
        request_id = "%032x" % rng.getrandbits(128)  # uuid4().hex's shape, seeded
        request = {"request_id": request_id, "inputs": [{
            "id": 0, "instruction": instruction, "tools": TOOLS, "attributes": attributes,
            "memory": memory, "num_outputs": 1, "extra_keys": {"inference_mode": True}}]}
        outputs = caller.call("POST", path, json.dumps(request, allow_nan=False).encode("utf-8"))
        if not isinstance(outputs, list) or len(outputs) != 1:
            sys.exit(f"caller: step {step}: expected one candidate, got {str(outputs)[:300]}")
        out = outputs[0]
        if (out.get("request_id"), out.get("source_id"), out.get("candidate_index")) \
                != (request_id, 0, 0):
            sys.exit(f"caller: step {step}: candidate out of order: {str(out)[:300]}")
        if out.get("status") != "completed" or not isinstance(out.get("memory"), dict):
            sys.exit(f"caller: step {step}: candidate not completed: {str(out)[:300]}")
        calls = (out.get("output") or {}).get("tool_calls") or []
        if not calls:
            sys.exit(f"caller: step {step}: the agent called no tool")
        memory = out["memory"]
        button = calls[0]["arguments"].get("id", "?")
        instruction = {"type": "env", "content": feedback(rng, step, button, robot, joints)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", required=True)
    parser.add_argument("--episodes", type=int, default=10)
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--traffic", help="write every body here, concatenated")
    args = parser.parse_args()
    if args.episodes < 1 or args.steps < 1:
        sys.exit("caller: --episodes and --steps must be at least 1")
    traffic = open(args.traffic, "wb") if args.traffic else None
    caller = Caller(args.url, traffic)
    if caller.call("GET", "/health") != {"status": "ready"}:
        sys.exit("caller: /health is not {\"status\": \"ready\"}")
    info = caller.call("GET", "/v1/info")
    if info.get("protocol_version") != "2.0" or not info.get("capabilities", {}).get("inference"):
        sys.exit(f"caller: /v1/info is not a MAGMA 2.0 inference agent: {info}")
    rng = random.Random(args.seed)
    for _ in range(args.episodes):
        run_episode(caller, rng, args.steps, "/v1/responses")
    if traffic:
        traffic.close()
    print(json.dumps({"exchanges": caller.exchanges, "steps": args.episodes * args.steps,
                      "request_bytes": caller.request_bytes,
                      "response_bytes": caller.response_bytes}))


if __name__ == "__main__":
    main()
