"""torch.Stream / torch.Event (torch 2.x's device-agnostic forms) on the CPU, against torch:
attributes, repr, equality, the errors for events and for devices that are not there."""

import pytest

import numtorch

torch = pytest.importorskip("torch")


def _outcome(fn):
    try:
        r = fn()
        return ("ok", repr(r) if r is not None else None)
    except Exception as e:  # noqa: BLE001 - compared
        return (type(e).__name__, str(e))


def _story(lib):
    s, e = lib.Stream(), lib.Event()
    out = [repr(s), s.device_type, s.device_index, s.stream_id, str(s.device),
           s == lib.Stream(), hash(s) == hash(lib.Stream()), s.query(), s.is_capturing(),
           repr(e), str(e.device), e.event_id, e.query(),
           repr(lib.Event(enable_timing=True)), repr(lib.Event(blocking=True))]
    calls = [lambda: s.native_handle, lambda: s.record_event(), lambda: s.wait_event(e),
             lambda: s.wait_stream(lib.Stream()), lambda: e.record(), lambda: e.record(s),
             lambda: e.synchronize(), lambda: e.wait(), lambda: e.elapsed_time(lib.Event()),
             lambda: lib.Event(enable_timing=True).elapsed_time(lib.Event(enable_timing=True)),
             lambda: lib.Stream("cuda"), lambda: lib.Event("cuda"),
             lambda: lib.Stream(device="cpu", priority=-1), lambda: lib.Stream(3),
             lambda: s.__enter__(), lambda: lib.Stream("meta"), lambda: e.ipc_handle()]
    out += [_outcome(c) for c in calls]
    with lib.Stream():
        out.append((lib.ones(1) + 1).tolist())
    return out


def test_stream_and_event_on_cpu():
    assert _story(numtorch) == _story(torch)
