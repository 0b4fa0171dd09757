"""Data real programs hand to tensor constructors, compared with torch.

pytorch/examples' reinforce.py builds its discounted returns in a ``collections.deque`` and
calls ``torch.tensor(returns)``: torch takes any Python sequence (anything with ``__len__``
and ``__getitem__`` that is not a string, bytes or a mapping), not only lists and tuples.
"""

import array
import collections

import pytest

from tests import oracle


class _Seq:
    """A user-defined read-only sequence."""

    def __init__(self, items):
        self._items = list(items)

    def __len__(self):
        return len(self._items)

    def __getitem__(self, i):
        return self._items[i]


DATA = {
    "deque_float": lambda lib: collections.deque([1.0, 2.5]),
    "deque_int": lambda lib: collections.deque([1, 2]),
    "deque_empty": lambda lib: collections.deque(),
    "deque_of_tensors": lambda lib: collections.deque([lib.tensor(1.0), lib.tensor(2.0)]),
    "deque_appendleft": lambda lib: _returns(lib),
    "userlist": lambda lib: collections.UserList([1, 2]),
    "user_sequence": lambda lib: _Seq([[1, 2], [3, 4]]),
    "array_f": lambda lib: array.array("f", [1, 2]),
    "array_i": lambda lib: array.array("i", [3, 4]),
    "bytearray": lambda lib: bytearray(b"ab"),
    "memoryview": lambda lib: memoryview(b"ab"),
    "list_of_deques": lambda lib: [collections.deque([1, 2]), collections.deque([3, 4])],
    # still refused, as by torch
    "set": lambda lib: {1, 2},
    "dict": lambda lib: {1: 2},
    "dict_keys": lambda lib: {1: 2}.keys(),
    "generator": lambda lib: (i for i in range(2)),
    "str": lambda lib: "ab",
    "bytes": lambda lib: b"ab",
}


def _returns(lib, gamma=0.99):
    # reinforce.py's loop: discounted returns pushed to the front of a deque
    R, returns = 0.0, collections.deque()
    for r in [1.0, 1.0, 1.0]:
        R = r + gamma * R
        returns.appendleft(R)
    return returns


@pytest.mark.parametrize("name", sorted(DATA))
def test_tensor_from_python_sequence(name):
    oracle.same(lambda lib: lib.tensor(DATA[name](lib)))


@pytest.mark.parametrize("name", ["deque_float", "userlist", "array_f", "user_sequence", "set",
                                  "dict", "generator"])
@pytest.mark.parametrize("ctor", ["as_tensor", "FloatTensor", "LongTensor", "Tensor"])
def test_constructors_from_python_sequence(name, ctor):
    oracle.same(lambda lib: getattr(lib, ctor)(DATA[name](lib)))


def test_normalised_returns_as_reinforce_computes_them():
    def run(lib):
        returns = lib.tensor(_returns(lib))
        return (returns - returns.mean()) / (returns.std() + 1e-7)
    oracle.same(run, rtol=1e-6)
