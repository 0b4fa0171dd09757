"""TFRecord framing and the background thread that writes event files.

An event file is a sequence of records: the payload length (uint64, little-endian), a masked
CRC32C of those 8 bytes, the payload, and a masked CRC32C of the payload. Readers stop at the
first incomplete record, so a writer killed mid-write still leaves every earlier record
readable.

CRC32C is computed here without a C extension. Short payloads (scalars, text) go through the
byte-at-a-time table loop; long ones (images, graphs) are cut into equal chunks whose CRCs are
computed side by side as NumPy vectors and then joined, which works because the CRC register
update is linear over GF(2).
"""

import os
import queue
import socket
import struct
import threading
import time

import numpy as np

_POLY = 0x82F63B78  # Castagnoli, bit-reflected


def _byte_table():
    vals = np.arange(256, dtype=np.uint32)
    for _ in range(8):
        vals = np.where(vals & 1, (vals >> 1) ^ np.uint32(_POLY), vals >> 1).astype(np.uint32)
    return vals


_TABLE = _byte_table()
_TABLE_LIST = _TABLE.tolist()
_SHIFT_TABLES = {}  # chunk length -> four 256-entry tables of "run the register over n zeros"


def _run_zeros(regs, n):
    """Registers after feeding ``n`` zero bytes (vectorised over ``regs``)."""
    for _ in range(n):
        regs = _TABLE[regs & 0xFF] ^ (regs >> 8)
    return regs


def _shift_tables(n):
    tables = _SHIFT_TABLES.get(n)
    if tables is None:
        # the zero-feeding map is linear: tabulate it per byte of the register
        basis = _run_zeros(np.uint32(1) << np.arange(32, dtype=np.uint32), n)
        bits = (np.arange(256)[:, None] >> np.arange(8)) & 1  # (256, 8)
        tables = []
        for k in range(4):
            images = basis[8 * k:8 * k + 8]
            sel = np.where(bits.astype(bool), images[None, :], np.uint32(0))
            tables.append(np.bitwise_xor.reduce(sel, axis=1).astype(np.uint32).tolist())
        _SHIFT_TABLES[n] = tables
    return tables


def _update_bytes(reg, data):
    table = _TABLE_LIST
    for b in data:
        reg = table[(reg ^ b) & 0xFF] ^ (reg >> 8)
    return reg


def crc32c(data):
    """CRC-32C (Castagnoli) of ``data`` (bytes-like), as an int."""
    data = memoryview(data).cast("B")
    n = len(data)
    reg = 0xFFFFFFFF
    if n < 4096:
        return _update_bytes(reg, data) ^ 0xFFFFFFFF
    chunk = 1 << max(6, (int(n ** 0.5) - 1).bit_length())  # about sqrt(n): two short loops
    lanes = n // chunk
    head = n - lanes * chunk
    reg = _update_bytes(reg, data[:head])
    cols = np.frombuffer(data, dtype=np.uint8, offset=head).reshape(lanes, chunk).T.copy()
    regs = np.zeros(lanes, dtype=np.uint32)
    table = _TABLE
    for col in cols:  # every lane's CRC from a zero register, one byte column at a time
        regs = table[(regs ^ col) & 0xFF] ^ (regs >> 8)
    t0, t1, t2, t3 = _shift_tables(chunk)
    for r in regs.tolist():  # join: shift the running register over a chunk, add the lane
        reg = (t0[reg & 0xFF] ^ t1[(reg >> 8) & 0xFF] ^ t2[(reg >> 16) & 0xFF]
               ^ t3[reg >> 24] ^ r)
    return reg ^ 0xFFFFFFFF


def masked_crc32c(data):
    """The masked CRC that TFRecord framing stores (rotated and offset)."""
    x = crc32c(data)
    return ((((x >> 15) | (x << 17)) & 0xFFFFFFFF) + 0xA282EAD8) & 0xFFFFFFFF


def frame(payload):
    """One TFRecord: header, header CRC, payload, payload CRC."""
    header = struct.pack("<Q", len(payload))
    return b"".join((header, struct.pack("<I", masked_crc32c(header)), payload,
                     struct.pack("<I", masked_crc32c(payload))))


_file_ids = iter(range(1 << 62))
_file_ids_lock = threading.Lock()
_CLOSE = object()


class EventFileWriter:
    """Writes serialized ``Event`` messages to a new event file in ``logdir``.

    Events are queued (at most ``max_queue``; a full queue makes ``add_event`` wait) and a
    daemon thread frames and writes them, flushing the file at least every ``flush_secs``.
    """

    def __init__(self, logdir, max_queue=10, flush_secs=120, filename_suffix=""):
        from tensorboard.compat.proto import event_pb2

        os.makedirs(logdir, exist_ok=True)
        with _file_ids_lock:
            uid = next(_file_ids)
        name = (f"events.out.tfevents.{int(time.time()):010d}.{socket.gethostname()}."
                f"{os.getpid()}.{uid}{filename_suffix}")
        self._logdir = logdir
        self._path = os.path.join(logdir, name)
        self._file = open(self._path, "wb")  # noqa: SIM115  (the writer thread closes it)
        self._queue = queue.Queue(max_queue)
        self._flush_secs = flush_secs
        self._error = None
        self._closed = False
        self._thread = threading.Thread(target=self._run, name="numtorch-tensorboard",
                                        daemon=True)
        self._thread.start()
        first = event_pb2.Event(wall_time=time.time(), file_version="brain.Event:2")
        first.source_metadata.writer = "numtorch.utils.tensorboard"
        self.add_event(first)
        self.flush()  # the file is readable (and has its version record) right away

    def get_logdir(self):
        return self._logdir

    @property
    def path(self):
        """The event file's path."""
        return self._path

    def add_event(self, event):
        """Queue one ``Event`` (a protobuf message) for writing."""
        if self._closed:
            raise RuntimeError("this event file writer is closed")
        self._check()
        self._queue.put(event.SerializeToString())

    def flush(self):
        """Wait until everything queued is written, then flush the file to the OS."""
        if self._closed:
            return
        done = threading.Event()
        self._queue.put(done)
        while not done.wait(0.05):
            if not self._thread.is_alive():
                break
        self._check()

    def close(self):
        """Write what is queued, then close the file; later calls do nothing."""
        if self._closed:
            return
        self.flush()
        self._closed = True
        self._queue.put(_CLOSE)
        self._thread.join()
        self._check()

    def _check(self):
        if self._error is not None:
            err, self._error = self._error, None
            raise err

    def _run(self):
        last_flush = time.monotonic()
        f = self._file
        try:
            while True:
                timeout = max(0.0, self._flush_secs - (time.monotonic() - last_flush))
                try:
                    item = self._queue.get(timeout=timeout)
                except queue.Empty:
                    item = None
                if item is _CLOSE:
                    break
                waiter = item if type(item) is threading.Event else None
                if type(item) is bytes:
                    f.write(frame(item))
                if waiter is None and time.monotonic() - last_flush < self._flush_secs:
                    continue
                f.flush()
                last_flush = time.monotonic()
                if waiter is not None:
                    waiter.set()
        except BaseException as e:  # noqa: BLE001  (handed to the next add_event/flush/close)
            self._error = e
        finally:
            f.close()
