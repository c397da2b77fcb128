"""pytest-agentvcr: an `agentvcr` replay, record or forward process per test, as a fixture.

The plugin itself lives in :mod:`pytest_agentvcr.plugin`, which pytest loads through the
``pytest11`` entry point; the names below are exported for type hints in tests.
"""

from pytest_agentvcr.plugin import Agent, Miss

__all__ = ["Agent", "Miss", "__version__"]
__version__ = "0.1.0"
