"""Session 40's user-style programs (``tests/parity_users/programs/s40_*.py``), each run under
real torch and under numtorch: every printed cell (values, dtypes, reprs, error texts,
warnings) must be the same."""

import os


from tests.parity_users.compare import diff

PROGRAMS = os.path.join(os.path.dirname(__file__), "parity_users", "programs")
S40 = sorted(n[:-3] for n in os.listdir(PROGRAMS) if n.startswith("s40_") and n.endswith(".py"))


def test_s40_programs_print_what_torch_prints():
    # every program in one child process per library: two interpreter starts in all
    # (one pair per program made these wrappers minutes of CI time)
    count, bad = diff(S40)
    assert count >= 2 * len(S40)
    report = "".join(f"==== {k}\n--- torch\n{w}--- numtorch\n{g}" for k, w, g in bad[:5])
    assert not bad, f"{len(bad)} of {count} cells differ:\n{report}"
