"""torch.utils._pytree against torch's: flattening, specs and their printed form, maps,
key paths, registration and the errors, by one user-style program run on each library."""

import collections
import contextlib
import dataclasses
import io

import torch
import torch.utils._pytree as torch_pytree

import numtorch
import numtorch.utils._pytree as nt_pytree


def _program(torch, p):
    P = collections.namedtuple('P', 'x y')
    trees = [{'b': (1, [2, 3]), 'a': None}, [1, (2,)], P(1, (2,)), [], (), {}, None, 5,
             collections.OrderedDict(a=1, b=[2]), collections.defaultdict(list, a=1),
             collections.deque([1, 2], maxlen=3), [torch.ones(2), {'k': torch.zeros(1)}]]
    for t in trees:
        l, s = p.tree_flatten(t)
        print(len(l), repr(s), s.num_leaves, s.num_nodes, s.is_leaf())
        back = p.tree_unflatten(l, s)
        has_tensors = isinstance(t, list) and t and isinstance(t[0], torch.Tensor)
        print(type(back).__name__, "" if has_tensors else back == t)
    print(p.tree_map(lambda a, b: a + b, [1, 2], [10, 20]))
    for bad in ([10], (10, 20)):
        try:
            p.tree_map(lambda a, b: a + b, [1, 2], bad)
        except Exception as e:  # noqa: BLE001  (printed, as torch's)
            print(type(e).__name__, e)
    try:
        p.tree_unflatten([1], p.tree_structure(P(1, (2,))))
    except Exception as e:  # noqa: BLE001  (printed, as torch's)
        print(type(e).__name__, e)
    try:
        p.tree_unflatten([1], 'x')
    except Exception as e:  # noqa: BLE001  (printed, as torch's)
        print(type(e).__name__, e)
    print(p.tree_leaves([1, [2, 3]], is_leaf=lambda x: isinstance(x, list) and len(x) == 2))
    print(p.tree_map_only((int, float), str, [1, 2.0, 'a']))
    print(p.tree_map_only(torch.Tensor, lambda t: t * 2, {'a': torch.ones(2), 'b': 3}))
    @dataclasses.dataclass
    class D:
        a: int
        b: list
    p.register_dataclass(D)
    print(p.tree_flatten(D(1, [2])))
    print(p.keystr(p.tree_flatten_with_path({'a': [1, P(3, 4)]})[0][2][0]))
    print(p.tree_leaves_with_path({'a': [1, P(3, 4)]}))
    print(p.tree_map_with_path(lambda kp, x: p.keystr(kp) + str(x), {'a': [1, 2]}))
    print(p.tree_structure(5), p.tree_all(lambda x: x > 0, [1, 2]), p.tree_any(lambda x: x > 1, [1]))
    try:
        p.register_pytree_node(list, lambda x: (x, None), lambda v, c: v)
    except Exception as e:  # noqa: BLE001  (printed, as torch's)
        print(type(e).__name__, e)
    class Pt:
        def __init__(s, a, b):
            s.a, s.b = a, b
    p.register_pytree_node(Pt, lambda o: ([o.a, o.b], None), lambda v, c: Pt(*v))
    print(p.tree_flatten(Pt(1, [2])), p.tree_map(lambda x: x + 1, Pt(1, 2)).b)
    print(list(p.tree_iter([1, [2]])))
    print(p.key_get({'a': [1, P(3, 4)]}, p.tree_flatten_with_path({'a': [1, P(3, 4)]})[0][2][0]))
    print(p.tree_structure((1, 2)) == p.tree_structure((3, 4)), hash(p.tree_structure({'a': 1})) == hash(p.tree_structure({'a': 2})))
    print(p.treespec_tuple([p.treespec_leaf(), p.treespec_leaf()]), p.treespec_dict(a=p.treespec_leaf()))
    print(p.tree_structure(P(1, 2)).unflatten([5, 6]), p.tree_structure([1, [2]]).flatten_up_to([[9], [8]]))
    x = []
    p.tree_map_(x.append, [1, (2, 3)]); print(x)
    print(p.tree_all_only(int, lambda v: v > 0, [1, 'a', -1.0]), p.tree_any_only(str, lambda v: v == 'a', [1, 'a']))
    print(p.is_namedtuple(P), p.is_namedtuple(P(1, 2)), p.is_namedtuple((1,)), p.tree_is_leaf([1]), p.tree_is_leaf(3))


def _run(lib, mod):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        _program(lib, mod)
    return buf.getvalue().splitlines()


def test_pytree_program_prints_what_torch_prints():
    expected = _run(torch, torch_pytree)
    got = _run(numtorch, nt_pytree)
    assert len(got) == len(expected)
    for e, g in zip(expected, got):
        assert g == e


def test_torch_func_uses_the_same_trees():
    import numtorch.func
    P = collections.namedtuple("P", "x y")
    x = numtorch.ones(3)
    out = numtorch.func.vmap(lambda d: P(d["a"] * 2, collections.OrderedDict(b=d["a"] + 1)))(
        {"a": numtorch.ones(4, 3)})
    assert type(out) is P and type(out.y) is collections.OrderedDict
    assert out.x.shape == (4, 3) and out.y["b"].shape == (4, 3)
    g = numtorch.func.grad(lambda t: (t[0] * t[1]).sum())(P(x, x * 2))
    assert type(g) is P and numtorch.equal(g.x, x * 2) and numtorch.equal(g.y, x)


def _vmap_errors(lib):
    x = lib.ones(3, 2)
    out = []
    for args, ind in [((x,), (0, 0)), ((x,), ({"a": 0},)), (({"a": x},), ({"b": 0},))]:
        try:
            lib.func.vmap(lambda a: a, in_dims=ind)(*args)
        except ValueError as e:
            out.append(str(e))
    return out


def test_vmap_structure_errors_print_torch_specs():
    assert _vmap_errors(numtorch) == _vmap_errors(torch)
