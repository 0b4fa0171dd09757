"""Single-process script: rendezvous misuse, run with torch or numtorch; prints JSON.

Usage: python init_misuse.py torch|numtorch PORT DIR. Each case's exception class and
message (or "ok") is recorded: missing rank or world size in tcp:// and file:// URLs, an
unknown scheme, store= misuse, and rank 0 waiting for a rank that never comes.
"""

import datetime
import json
import os
import sys
import warnings

warnings.simplefilter("ignore")
if sys.argv[1] == "torch":
    import torch
else:
    import numtorch as torch
dist = torch.distributed
port, where = int(sys.argv[2]), sys.argv[3]
sec = datetime.timedelta(seconds=1)
out = {}


def case(name, fn):
    try:
        fn()
        out[name] = "ok"
        dist.destroy_process_group()
    except Exception as e:  # noqa: BLE001
        out[name] = f"{type(e).__name__}: {e}"


case("tcp_no_rank", lambda: dist.init_process_group("gloo", f"tcp://127.0.0.1:{port}"))
case("tcp_no_size", lambda: dist.init_process_group("gloo", f"tcp://127.0.0.1:{port}",
                                                    rank=0))
case("file_no_rank", lambda: dist.init_process_group("gloo", f"file://{where}/f"))
case("file_no_size", lambda: dist.init_process_group("gloo", f"file://{where}/f", rank=0))
case("scheme", lambda: dist.init_process_group("gloo", "foo://x", rank=0, world_size=1))
case("store_and_url", lambda: dist.init_process_group(
    "gloo", "env://", store=dist.HashStore(), rank=0, world_size=1))
case("store_no_size", lambda: dist.init_process_group("gloo", store=dist.HashStore(),
                                                      rank=0))
case("store_no_rank", lambda: dist.init_process_group("gloo", store=dist.HashStore(),
                                                      world_size=1))
case("query_ok", lambda: dist.init_process_group(
    "gloo", f"tcp://127.0.0.1:{port}?rank=0&world_size=1", timeout=sec))
case("store_ok", lambda: dist.init_process_group("gloo", store=dist.HashStore(), rank=0,
                                                 world_size=1))
os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
case("env_size_0", lambda: dist.init_process_group("gloo", rank=0, world_size=0))
case("missing_rank", lambda: dist.init_process_group("gloo", rank=0, world_size=2,
                                                     timeout=sec))
print("REPORT " + json.dumps(out))
