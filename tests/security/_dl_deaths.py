"""Worker deaths of every kind under one library's DataLoader; run as
``python -m tests.security._dl_deaths LIB`` it prints one JSON line per case: the class and
text of what the main process raised (pids replaced by PID), of its cause, and the seconds."""

import json
import os
import re
import signal
import sys
import time

CASES = ["segv", "abort", "os_exit_3", "memory_error", "iterable_killed", "both_killed",
         "one_hangs_other_dies", "killed_with_timeout_set"]


def _main(lib_name):
    if lib_name == "torch":
        import torch as lib
        from torch.utils.data import DataLoader, Dataset, IterableDataset, get_worker_info
    else:
        import numtorch as lib
        from numtorch.utils.data import DataLoader, Dataset, IterableDataset, get_worker_info

    class Items(Dataset):
        def __init__(self, case):
            self.case = case

        def __len__(self):
            return 32

        def __getitem__(self, i):
            c, wid = self.case, get_worker_info().id
            if i == 5:
                if c == "segv":
                    os.kill(os.getpid(), signal.SIGSEGV)
                elif c == "abort":
                    os.abort()
                elif c == "os_exit_3":
                    os._exit(3)
                elif c == "memory_error":
                    raise MemoryError("no memory left in the worker")
                elif c == "killed_with_timeout_set":
                    os.kill(os.getpid(), signal.SIGKILL)
            if c == "both_killed" and i in (4, 5):
                time.sleep(0.3)
                os.kill(os.getpid(), signal.SIGKILL)
            if c == "one_hangs_other_dies":
                if wid == 0 and i >= 4:
                    time.sleep(600)
                if wid == 1 and i >= 5:
                    os.kill(os.getpid(), signal.SIGKILL)
            return lib.tensor([i])

    class Stream(IterableDataset):
        def __iter__(self):
            for i in range(32):
                if i == 5 and get_worker_info().id == 1:
                    os.kill(os.getpid(), signal.SIGKILL)
                yield lib.tensor([i])

    def pids(text):
        return re.sub(r"\d{3,}", "PID", text)

    for case in CASES:
        kw = {"batch_size": 2, "num_workers": 2}
        if case == "killed_with_timeout_set":
            kw["timeout"] = 60
        loader = DataLoader(Stream() if case == "iterable_killed" else Items(case), **kw)
        start = time.monotonic()
        out = {"case": case}
        try:
            out["batches"] = sum(1 for _ in loader)
        except Exception as e:  # noqa: BLE001 - the class and text are what is compared
            cause = e.__cause__
            for _ in range(5):
                try:
                    out.update(cls=type(e).__name__, msg=pids(str(e)).split("\n")[0],
                               cause_cls=type(cause).__name__ if cause else None,
                               cause_msg=pids(str(cause)) if cause else None)
                    break
                except RuntimeError:  # torch's SIGCHLD handler may raise the death again here
                    continue
        out["seconds"] = time.monotonic() - start
        del loader
        print(json.dumps(out), flush=True)


if __name__ == "__main__":
    _main(sys.argv[1])
