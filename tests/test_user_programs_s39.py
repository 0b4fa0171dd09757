"""Session 39's user-style programs (``tests/parity_users/programs/s39_*.py``), each run under
real torch and under numtorch: every printed cell (values, dtypes, reprs, error texts,
warnings) must be the same."""

import os

import pytest

from tests.parity_users.compare import diff

PROGRAMS = os.path.join(os.path.dirname(__file__), "parity_users", "programs")
S39 = sorted(n[:-3] for n in os.listdir(PROGRAMS) if n.startswith("s39_") and n.endswith(".py"))


@pytest.mark.parametrize("name", S39)
def test_s39_program_prints_what_torch_prints(name):
    count, bad = diff([name])
    assert count >= 2
    report = "".join(f"==== {k}\n--- torch\n{w}--- numtorch\n{g}" for k, w, g in bad[:5])
    assert not bad, f"{len(bad)} of {count} cells differ:\n{report}"
