"""DataLoader cases beyond worker deaths, under one library; run as
``python -m tests.security._dl_s41 LIB [CASE ...]`` it prints one JSON line per case: the batches seen
(their first values) or the class and first line of what the main process raised, its cause,
and the seconds. Cases: a map-style ``__getitem__`` raising StopIteration, a persistent
worker killed in the second epoch, ``worker_init_fn`` raising or killing its process, a
``collate_fn`` raising, an exception class whose constructor takes two arguments."""

import json
import os
import re
import signal
import sys
import time

# the persistent case goes last: torch's main process keeps watching its killed worker
# (a SIGCHLD handler) after the loader is gone, and reports it in the next case otherwise
CASES = ["map_stop_iteration", "init_fn_raises", "init_fn_killed", "collate_raises",
         "two_argument_exception", "persistent_killed_second_epoch"]


class TwoArgs(Exception):
    def __init__(self, a, b):
        super().__init__(f"{a}-{b}")


def _init_raises(worker_id):
    raise ValueError(f"init failed in worker {worker_id}")


def _init_killed(worker_id):
    os.kill(os.getpid(), signal.SIGKILL)


def _collate_raises(batch):
    raise TypeError("cannot collate this batch")


def _main(lib_name, cases):
    if lib_name == "torch":
        import torch as lib
        from torch.utils.data import DataLoader, Dataset
    else:
        import numtorch as lib
        from numtorch.utils.data import DataLoader, Dataset

    class Items(Dataset):
        def __init__(self, case):
            self.case = case

        def __len__(self):
            return 16

        def __getitem__(self, i):
            if i == 5 and self.case == "map_stop_iteration":
                raise StopIteration
            if i == 5 and self.case == "two_argument_exception":
                raise TwoArgs(1, 2)
            if self.case == "persistent_killed_second_epoch":
                return lib.tensor([os.getpid()])
            return lib.tensor([i])

    def first_line(text):
        return re.sub(r"\d{3,}", "PID", text).split("\n")[0]

    for case in cases:
        kw = {"batch_size": 2, "num_workers": 2,
              "worker_init_fn": {"init_fn_raises": _init_raises,
                                 "init_fn_killed": _init_killed}.get(case),
              "persistent_workers": case == "persistent_killed_second_epoch"}
        if case == "collate_raises":
            kw["collate_fn"] = _collate_raises
        loader = DataLoader(Items(case), **kw)
        out, start = {"case": case}, time.monotonic()
        try:
            if case == "persistent_killed_second_epoch":
                out["first_epoch"] = sum(1 for _ in loader)
                it = iter(loader)
                os.kill(int(next(it)[0]), signal.SIGKILL)
                out["batches"] = sum(1 for _ in it)
            else:
                out["batches"] = [int(b[0]) for b in loader]
        except Exception as e:  # noqa: BLE001 - the class and text are what is compared
            cause = e.__cause__
            out.update(cls=type(e).__name__, msg=first_line(str(e)),
                       cause_cls=type(cause).__name__ if cause else None,
                       cause_msg=first_line(str(cause)) if cause else None)
        out["seconds"] = time.monotonic() - start
        del loader
        print(json.dumps(out), flush=True)


if __name__ == "__main__":
    _main(sys.argv[1], sys.argv[2:] or CASES)
