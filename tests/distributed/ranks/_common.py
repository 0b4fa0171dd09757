"""Helpers for the rank scripts: record each case's verdict, save them as JSON."""

import atexit
import json
import os
import traceback


class Recorder:
    """Collects ``{case: "ok" | what went wrong}`` for one rank."""

    def __init__(self, out_dir, rank):
        self.out_dir, self.rank = out_dir, rank
        self.res = {}
        atexit.register(self.save)  # keep the verdicts so far even if the script dies

    def check(self, name, fn):
        """Run ``fn``; a falsy/None result or True passes, a string is the failure text."""
        try:
            r = fn()
            self.res[name] = "ok" if not r or r is True else f"failed: {r}"
        except Exception as e:  # noqa: BLE001  (the verdict records it)
            self.res[name] = f"{type(e).__name__}: {e}\n{traceback.format_exc()[-1500:]}"

    def raises(self, name, fn, exc_type, contains=()):
        """``fn`` must raise ``exc_type`` whose message contains every string in ``contains``."""
        try:
            fn()
        except exc_type as e:
            missing = [c for c in contains if c not in str(e)]
            self.res[name] = "ok" if not missing else f"message {str(e)!r} lacks {missing}"
            return e
        except Exception as e:  # noqa: BLE001
            self.res[name] = f"raised {type(e).__name__}: {e} instead of {exc_type.__name__}"
            return e
        else:
            self.res[name] = f"did not raise {exc_type.__name__}"
        return None

    def save(self):
        with open(os.path.join(self.out_dir, f"rank{self.rank}.json"), "w") as f:
            json.dump(self.res, f, indent=1)
