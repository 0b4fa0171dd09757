"""Single-process script: the store API run with torch or numtorch; prints one JSON object.

Usage: python store_ops.py torch|numtorch DIR. Every operation's result (or exception class
and message) on HashStore, TCPStore, FileStore and PrefixStore is recorded, so the test
compares numtorch with torch.
"""

import datetime
import json
import os
import sys
import threading

if sys.argv[1] == "torch":
    import torch
else:
    import numtorch as torch
dist = torch.distributed
ms = datetime.timedelta(milliseconds=50)
out = {}


def case(name, fn):
    try:
        r = fn()
        out[name] = json.loads(json.dumps(r, default=lambda b: b.decode(errors="replace")))
    except Exception as e:  # noqa: BLE001
        out[name] = f"{type(e).__name__}: {e}"


def exercise(kind, s, timeout_message=True, setter=None):
    case(f"{kind}/set", lambda: s.set("a", "1"))
    case(f"{kind}/set_bytes", lambda: s.set("b", b"\x00\xff"))
    case(f"{kind}/get", lambda: s.get("a"))
    case(f"{kind}/get_bytes", lambda: list(s.get("b")))
    case(f"{kind}/add", lambda: [s.add("n", 5), s.add("n", -2), s.get("n")])
    case(f"{kind}/compare_set_match", lambda: s.compare_set("a", "1", "2"))
    case(f"{kind}/compare_set_mismatch", lambda: s.compare_set("a", "9", "3"))
    case(f"{kind}/compare_set_new", lambda: s.compare_set("new", "", "x"))
    case(f"{kind}/compare_set_missing", lambda: s.compare_set("new2", "q", "x"))
    case(f"{kind}/check", lambda: [s.check(["a", "b"]), s.check(["a", "zz"])])
    case(f"{kind}/num_keys", s.num_keys)
    case(f"{kind}/delete", lambda: [s.delete_key("a"), s.delete_key("a"), s.num_keys()])
    case(f"{kind}/wait_ok", lambda: s.wait(["b", "n"]))
    s.set_timeout(ms)
    case(f"{kind}/timeout", lambda: str(s.timeout))
    if timeout_message:
        case(f"{kind}/get_missing", lambda: s.get("zz"))
        case(f"{kind}/wait_missing", lambda: s.wait(["zz"], ms))
    else:  # the message differs between torch's stores; the class must match
        case(f"{kind}/get_missing", lambda: _cls(lambda: s.get("zz")))
    s.set_timeout(datetime.timedelta(seconds=10))

    def later():  # from another client: torch's TCPStore client serves one call at a time
        (setter or s).set("late", "v")

    threading.Timer(0.05, later).start()
    case(f"{kind}/get_waits", lambda: s.get("late"))


def _cls(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001
        return [c.__name__ for c in type(e).__mro__[:3]]
    return "no error"


exercise("hash", dist.HashStore())
tcp = dist.TCPStore("127.0.0.1", 0, 1, True, datetime.timedelta(seconds=5))
case("tcp/attrs", lambda: [tcp.host, tcp.port > 0, tcp.num_keys()])
exercise("tcp", tcp, setter=dist.TCPStore("127.0.0.1", tcp.port))
exercise("prefix", dist.PrefixStore("pre", dist.TCPStore("127.0.0.1", tcp.port)),
         setter=dist.PrefixStore("pre", dist.TCPStore("127.0.0.1", tcp.port)))
case("prefix/underlying", lambda: tcp.get("pre/b") == b"\x00\xff")
exercise("file", dist.FileStore(os.path.join(sys.argv[2], "store"), 1), False)
case("tcp/no_server", lambda: _cls(lambda: dist.TCPStore(
    "127.0.0.1", tcp.port + 1 if tcp.port < 65535 else 1, 1, False,
    datetime.timedelta(milliseconds=200))))
case("tcp/world_size_0", lambda: dist.TCPStore("127.0.0.1", 0, 0, True))
case("tcp/port_taken", lambda: _cls(lambda: dist.TCPStore("127.0.0.1", tcp.port, 1, True)))
print("REPORT " + json.dumps(out))
