"""``WorkerInfo``: a worker's name and id, as ``get_worker_info`` returns it."""


class WorkerInfo:
    """The identity of one RPC worker.

    Args:
        name (str): the name the worker gave ``init_rpc``.
        id (int): its rank in the RPC group.
    """

    __slots__ = ("id", "name")

    def __init__(self, name, id):
        self.name = name
        self.id = id

    def __eq__(self, other):
        return isinstance(other, WorkerInfo) and (self.id, self.name) == (other.id, other.name)

    def __hash__(self):
        return hash((self.id, self.name))

    def __repr__(self):
        return f"WorkerInfo(id={self.id}, name={self.name})"

    __str__ = __repr__

    def __reduce__(self):
        return WorkerInfo, (self.name, self.id)
