"""Session 50 (programs): what real programs call that numtorch lacked or did differently,
each checked against torch at test time.

- torch.utils.module_tracker.ModuleTracker (missing): the module names in ``parents`` and
  ``is_bw`` seen from inside forward and backward, as torch gives them.
"""

import pytest
import torch

import numtorch


def _tracker_log(lib):
    """Run a nested model under a ModuleTracker and record, from inside a custom Function,
    the modules it says are running (forward and backward) and ``is_bw``."""
    from importlib import import_module

    ModuleTracker = import_module(lib.__name__ + ".utils.module_tracker").ModuleTracker
    nn = lib.nn
    log = []
    box = {}

    class ProbeFn(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            log.append(("f", sorted(box["t"].parents), box["t"].is_bw))
            return x.clone()

        @staticmethod
        def backward(ctx, g):
            log.append(("b", sorted(box["t"].parents), box["t"].is_bw))
            return g

    class Probe(nn.Module):
        def forward(self, x):
            return ProbeFn.apply(x)

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(4, 4)
            self.p = Probe()

        def forward(self, x):
            return self.p(self.lin(x)).relu()

    lib.manual_seed(0)
    net = nn.Sequential(Block(), nn.ModuleDict({"a": Block()}), Probe())
    x = lib.randn(2, 4)
    with ModuleTracker() as t:
        box["t"] = t
        y = net[2](net[1]["a"](net[0](x)))
        log.append(("after forward", sorted(t.parents), t.is_bw))
        y.sum().backward()
        log.append(("after backward", sorted(t.parents), t.is_bw))
        # an input that needs grad: the outer module leaves only when its input's grad is done
        y = net[0](x)
        y.sum().backward()
    log.append(("exit", sorted(t.parents), t.is_bw))
    with ModuleTracker() as t2:
        box["t"] = t2
        outer = nn.Sequential(Probe(), nn.Sequential(Probe()))
        outer(lib.ones(1, requires_grad=True)).sum().backward()
    return log


def test_module_tracker_parents_forward_and_backward():
    assert _tracker_log(numtorch) == _tracker_log(torch)


# -- torch.jit.script / trace give script objects (they returned their input before) --------

def _net_class(lib):
    nn = lib.nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(3, 2)
            self.bn = nn.BatchNorm1d(2)
            self.seq = nn.Sequential(nn.ReLU())
            self.scale = 2.0

        def helper(self, x):
            return x * self.scale

        def forward(self, x):
            return self.seq(self.helper(self.bn(self.fc(x))))

    return Net


# module-level classes, so that jit.save can pickle them
_NetTorch = _net_class(torch)
_NetTorch.__qualname__ = "_NetTorch"
_NetNumtorch = _net_class(numtorch)
_NetNumtorch.__qualname__ = "_NetNumtorch"
_NETS = {"torch": _NetTorch, "numtorch": _NetNumtorch}


def _quiet(fn):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn()


def _outcome(fn):
    try:
        return ("ok", fn())
    except Exception as e:  # noqa: BLE001 (the class and message are compared)
        return (type(e).__name__, str(e))


def _scripted_facts(lib, how):
    lib.manual_seed(0)
    m = _NETS[lib.__name__]()
    x = lib.randn(4, 3)
    if how == "script":
        s = _quiet(lambda: lib.jit.script(m))
    else:
        s = _quiet(lambda: lib.jit.trace(m, x))
    facts = [type(s).__name__, type(s.fc).__name__, type(s.seq).__name__, repr(s)]
    facts += [isinstance(s, lib.jit.ScriptModule), isinstance(s, lib.nn.Module),
              isinstance(s.fc, lib.jit.ScriptModule)]
    facts += [s.fc.weight is m.fc.weight, s.bn.running_mean is m.bn.running_mean,
              list(s.state_dict()), [n for n, _ in s.named_modules()]]
    facts.append(lib.equal(s(x), m(x)))
    s.eval()
    facts += [s.training, s.bn.training, m.training, m.bn.training]
    if how == "script":  # (a traced module keeps no plain attributes in torch)
        facts.append(s.scale)
        m.scale = 5.0  # the copy keeps its own attributes
        facts.append(s.scale)
        facts.append(s.original_name)
        facts.append(tuple(s.helper(x).shape))
    with lib.no_grad():
        m.fc.bias.fill_(7.0)
    facts.append(s.fc.bias.tolist())
    s.to(lib.float64)  # parameters are shared objects: the original's move too
    facts.append((str(m.fc.weight.dtype), s.fc.weight is m.fc.weight))
    return facts


@pytest.mark.parametrize("how", ["script", "trace"])
def test_jit_module_copy_as_torch(how):
    assert _scripted_facts(numtorch, how) == _scripted_facts(torch, how)


def _function_facts(lib):
    import copy
    import pickle

    def f(x, y: int = 2):
        "doc of f"
        return x * y

    sf = _quiet(lambda: lib.jit.script(f))
    tf = _quiet(lambda: lib.jit.trace(f, (lib.ones(2),)))
    return [isinstance(sf, lib.jit.ScriptFunction), type(sf).__name__, sf.name,
            sf.qualified_name, sf.__doc__, sf(lib.ones(2), 3).tolist(),
            _quiet(lambda: lib.jit.script(sf)) is sf, _outcome(lambda: pickle.dumps(sf)),
            isinstance(tf, lib.jit.ScriptFunction), tf.name, tf(lib.ones(2)).tolist(),
            isinstance(lib.jit.ScriptFunction, type), _outcome(lambda: copy.deepcopy(sf)),
            _outcome(lambda: copy.copy(sf))]


def test_jit_function_as_torch():
    assert _function_facts(numtorch) == _function_facts(torch)


def _serialise_facts(lib, tmp_path):
    import copy
    import io
    import pickle

    lib.manual_seed(0)
    m = _NETS[lib.__name__]()
    x = lib.randn(4, 3)
    s = _quiet(lambda: lib.jit.script(m))
    t = _quiet(lambda: lib.jit.trace(m, x))
    facts = [_outcome(lambda: pickle.dumps(s)), _outcome(lambda: lib.save(s, io.BytesIO()))]
    for obj in (s, t):
        buf = io.BytesIO()
        _quiet(lambda obj=obj, buf=buf: lib.jit.save(obj, buf))
        buf.seek(0)
        back = _quiet(lambda buf=buf: lib.jit.load(buf))
        facts += [type(back).__name__, repr(back), lib.equal(back(x), m(x)),
                  back.fc.weight is m.fc.weight]
    path = str(tmp_path / f"{lib.__name__}.pt")
    _quiet(lambda: s.save(path))
    facts.append(type(_quiet(lambda: lib.jit.load(path))).__name__)
    c = copy.deepcopy(s)
    facts += [type(c).__name__, c.fc.weight is s.fc.weight, lib.equal(c(x), s(x))]
    return facts


def test_jit_save_load_pickle_copy_as_torch(tmp_path):
    assert _serialise_facts(numtorch, tmp_path) == _serialise_facts(torch, tmp_path)


def _freeze_facts(lib):
    lib.manual_seed(0)
    m = _NETS[lib.__name__]()
    x = lib.randn(4, 3)
    s = _quiet(lambda: lib.jit.script(m))
    facts = [_outcome(lambda: _quiet(lambda: lib.jit.freeze(m.eval()))),
             _outcome(lambda: _quiet(lambda: lib.jit.freeze(s.train()))),
             _outcome(lambda: _quiet(lambda: lib.jit.optimize_for_inference(m)))]
    for fn in (lib.jit.freeze, lib.jit.optimize_for_inference):
        fz = _quiet(lambda fn=fn: fn(s.eval()))
        facts += [type(fz).__name__, fz is s, lib.allclose(fz(x), m.eval()(x))]
    return facts


def test_jit_freeze_as_torch():
    assert _freeze_facts(numtorch) == _freeze_facts(torch)


def _container_reprs(lib):
    nn = lib.nn
    mods = [nn.ModuleList([nn.Linear(2, 2) for _ in range(3)]),
            nn.Sequential(nn.ReLU(), nn.ReLU()), nn.ModuleDict({"a": nn.Tanh()})]
    return [repr(_quiet(lambda m=m: lib.jit.script(m))) for m in mods]


def test_jit_script_container_repr_as_torch():
    # containers print as any scripted module (ModuleList's folding of repeats is not used)
    assert _container_reprs(numtorch) == _container_reprs(torch)


def _copy_facts(lib):
    import copy
    import pickle
    import re

    m = lib.nn.Sequential(lib.nn.Linear(2, 2))
    facts = []
    for s in (_quiet(lambda: lib.jit.trace(m, lib.ones(1, 2))), _quiet(lambda: lib.jit.script(m))):
        c = copy.copy(s)
        facts += [type(c).__name__, c is s, c._modules["0"] is s._modules["0"],
                  c._modules["0"].weight is s._modules["0"].weight]
        kind, msg = _outcome(lambda s=s: pickle.dumps(s))
        # torch mangles the names of a class's later compiles in a process
        facts.append((kind, re.sub(r"___torch_mangle_\d+\.", "", msg)))
    c.train(False)  # a scripted module's copy has its own flag
    facts.append(s.training)
    return facts


def test_jit_copy_and_pickle_error_of_builtin_modules_as_torch():
    assert _copy_facts(numtorch) == _copy_facts(torch)


# -- warnings shown at the caller's line (they pointed at numtorch's own frames) -------------

def _warned_at(lib, what):
    import warnings

    class NoConstraints(lib.distributions.Distribution):
        def __init__(self):
            super().__init__(validate_args=True)

    class NoSupport(lib.distributions.Distribution):
        arg_constraints = {}  # noqa: RUF012

        def __init__(self):
            super().__init__(batch_shape=lib.Size(), validate_args=True)

        def log_prob(self, value):
            self._validate_sample(value)
            return value

    calls = {
        "schedule": lambda: lib.profiler.schedule(wait=0, warmup=0, active=1),
        "use_cuda": lambda: lib.profiler.profile(use_cuda=True),
        "sample_n": lambda: lib.distributions.Normal(0.0, 1.0).sample_n(2),
        "arg_constraints": lambda: NoConstraints(),
        "support": lambda: NoSupport().log_prob(lib.zeros(())),
        "wishart": lambda: lib.distributions.Wishart(lib.tensor(1.5), lib.eye(2)),
    }
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        calls[what]()
    return [(w.category.__name__, str(w.message), w.filename, w.lineno) for w in caught]


@pytest.mark.parametrize("what", ["schedule", "use_cuda", "sample_n", "arg_constraints",
                                  "support", "wishart"])
def test_warning_location_and_text_as_torch(what):
    got, want = _warned_at(numtorch, what), _warned_at(torch, what)
    assert got == want and want


def _trace_run_facts(lib):
    facts = []
    lib.manual_seed(0)
    x = lib.randn(4, 2)
    for kw in ({}, {"check_trace": False}, {"check_inputs": [(x,), (x * 2,)]}):
        lib.manual_seed(0)
        m = lib.nn.Sequential(lib.nn.Linear(2, 2), lib.nn.BatchNorm1d(2))
        _quiet(lambda m=m, kw=kw: lib.jit.trace(m, x, **kw))
        bn = m[1]
        stats = [round(v, 5) for v in bn.running_mean.tolist()]
        facts.append((bn.num_batches_tracked.item(), stats))
    facts.append(_outcome(lambda: _quiet(lambda: lib.jit.trace(lib.nn.Linear(2, 2), lib.ones(3)))))
    facts.append(_outcome(lambda: _quiet(lambda: lib.jit.trace(lambda a: (a, {"k": a}), (x,)))))
    relaxed = _quiet(lambda: lib.jit.trace(lambda a: {"k": a}, (x,), strict=False))
    facts.append(sorted(relaxed(x)))

    class TwoMethods(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.bn = lib.nn.BatchNorm1d(2)

        def forward(self, a):
            return self.bn(a)

        def other(self, a):
            return self.bn(a * 2)

    for kw in ({}, {"check_trace": False}):  # (the order of the runs shows in the statistics)
        m = TwoMethods()
        t = _quiet(lambda m=m, kw=kw: lib.jit.trace_module(m, {"forward": x, "other": (x,)},
                                                           **kw))
        facts += [m.bn.num_batches_tracked.item(), type(t).__name__,
                  [round(v, 5) for v in m.bn.running_mean.tolist()]]
    return facts


def test_jit_trace_runs_the_module_as_torch():
    # torch's trace runs the code at trace time (5 runs with the default check): batch-norm
    # statistics move and shape errors show then; a dict output needs strict=False
    assert _trace_run_facts(numtorch) == _trace_run_facts(torch)
