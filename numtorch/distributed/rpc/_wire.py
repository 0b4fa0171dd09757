"""How RPC messages become bytes: framing on a socket and pickling with tensors and RRefs.

A message is pickled twice over: the Python objects first, with every tensor and RRef replaced
by a persistent id, then that byte string together with the tensors' arrays (which pickle
without a copy through NumPy's own reducer). Replacing tensors by ids keeps one copy of a
tensor that appears several times in a message, turns ``nn.Parameter`` back into a
Parameter, and is where distributed autograd hooks in: a tensor that requires grad, sent
inside a distributed autograd context, becomes a "send" point on the sender and a "recv"
point on the receiver (see ``numtorch.distributed.autograd``).

Arrays go out of band (pickle protocol 5): a message is a small pickled body plus the
arrays' raw buffers, written to the socket as they are and read into fresh buffers that the
received arrays then use, so a tensor is copied once on each side, not once per layer.
"""

import io
import pickle
import struct

_HEADER = struct.Struct("!Q")
PROTOCOL = pickle.HIGHEST_PROTOCOL


def send_frame(sock, lock, payload):
    """Write one length-prefixed frame (``lock`` keeps concurrent writers apart)."""
    with lock:
        sock.sendall(_HEADER.pack(len(payload)))
        sock.sendall(payload)


def recv_exact(sock, n):
    """Read exactly ``n`` bytes; None when the peer closed the connection first."""
    buf = bytearray(n)
    view = memoryview(buf)
    got = 0
    while got < n:
        k = sock.recv_into(view[got:], n - got)
        if k == 0:
            return None
        got += k
    return buf


def recv_frame(sock):
    """Read one frame written by :func:`send_frame`; None at end of stream."""
    head = recv_exact(sock, _HEADER.size)
    if head is None:
        return None
    (n,) = _HEADER.unpack(head)
    return recv_exact(sock, n)


def send_message(sock, lock, head, msg):
    """Write ``head`` (small picklable tuple) and ``msg`` = (body, buffers) as one message."""
    body, buffers = msg
    views = [memoryview(b).cast("B") for b in buffers]
    prefix = pickle.dumps((head, len(body), [v.nbytes for v in views]), protocol=PROTOCOL)
    with lock:
        sock.sendall(_HEADER.pack(len(prefix)) + prefix + body)
        for v in views:
            sock.sendall(v)


def recv_message(sock):
    """Read one message of :func:`send_message`: ``(head, (body, buffers))`` or None."""
    prefix = recv_frame(sock)
    if prefix is None:
        return None
    head, body_len, sizes = pickle.loads(prefix)
    body = recv_exact(sock, body_len)
    buffers = [recv_exact(sock, n) for n in sizes]
    if body is None or any(b is None for b in buffers):
        return None
    return head, (body, buffers)


class _Pickler(pickle.Pickler):
    def __init__(self, f, ctx, dest):
        super().__init__(f, protocol=PROTOCOL)
        self.ctx = ctx
        self.dest = dest
        self.tensors = []
        self._seen = {}

    def persistent_id(self, obj):
        from ... import _tensor
        from ._rref import RRef

        if isinstance(obj, _tensor.Tensor):
            key = id(obj)
            if key not in self._seen:
                self._seen[key] = len(self.tensors)
                self.tensors.append(_tensor_record(obj, self.ctx))
            return ("T", self._seen[key])
        if isinstance(obj, RRef):
            return ("R", obj._owner_id, obj._rref_id, _fork_for(obj, self.dest))
        return None


def _fork_for(rref, dest):
    """The fork id under which ``dest`` will hold ``rref`` (None when ``dest`` owns it)."""
    from . import _rref, _state

    if dest is None or rref._owner_id == dest:
        return None
    fork_id = _rref.new_rref_id()
    agent = _state.agent()
    if rref._owner_id == agent.rank:
        _rref.add_fork(rref._rref_id, fork_id)
    else:
        agent.send_control(rref._owner_id, ("add", rref._rref_id, fork_id))
    return fork_id


def _tensor_record(t, ctx):
    from ...nn.parameter import Parameter

    base = t.detach()
    if base.device.type != "cpu":
        base = base.cpu()
    array = base._array  # not .numpy(): bfloat16/float8 have no NumPy dtype
    send_id = None
    if ctx is not None and t.requires_grad:
        send_id = ctx.add_send(t)
    return (array, t.requires_grad, isinstance(t, Parameter), send_id)


class _Unpickler(pickle.Unpickler):
    def __init__(self, f, tensors, ctx, sender):
        super().__init__(f)
        self.records = tensors
        self.ctx = ctx
        self.sender = sender
        self.built = {}

    def persistent_load(self, pid):
        kind = pid[0]
        if kind == "T":
            idx = pid[1]
            if idx not in self.built:
                self.built[idx] = _build_tensor(self.records[idx], self.ctx, self.sender)
            return self.built[idx]
        if kind == "R":
            from ._rref import RRef

            return RRef._from_wire(pid[1], pid[2], pid[3])
        raise pickle.UnpicklingError(f"unknown persistent id {kind!r} in an RPC message")


def _build_tensor(record, ctx, sender):
    import numtorch

    array, requires_grad, is_param, send_id = record
    if not array.flags.writeable:
        array = array.copy()
    t = numtorch.from_numpy(array)
    if is_param:
        from ...nn.parameter import Parameter

        return Parameter(t, requires_grad=requires_grad)
    if requires_grad:
        t.requires_grad_(True)
        if ctx is not None and send_id is not None:
            # the received tensor hangs off a hidden leaf, the recv point, as torch's does
            # off its RecvRpcBackward node: gradients reaching that leaf go to the sender
            ctx.add_recv(t, sender, send_id)
            return _recv_function().apply(t)
    return t


_RECV = []


def _recv_function():
    if not _RECV:
        import numtorch

        class RecvRpc(numtorch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x.detach()

            @staticmethod
            def backward(ctx, grad):
                return grad

        _RECV.append(RecvRpc)
    return _RECV[0]


def dumps(obj, ctx=None, dest=None):
    """Bytes of ``obj``; with ``ctx`` (an autograd context) tensors needing grad become sends.

    ``dest`` is the receiving worker's id: RRefs sent to a worker that does not own them
    are registered with their owner under a new fork id.

    Returns:
        (bytes, list): the pickled body (with the context id when ``ctx`` is given) and the
        arrays' buffers, sent out of band.
    """
    f = io.BytesIO()
    p = _Pickler(f, ctx, dest)
    p.dump(obj)
    ctx_id = None if ctx is None else ctx.id
    buffers = []
    body = pickle.dumps((f.getvalue(), p.tensors, ctx_id), protocol=5,
                        buffer_callback=buffers.append)
    return body, [b.raw() for b in buffers]


def loads(msg, sender):
    """Inverse of :func:`dumps` (``msg`` is its ``(body, buffers)``); ``sender`` is the peer.

    Returns:
        (object, context or None): the message and the autograd context it belongs to.
    """
    data, buffers = msg
    body, tensors, ctx_id = pickle.loads(data, buffers=buffers)
    ctx = None
    if ctx_id is not None:
        from ..autograd import _context

        ctx = _context.get_or_create(ctx_id)
        ctx.peers.add(sender)
    u = _Unpickler(io.BytesIO(body), tensors, ctx, sender)
    return u.load(), ctx
