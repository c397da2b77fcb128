"""Every ctest test of the build carries a timeout of its own, so that a hang fails its test
instead of the whole CI run. The build folder comes from AGENTVCR_BUILD_DIR."""

import json
import os
import subprocess


def test_every_test_has_a_timeout():
    listing = subprocess.run(["ctest", "--test-dir", os.environ["AGENTVCR_BUILD_DIR"],
                              "--show-only=json-v1"], check=True, capture_output=True,
                             text=True).stdout
    tests = json.loads(listing)["tests"]
    assert len(tests) > 10
    missing = [test["name"] for test in tests
               if not any(p["name"] == "TIMEOUT" and float(p["value"]) > 0
                          for p in test.get("properties", []))]
    assert missing == []
