"""Small user programs run under real torch and under numtorch: their printed output (values,
dtypes, shapes, gradients, exception classes and messages, warnings) must be the same.

The programs live in ``programs/``, one cell per ``#%%`` line (see ``runner.py``); each
library runs all of them in one child process, so a test costs two interpreter starts.
"""

from .compare import diff


def test_user_programs_print_what_torch_prints():
    count, bad = diff()
    assert count > 50
    report = "".join(f"==== {k}\n--- torch\n{w}--- numtorch\n{g}" for k, w, g in bad[:10])
    assert not bad, f"{len(bad)} of {count} cells differ:\n{report}"
