"""Rendering events: torch's fixed-width profiler table and the Chrome trace-event JSON."""

import os
import socket

from ._events import _share, format_memory, format_time

_COL = 12  # width of every numeric column
_GAP = "  "


def _format_with_unit(us, unit):
    if unit is None:
        return format_time(us)
    scale = {"s": 1e6, "ms": 1e3, "us": 1.0}[unit]
    return f"{us / scale:.3f}{unit}"


def build_table(events, sort_by, row_limit, max_src_column_width, max_name_column_width,
                max_shapes_column_width, header, top_level_events_only, profile_memory,
                time_unit):
    """The table text: a header framed by dashed rules, one row per event, and the total
    self CPU time; every column is right-aligned except the source location."""
    events = list(events)
    if not events:
        return ""
    if sort_by is not None:
        attr = sort_by.replace("cuda", "device")
        events.sort(key=lambda e: getattr(e, attr), reverse=True)
    if top_level_events_only:
        events = [e for e in events if e.cpu_parent is None]
    total_self = sum(e.self_cpu_time_total for e in events)
    has_shapes = any(e.input_shapes for e in events)
    has_stack = any(e.stack for e in events)

    name_w = max(len(e.key) for e in events) + 4
    if max_name_column_width is not None:
        name_w = min(name_w, max_name_column_width)
    columns = [("Name", name_w, ">"), ("Self CPU %", _COL, ">"), ("Self CPU", _COL, ">"),
               ("CPU total %", _COL, ">"), ("CPU total", _COL, ">"),
               ("CPU time avg", _COL, ">")]
    if profile_memory:
        columns += [("CPU Mem", _COL, ">"), ("Self CPU Mem", _COL, ">")]
    columns.append(("# of Calls", _COL, ">"))
    shapes_w = src_w = 0
    if has_shapes:
        shapes_w = min(max(len(str(e.input_shapes)) for e in events) + 4,
                       max_shapes_column_width)
        columns.append(("Input Shapes", shapes_w, ">"))
    if has_stack:
        src_w = min(max(len(s) for e in events for s in (e.stack or [""])) + 4,
                    max_src_column_width)
        columns.append(("Source Location", src_w, "<"))

    def line(cells):
        return "".join(f"{c!s:{a}{w}}{_GAP}" for c, (_, w, a) in zip(cells, columns))

    rule = "".join("-" * w + _GAP for _, w, _ in columns)
    out = []
    if header is not None:
        out += ["=" * (len(rule) - len(_GAP)), header]
    out += [rule, line([c[0] for c in columns]), rule]
    if row_limit is not None and row_limit > 0:
        events = events[:row_limit]
    fmt = lambda us: _format_with_unit(us, time_unit)
    for e in events:
        name = e.key
        if max_name_column_width is not None and len(name) >= max_name_column_width - 3:
            name = name[:max_name_column_width - 3] + "..."
        cells = [name, _share(e.self_cpu_time_total, total_self), fmt(e.self_cpu_time_total),
                 _share(e.cpu_time_total, total_self), fmt(e.cpu_time_total), fmt(e.cpu_time)]
        if profile_memory:
            cells += [format_memory(e.cpu_memory_usage), format_memory(e.self_cpu_memory_usage)]
        cells.append(e.count)
        if has_shapes:
            cells.append(str(e.input_shapes)[:shapes_w])
        stack = list(e.stack or [])
        if has_stack:
            cells.append(stack[0][:src_w] if stack else "")
        out.append(line(cells))
        for frame in stack[1:] if has_stack else ():  # further frames on their own lines
            blank = [""] * (len(columns) - 1)
            out.append(line(blank + [frame[:src_w]]))
    out += [rule, f"Self CPU time total: {fmt(total_self)}"]
    return "\n".join(out) + "\n"


def chrome_trace(events, metadata, base_us=0.0):
    """The trace-event JSON object (``traceEvents`` plus file-level fields)."""
    pid = os.getpid()
    trace = []
    threads = sorted({e.thread for e in events})
    t0 = base_us + min((e.time_range.start for e in events), default=0.0)
    trace.append({"ph": "M", "name": "process_name", "ts": t0, "pid": pid, "tid": 0,
                  "args": {"name": "python"}})
    trace.append({"ph": "M", "name": "process_labels", "ts": t0, "pid": pid, "tid": 0,
                  "args": {"labels": "CPU"}})
    for tid in threads:
        trace.append({"ph": "M", "name": "thread_name", "ts": t0, "pid": pid, "tid": tid,
                      "args": {"name": f"thread {tid} (python)"}})
        trace.append({"ph": "M", "name": "thread_sort_index", "ts": t0, "pid": pid,
                      "tid": tid, "args": {"sort_index": tid}})
    forward_of = {}
    allocated = 0
    for e in events:
        args = {"External id": e.id}
        if e.sequence_nr >= 0:
            args["Sequence number"] = e.sequence_nr
        if e.input_shapes:
            args["Input Dims"] = e.input_shapes
            args["Input type"] = e.input_dtypes
        start, dur = base_us + e.time_range.start, e.time_range.elapsed_us()
        trace.append({"ph": "X", "cat": e.category, "name": e.trace_name, "pid": pid,
                      "tid": e.thread, "ts": start, "dur": dur, "args": args})
        backward = getattr(e, "is_backward", False)
        if e.sequence_nr >= 0 and not backward and e.category == "cpu_op":
            forward_of.setdefault(e.sequence_nr, e)
        elif e.sequence_nr >= 0 and backward and e.sequence_nr in forward_of:
            fwd = forward_of.pop(e.sequence_nr)  # an arrow from the op to its backward node
            flow = {"id": e.sequence_nr, "pid": pid, "cat": "fwdbwd", "name": "fwdbwd"}
            trace.append({"ph": "s", "tid": fwd.thread, "ts": base_us + fwd.time_range.start,
                          **flow})
            trace.append({"ph": "f", "tid": e.thread, "ts": start, "bp": "e", **flow})
        if e.self_cpu_memory_usage:
            allocated += e.self_cpu_memory_usage
            trace.append({"ph": "i", "s": "t", "name": "[memory]", "pid": pid,
                          "tid": e.thread, "ts": base_us + e.time_range.end,
                          "args": {"Bytes": e.self_cpu_memory_usage,
                                   "Total Allocated": allocated, "Device Type": 0,
                                   "Device Id": -1}})
    doc = {"schemaVersion": 1, "deviceProperties": [], "host_name": socket.gethostname(),
           "displayTimeUnit": "ms", "traceEvents": trace}
    doc.update(metadata)
    return doc
