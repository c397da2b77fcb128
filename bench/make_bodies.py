#!/usr/bin/env python3
"""Writes the benchmark's fixed MAGMA exchange (magma-protocol.md §4-§5, §16, §19 Episode A).

request.json:  POST /v1/responses as BENCH sends it: json.dumps defaults (", " and ": "
               separators, ensure_ascii=True), keys in §4 order, one input (slot 0) on stage
               A3 of Episode A: env feedback for a wrong button, the press_button tools, attributes, a
               memory with eight history entries and a permanent rule, extra_keys.
response.json: the agent's answer as FastAPI emits it: compact, ensure_ascii=False, model
               key order, nulls emitted; one completed candidate with its replacement memory
               and one internal step.

The request_id of both is the same so the recorder sees a valid exchange. Run
`bench/make_bodies.py` to regenerate (output is deterministic); bench/run uses the files.
"""
import json
import os
import sys

REQUEST_ID = "5f0d2a9c8e1b4b7da3c6e2f19b8a7d40"
ROBOT = "panda"

tools = [
    {"name": "cancel_current_action",
     "description": "Cancel the current action running on the targeted robot.",
     "arguments": {}},
    {"name": "press_button",
     "description": "Press a button. The robot moves its arm above the button, pushes it "
                    "once and returns to its rest position.",
     "arguments": {"id": {"description": "Name of the button to press, one of the objects "
                                         "listed in the attributes.", "type": "str"}}},
]
attributes = {"objects": ["sw0", "sw1", "sw2", "sw3", "sw4", "sw5", "sw6", "sw7",
                          "sw8", "sw9"], "known_robots": [ROBOT],
              "robot_statuses": {ROBOT: "FREE"}}


def model_turn(say, action):
    # full-history MODEL entries: json.dumps(..., ensure_ascii=False), default separators.
    return json.dumps({"say": say, "action": action}, ensure_ascii=False)


press_sw1 = {ROBOT: {"name": "press_button", "arguments": {"id": "sw1"}}}
press_sw3 = {ROBOT: {"name": "press_button", "arguments": {"id": "sw3"}}}
press_sw12 = {ROBOT: {"name": "press_button", "arguments": {"id": "sw12"}}}
env_sw1 = json.dumps({"infos": "panda: press_button succeed with message: "
                               "You have the sw1 button pressed.",
                      "previous_tool_call": press_sw1})

history = [
    {"author": "USER", "content": "When a task is done, confirm it in one short sentence"},
    {"author": "MODEL", "content": model_turn("Understood: I will confirm every finished "
                                              "task in one short sentence.", {})},
    {"author": "USER", "content": "Please press sw1"},
    {"author": "MODEL", "content": model_turn("", press_sw1)},
    {"author": "SYSTEM", "content": env_sw1},
    {"author": "MODEL", "content": model_turn("Done, sw1 is pressed.", {})},
    {"author": "USER", "content": "Please press sw3"},
    {"author": "MODEL", "content": model_turn("", press_sw12)},
]
# The instruction: env feedback for the wrong button (§19 A3), serialised as BENCH does.
env_sw12 = json.dumps({"infos": "panda: press_button failed with message: No objects "
                                "corresponding to id = sw12. You must pass the id of the "
                                "object to take.",
                       "previous_tool_call": press_sw12})
memory_in = {"memory_list": ["Always answer in English.",
                             "Never press a button that was not asked for."],
             "history": history}

request = {"request_id": REQUEST_ID, "inputs": [{
    "id": 0,
    "instruction": {"type": "env", "content": env_sw12},
    "tools": tools,
    "attributes": attributes,
    "memory": memory_in,
    "num_outputs": 1,
    # BENCH: the --extra-keys JSON plus inference_mode (§14.1).
    "extra_keys": {"max_new_tokens": 512, "inference_mode": True},
}]}

memory_out = {"memory_list": memory_in["memory_list"],
              "history": history + [
                  {"author": "SYSTEM", "content": env_sw12},
                  {"author": "MODEL", "content": model_turn("", press_sw3)}]}

prompt = ("<|im_start|>system\nYou control the robot panda.<|im_end|>\n<|im_start|>user\n"
          "Please press sw3<|im_end|>\n<|im_start|>assistant\n")
output_raw = ("<tool_call>{\"panda\":{\"name\":\"press_button\","
              "\"arguments\":{\"id\":\"sw3\"}}}</tool_call>")

response = [{
    "request_id": REQUEST_ID, "source_id": 0, "candidate_index": 0, "status": "completed",
    "memory": memory_out,
    "internal_steps": [{"id": "step-0", "component": "commander", "origin": "model",
                        "full_prompt": prompt,
                        "input_elements": {"enable_thinking": False},
                        "output_raw": output_raw}],
    "output": {"say": "", "tool_calls": [{"name": "press_button", "arguments": {"id": "sw3"},
                                          "target_robot_name": ROBOT}]},
    "error": None,
}]

request_text = json.dumps(request, allow_nan=False)
response_text = json.dumps(response, separators=(",", ":"), ensure_ascii=False)
# nginx `return` text: no `$` (variables) and no single quote (the config quotes it).
assert "$" not in response_text and "'" not in response_text

here = os.path.dirname(os.path.abspath(__file__))
for name, text in (("request.json", request_text), ("response.json", response_text)):
    with open(os.path.join(here, name), "w", encoding="utf-8", newline="") as f:
        f.write(text)  # no trailing newline: these are the exact wire bytes
    print(f"{name}: {len(text.encode())} bytes", file=sys.stderr)
