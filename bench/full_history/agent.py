#!/usr/bin/env python3
"""A MAGMA 2.0 agent in the manner of the contract's full-history reference agent, for
bench/full-history: its memory keeps every turn, and each candidate reports one internal
step whose prompt is a fixed system text (about 700 bytes) followed by the whole history
rendered as chat turns. No model runs: the decision is a function of the request, so the
same caller traffic always gets the same answers, byte for byte.

It answers as FastAPI does (compact JSON, raw UTF-8, model field order, nulls emitted) and
checks the request as strictly as the reference agent does on what it reads (422 with a
`detail` string otherwise).

    python3 agent.py --port 8000 [--ready-file F]
"""

import argparse
import json
import os
import re
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

INFO = {
    "protocol_version": "2.0",
    "agent_id": "full-history-bench-agent",
    "agent_version": "1.0.0",
    "specialized_coaching": [],
    "coaching_resume": False,
    "coaching_session_version": None,
    "coaching_unavailable_reason": None,
    "capabilities": {"inference": True},
}

# The commander's system text: what a full-history agent tells its model before the turns.
SYSTEM_TEXT = (
    "You are the commander of a team of robots working in a shared workspace. You receive "
    "instructions from a user and feedback from the environment after every action. Answer "
    "with exactly one JSON object inside <tool_call></tool_call> tags when you act, naming "
    "for each robot the tool to call and its arguments, or with a short sentence for the "
    "user when the task is done or when you need a clarification. Never invent a tool or an "
    "object: use only the tools listed below and the objects the environment reports. When "
    "a tool fails, read the environment's message, correct the call and try again. Keep "
    "every permanent rule the user stated earlier in the conversation. Tools: "
    "cancel_current_action(): cancel the current action running on the targeted robot; "
    "press_button(id): press the button whose name is id. Robots: panda."
)

BUTTON = re.compile(r"\bsw(\d+)\b")


def compact(value):
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def render_prompt(history, instruction):
    """The commander's prompt: system text, every turn so far, the new turn, open answer."""
    role = {"USER": "user", "SYSTEM": "user", "MODEL": "assistant"}
    parts = [f"<|im_start|>system\n{SYSTEM_TEXT}<|im_end|>\n"]
    for entry in history:
        parts.append(f"<|im_start|>{role[entry['author']]}\n{entry['content']}<|im_end|>\n")
    parts.append(f"<|im_start|>user\n{instruction['content']}<|im_end|>\n<|im_start|>assistant\n")
    return "".join(parts)


def decide(history, instruction, attributes):
    """The next button to press: a deterministic walk over the scene's buttons, so that every
    step calls a tool and the environment always has something new to report."""
    objects = attributes.get("objects") or ["sw0"]
    pressed = sum(1 for entry in history if entry["author"] == "MODEL")
    seen = BUTTON.findall(instruction["content"])
    offset = int(seen[-1]) if seen else 0
    return objects[(pressed * 7 + offset) % len(objects)]


def candidate(request_id, inp, index):
    memory = inp.get("memory", {})
    history = memory.get("history", [])
    instruction = inp["instruction"]
    robot = (inp.get("attributes", {}).get("known_robots") or ["panda"])[0]
    button = decide(history, instruction, inp.get("attributes", {}))
    action = {robot: {"name": "press_button", "arguments": {"id": button}}}
    author = "USER" if instruction["type"] == "user" else "SYSTEM"
    new_memory = dict(memory)
    new_memory["history"] = history + [
        {"author": author, "content": instruction["content"]},
        {"author": "MODEL", "content": json.dumps({"say": "", "action": action}, ensure_ascii=False)},
    ]
    step = {
        "id": "step-0",
        "component": "commander",
        "origin": "model",
        "full_prompt": render_prompt(history, instruction),
        "input_elements": {"enable_thinking": False},
        "output_raw": "<tool_call>" + compact(action) + "</tool_call>",
    }
    return {
        "request_id": request_id,
        "source_id": inp["id"],
        "candidate_index": index,
        "status": "completed",
        "memory": new_memory,
        "internal_steps": [step],
        "output": {"say": "", "tool_calls": [
            {"name": "press_button", "arguments": {"id": button}, "target_robot_name": robot}]},
        "error": None,
    }


def check_request(body):
    """The reference agent's own checks on what it reads; a message for 422, or None."""
    if not isinstance(body, dict) or not isinstance(body.get("request_id"), str) \
            or not body["request_id"] or not isinstance(body.get("inputs"), list):
        return "request_id (non-empty string) and inputs (list) are required"
    for inp in body["inputs"]:
        if not isinstance(inp, dict) or type(inp.get("id")) is not int \
                or not isinstance(inp.get("instruction"), dict):
            return "every input needs an integer id and an instruction"
        memory = inp.get("memory", {})
        if not isinstance(memory, dict):
            return "memory must be an object"
        history = memory.get("history", [])
        if not isinstance(history, list) or not all(
                isinstance(e, dict) and isinstance(e.get("content"), str)
                and e.get("author") in ("USER", "SYSTEM", "MODEL") for e in history):
            return "memory.history must be a list of {author, content} objects"
        memory_list = memory.get("memory_list", [])
        if not isinstance(memory_list, list) or not all(isinstance(s, str) for s in memory_list):
            return "memory.memory_list must be a list of strings"
        mode = inp.get("extra_keys", {}).get("inference_mode")
        if mode is not None and not isinstance(mode, bool):
            return "extra_keys.inference_mode must be a boolean"
    return None


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as uvicorn

    def log_message(self, *args):  # one line per request would cost more than the agent
        pass

    def answer(self, status, value):
        data = compact(value).encode("utf-8")
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        if self.path == "/health":
            self.answer(200, {"status": "ready"})
        elif self.path == "/v1/info":
            self.answer(200, INFO)
        else:
            self.answer(404, {"detail": "Not Found"})

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("content-length", "0")))
        if self.path != "/v1/responses":
            self.answer(404, {"detail": "Not Found"})
            return
        try:
            request = json.loads(body)
        except ValueError:
            self.answer(422, {"detail": "body is not JSON"})
            return
        problem = check_request(request)
        if problem:
            self.answer(422, {"detail": problem})
            return
        self.answer(200, [candidate(request["request_id"], inp, k)
                          for inp in request["inputs"]
                          for k in range(inp.get("num_outputs", 1))])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--ready-file", help="written (with the URL) once listening")
    args = parser.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    if args.ready_file:
        with open(args.ready_file + ".tmp", "w") as f:
            f.write(f"http://127.0.0.1:{args.port}\n")
        os.replace(args.ready_file + ".tmp", args.ready_file)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        sys.exit(0)


if __name__ == "__main__":
    main()
