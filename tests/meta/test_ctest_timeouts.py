"""Every ctest test of the build carries a timeout of its own, so that a hang fails its test
instead of the whole CI run. The build folder comes from AGENTVCR_BUILD_DIR. The test files that
CMake wrote are read directly: running ctest from inside a ctest run would replace that run's
log."""

import os
import pathlib
import re

ADD_TEST = re.compile(r'^add_test\((?:\[=\[([^\]]+)\]=\]|([^ ")]+))', re.M)
SET_PROPERTIES = re.compile(r'^set_tests_properties\((?:\[=\[([^\]]+)\]=\]|([^ )]+))')


def ctest_files(build):
    return sorted(pathlib.Path(build).rglob("CTestTestfile.cmake"))


def listed_tests_and_timeouts(text):
    """The tests a CTestTestfile.cmake adds, and those of them it gives a timeout."""
    names = [a or b for a, b in ADD_TEST.findall(text)]
    timed = set()
    # A statement may span lines (a pass regex with a newline): each starts a line of its own.
    for statement in re.split(r"\n(?=[a-z_]+\()", text):
        name = SET_PROPERTIES.match(statement)
        if name and re.search(r'\bTIMEOUT "?[1-9]', statement):
            timed.add(name.group(1) or name.group(2))
    return names, timed


def test_every_test_has_a_timeout():
    names, timed = [], set()
    for path in ctest_files(os.environ["AGENTVCR_BUILD_DIR"]):
        file_names, file_timed = listed_tests_and_timeouts(path.read_text())
        names += file_names
        timed |= file_timed
    assert len(names) > 10
    assert [name for name in names if name not in timed] == []


def test_a_test_without_a_timeout_is_found():
    names, timed = listed_tests_and_timeouts(
        'add_test([=[a]=] "/bin/true")\n'
        'set_tests_properties([=[a]=] PROPERTIES  LABELS "unit" TIMEOUT "300")\n'
        'add_test([=[b]=] "/bin/true")\n'
        'set_tests_properties([=[b]=] PROPERTIES  LABELS "unit")\n')
    assert names == ["a", "b"] and timed == {"a"}
