"""fx tests leave numtorch's namespaces as they found them (hand-made proxies install the
proxy-aware wrappers for the rest of the process)."""

import pytest


@pytest.fixture(autouse=True)
def _unpatch_namespaces():
    yield
    from numtorch.fx import _patching

    _patching.reset()
