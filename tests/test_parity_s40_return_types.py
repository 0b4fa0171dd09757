"""torch.return_types.* behave as torch 2.13's struct sequences (oracle: real torch at test
time): fields, repr, indexing, pickling, construction and its errors, no ``_fields``, and what
collate and pytree make of them."""

import copy
import pickle

import pytest

from tests.oracle import same

X = [[3.0, 1.0, 4.0], [2.0, 5.0, 0.0]]

RESULTS = {
    "max": lambda t, x: t.max(x, 0),
    "min": lambda t, x: x.min(dim=1, keepdim=True),
    "sort": lambda t, x: t.sort(x, 1),
    "topk": lambda t, x: t.topk(x, 2),
    "kthvalue": lambda t, x: t.kthvalue(x, 1),
    "median": lambda t, x: t.median(x, 0),
    "mode": lambda t, x: t.mode(x, 0),
    "cummax": lambda t, x: t.cummax(x, 1),
    "aminmax": lambda t, x: t.aminmax(x),
    "frexp": lambda t, x: t.frexp(x),
    "histogram": lambda t, x: t.histogram(x, 3),
    "linalg_slogdet": lambda t, x: t.linalg.slogdet(x[:, :2]),
    "linalg_qr": lambda t, x: t.linalg.qr(x),
    "svd": lambda t, x: t.svd(t.diag(t.tensor([3.0, 2.0]))),
    "max_out": lambda t, x: t.max(x, 0, out=(t.empty(0), t.empty(0, dtype=t.long))),
}


def _shape_of(r):
    cls = type(r)
    return (cls.__name__, cls.__qualname__, [c.__name__ for c in cls.__mro__], repr(r), str(r),
            isinstance(r, tuple), len(r), hasattr(r, "_fields"), hasattr(r, "_asdict"),
            cls.n_fields, cls.n_sequence_fields, cls.n_unnamed_fields, cls.__match_args__,
            cls.__doc__, sorted(n for n in dir(cls) if not n.startswith("_")))


@pytest.mark.parametrize("name", sorted(RESULTS))
def test_result_type_shape(name):
    same(lambda t: _shape_of(RESULTS[name](t, t.tensor(X))))


@pytest.mark.parametrize("name", sorted(RESULTS))
def test_result_pickles_copies_and_indexes(name):
    def run(t):
        r = RESULTS[name](t, t.tensor(X))
        back = pickle.loads(pickle.dumps(r))
        return (type(back).__name__, repr(back), repr(copy.deepcopy(r)), list(r[::-1]), r[-1],
                type(r + r).__name__, r.count(r[0]), r.index(r[1]), r.__reduce__()[1][1:])

    same(run, rtol=1e-6)


CTORS = {
    "tuple": lambda T, x: T((1, 2)),
    "list": lambda T, x: T([1, 2]),
    "two_positional": lambda T, x: T(1, 2),
    "keywords": lambda T, x: T(values=1, indices=2),
    "too_long": lambda T, x: T((1, 2, 3)),
    "too_short": lambda T, x: T((1,)),
    "tensor": lambda T, x: T(x),
    "iterator": lambda T, x: T(iter([1, 2])),
    "with_dict": lambda T, x: T((1, 2), {}),
    "with_none": lambda T, x: T((1, 2), None),
    "nothing": lambda T, x: T(),
    "string": lambda T, x: T("ab"),
    "sequence_keyword": lambda T, x: T(sequence=(1, 2)),
    "unknown_keyword": lambda T, x: T((1, 2), foo=1),
}


@pytest.mark.parametrize("name", sorted(CTORS))
def test_construction_and_its_errors(name):
    same(lambda t: tuple(CTORS[name](t.return_types.max, t.tensor(X[:2]))))


def test_fields_are_read_only_and_type_closed():
    def run(t):
        r = t.max(t.tensor(X), 0)
        out = []
        for act in (lambda: setattr(r, "foo", 1), lambda: setattr(r, "values", 1),
                    lambda: delattr(r, "values")):
            try:
                act()
                out.append("ok")
            except AttributeError as e:
                out.append(str(e))
        try:
            type("S", (t.return_types.max,), {})
            out.append("subclassed")
        except TypeError as e:
            out.append(str(e))
        return out

    same(run)


def test_collate_and_pytree_see_a_struct_sequence():
    def run(t):
        from importlib import import_module

        pytree = import_module(t.__name__ + ".utils._pytree")
        collate = import_module(t.__name__ + ".utils.data").default_collate
        r = t.max(t.tensor(X), 0)
        leaves, spec = pytree.tree_flatten(r)
        back = pytree.tree_unflatten([v * 2 for v in leaves], spec)
        c = collate([r, r])
        return (len(leaves), str(spec), type(back).__name__, back, pytree.is_namedtuple(r),
                pytree.is_structseq(r), pytree.is_structseq_class(type(r)),
                str(pytree.tree_flatten_with_path(r)[0][1][0]), type(c).__name__, c)

    same(run)


def test_subclass_results_keep_the_type():
    def run(t):
        class S(t.Tensor):
            pass

        r = t.max(t.tensor(X).as_subclass(S), 0)
        return type(r).__name__, type(r[0]).__name__, type(r.indices).__name__

    same(run)
