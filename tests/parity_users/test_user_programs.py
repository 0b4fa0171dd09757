"""Small user programs run under real torch and under numtorch: their printed output (values,
dtypes, shapes, gradients, exception classes and messages, warnings) must be the same.

The programs live in ``programs/``, one cell per ``#%%`` line (see ``runner.py``); each
library runs all of them in one child process, so a test costs two interpreter starts.
"""

import warnings

from .compare import diff

# Cells seen to differ in some full runs only, never when their program runs alone. Such a
# cell is re-run with its program alone and must match there; the full-run difference is a
# warning, not a pass. (Session 46 listed s36_amp_misc's autocast cell here: a lazy module's
# placeholder from an earlier program, freed by the garbage collector inside an autocast
# region, took autocast's wrappers out with its own; fixed by numtorch/_layers.py.)
INTERMITTENT = set()


def test_user_programs_print_what_torch_prints():
    count, bad = diff()
    assert count > 50
    flaky = [b for b in bad if b[0] in INTERMITTENT]
    bad = [b for b in bad if b[0] not in INTERMITTENT]
    for key, _, _ in flaky:
        alone = diff([key.split(":", 1)[0]])[1]
        assert not [b for b in alone if b[0] == key], f"{key} differs even when run alone"
        warnings.warn(f"{key} differed in the full run only (known intermittent)", stacklevel=1)
    report = "".join(f"==== {k}\n--- torch\n{w}--- numtorch\n{g}" for k, w, g in bad[:10])
    assert not bad, f"{len(bad)} of {count} cells differ:\n{report}"
