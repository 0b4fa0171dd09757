"""First-order optimizers in Lua's functional form.

Each takes ``opfunc`` (``x -> (f(x), df/dx)``), the parameter tensor ``x`` (updated in
place), a ``config`` dict of hyper-parameters (Lua's names: ``learningRate``,
``weightDecay``, ...) and a ``state`` dict that persists between calls (``config`` itself
when not given, as in Lua), and returns ``x, [f(x)]`` with ``f`` evaluated before the step.
As in Lua, a weight decay is added into the gradient tensor returned by ``opfunc``.
"""

__all__ = ["sgd", "nag", "asgd", "adagrad", "adadelta", "rmsprop", "adam", "adamax", "rprop"]


def _setup(config, state):
    config = {} if config is None else config
    return config, (config if state is None else state)


def _decay(dfdx, x, config, state):
    wd = config.get("weightDecay", 0)
    wds = config.get("weightDecays")
    if wd:
        dfdx.add_(x, alpha=wd)
    elif wds is not None:
        dfdx.addcmul_(wds, x)
    return dfdx


def _step(x, dfdx, clr, config):
    rates = config.get("learningRates")
    if rates is None:
        x.add_(dfdx, alpha=-clr)
    else:
        x.addcmul_(rates, dfdx, value=-clr)


def sgd(opfunc, x, config=None, state=None):
    """Stochastic gradient descent with ``momentum``, ``dampening`` (default: the momentum),
    ``nesterov``, ``weightDecay``/``weightDecays`` and per-element ``learningRates``; the
    rate is ``learningRate / (1 + nEvals * learningRateDecay)``."""
    config, state = _setup(config, state)
    lr = config.get("learningRate", 1e-3)
    lrd = config.get("learningRateDecay", 0)
    mom = config.get("momentum", 0)
    damp = config.get("dampening", mom)
    nesterov = config.get("nesterov", False)
    if nesterov and (mom <= 0 or damp != 0):
        raise ValueError("Nesterov momentum requires a momentum and zero dampening")
    nevals = state.setdefault("evalCounter", 0)
    fx, dfdx = opfunc(x)
    _decay(dfdx, x, config, state)
    if mom != 0:
        if state.get("dfdx") is None:
            state["dfdx"] = dfdx.clone()
        else:
            state["dfdx"].mul_(mom).add_(dfdx, alpha=1 - damp)
        if nesterov:
            dfdx = dfdx.add(state["dfdx"], alpha=mom)
        else:
            dfdx = state["dfdx"]
    _step(x, dfdx, lr / (1 + nevals * lrd), config)
    state["evalCounter"] = nevals + 1
    return x, [fx]


def nag(opfunc, x, config=None, state=None):
    """Nesterov's accelerated gradient in Sutskever's form: first move along the momentum
    vector, evaluate the gradient there, then step and update the momentum."""
    config, state = _setup(config, state)
    lr = config.get("learningRate", 1e-3)
    lrd = config.get("learningRateDecay", 0)
    mom = config.get("momentum", 0.9)
    if mom <= 0:
        raise ValueError("Momentum must be positive for Nesterov Accelerated Gradient")
    nevals = state.setdefault("evalCounter", 0)
    clr = lr / (1 + nevals * lrd)
    if state.get("dfdx") is None:
        state["dfdx"] = x.new_zeros(x.shape)
    else:
        x.add_(state["dfdx"], alpha=mom)
    fx, dfdx = opfunc(x)
    _decay(dfdx, x, config, state)
    _step(x, dfdx, clr, config)
    state["dfdx"].mul_(mom).add_(dfdx, alpha=-clr)
    state["evalCounter"] = nevals + 1
    return x, [fx]


def asgd(opfunc, x, config=None, state=None):
    """Averaged SGD: ``x <- (1 - lambda eta_t) x - eta_t df/dx``, with the running average
    ``ax`` (returned third) kept from step ``t0`` on; ``eta_t = eta0 / (1 + lambda eta0
    t)^alpha``."""
    config, state = _setup(config, state)
    eta0 = config.get("eta0", 1e-4)
    lam = config.get("lambda", 1e-4)
    alpha = config.get("alpha", 0.75)
    t0 = config.get("t0", 1e6)
    state.setdefault("eta_t", eta0)
    state.setdefault("mu_t", 1)
    state.setdefault("t", 0)
    fx, dfdx = opfunc(x)
    x.mul_(1 - lam * state["eta_t"])
    x.add_(dfdx, alpha=-state["eta_t"])
    if state["mu_t"] != 1 and state.get("ax") is not None:
        state["ax"].add_(x - state["ax"], alpha=state["mu_t"])
    else:
        state["ax"] = x.clone()
    state["t"] += 1
    state["eta_t"] = eta0 / (1 + lam * eta0 * state["t"]) ** alpha
    state["mu_t"] = 1 / max(1, state["t"] - t0)
    return x, [fx], state["ax"]


def adagrad(opfunc, x, config=None, state=None):
    """AdaGrad: steps scaled by ``1 / (sqrt(sum of squared gradients) + 1e-10)``."""
    config, state = _setup(config, state)
    lr = config.get("learningRate", 1e-3)
    lrd = config.get("learningRateDecay", 0)
    nevals = state.setdefault("evalCounter", 0)
    fx, dfdx = opfunc(x)
    _decay(dfdx, x, config, state)
    clr = lr / (1 + nevals * lrd)
    if state.get("paramVariance") is None:
        state["paramVariance"] = x.new_zeros(dfdx.shape)
    state["paramVariance"].addcmul_(dfdx, dfdx)
    state["paramStd"] = state["paramVariance"].sqrt().add_(1e-10)
    x.addcdiv_(dfdx, state["paramStd"], value=-clr)
    state["evalCounter"] = nevals + 1
    return x, [fx]


def adadelta(opfunc, x, config=None, state=None):
    """AdaDelta (Zeiler): no learning rate; decay ``rho`` and ``eps`` inside the roots."""
    config, state = _setup(config, state)
    rho = config.get("rho", 0.9)
    eps = config.get("eps", 1e-6)
    state.setdefault("evalCounter", 0)
    fx, dfdx = opfunc(x)
    _decay(dfdx, x, config, state)
    if state.get("paramVariance") is None:
        state["paramVariance"] = x.new_zeros(dfdx.shape)
        state["accDelta"] = x.new_zeros(dfdx.shape)
    state["paramVariance"].mul_(rho).addcmul_(dfdx, dfdx, value=1 - rho)
    state["paramStd"] = (state["paramVariance"] + eps).sqrt()
    state["delta"] = (state["accDelta"] + eps).sqrt().div_(state["paramStd"]).mul_(dfdx)
    x.sub_(state["delta"])
    state["accDelta"].mul_(rho).addcmul_(state["delta"], state["delta"], value=1 - rho)
    state["evalCounter"] += 1
    return x, [fx]


def rmsprop(opfunc, x, config=None, state=None):
    """RMSprop: steps scaled by ``1 / (sqrt(m) + epsilon)`` with ``m`` the ``alpha``-decayed
    mean of squared gradients (starting at zero)."""
    config, state = _setup(config, state)
    lr = config.get("learningRate", 1e-2)
    alpha = config.get("alpha", 0.99)
    eps = config.get("epsilon", 1e-8)
    fx, dfdx = opfunc(x)
    _decay(dfdx, x, config, state)
    if state.get("m") is None:
        state["m"] = x.new_zeros(dfdx.shape)
    state["m"].mul_(alpha).addcmul_(dfdx, dfdx, value=1 - alpha)
    state["tmp"] = state["m"].sqrt().add_(eps)
    x.addcdiv_(dfdx, state["tmp"], value=-lr)
    return x, [fx]


def adam(opfunc, x, config=None, state=None):
    """Adam; the bias corrections scale the step (Lua's form: ``epsilon`` is added to
    ``sqrt(v)`` before the correction)."""
    config, state = _setup(config, state)
    lr = config.get("learningRate", 1e-3)
    lrd = config.get("learningRateDecay", 0)
    beta1 = config.get("beta1", 0.9)
    beta2 = config.get("beta2", 0.999)
    eps = config.get("epsilon", 1e-8)
    fx, dfdx = opfunc(x)
    _decay(dfdx, x, config, state)
    t = state.get("t", 0)
    clr = lr / (1 + t * lrd)
    if state.get("m") is None:
        state["m"] = x.new_zeros(dfdx.shape)
        state["v"] = x.new_zeros(dfdx.shape)
    state["t"] = t = t + 1
    state["m"].mul_(beta1).add_(dfdx, alpha=1 - beta1)
    state["v"].mul_(beta2).addcmul_(dfdx, dfdx, value=1 - beta2)
    state["denom"] = state["v"].sqrt().add_(eps)
    step = clr * (1 - beta2 ** t) ** 0.5 / (1 - beta1 ** t)
    x.addcdiv_(state["m"], state["denom"], value=-step)
    return x, [fx]


def adamax(opfunc, x, config=None, state=None):
    """AdaMax: Adam with the infinity norm, ``u = max(beta2 u, |g| + epsilon)``."""
    config, state = _setup(config, state)
    lr = config.get("learningRate", 0.002)
    beta1 = config.get("beta1", 0.9)
    beta2 = config.get("beta2", 0.999)
    eps = config.get("epsilon", 1e-38)
    fx, dfdx = opfunc(x)
    _decay(dfdx, x, config, state)
    if state.get("m") is None:
        state["t"] = 0
        state["m"] = x.new_zeros(dfdx.shape)
        state["u"] = x.new_zeros(dfdx.shape)
    state["t"] += 1
    state["m"].mul_(beta1).add_(dfdx, alpha=1 - beta1)
    state["u"] = (state["u"] * beta2).maximum(dfdx.abs().add_(eps))
    x.addcdiv_(state["m"], state["u"], value=-lr / (1 - beta1 ** state["t"]))
    return x, [fx]


def rprop(opfunc, x, config=None, state=None):
    """Resilient backpropagation: per-element step sizes grow by ``etaplus`` while the
    gradient keeps its sign and shrink by ``etaminus`` when it flips (that element then
    pauses a step); ``niter`` evaluations per call, all returned."""
    config, state = _setup(config, state)
    stepsize = config.get("stepsize", 0.1)
    etaplus = config.get("etaplus", 1.2)
    etaminus = config.get("etaminus", 0.5)
    smax = config.get("stepsizemax", 50.0)
    smin = config.get("stepsizemin", 1e-6)
    niter = config.get("niter", 1)
    fs = []
    for _ in range(niter):
        fx, dfdx = opfunc(x)
        fs.append(fx)
        if state.get("delta") is None:
            state["delta"] = x.new_zeros(dfdx.shape)
            state["stepsize"] = x.new_full(dfdx.shape, stepsize)
        agree = (dfdx.sign() * state["delta"].sign())
        factor = x.new_ones(dfdx.shape)
        factor[agree > 0] = etaplus
        factor[agree < 0] = etaminus
        state["stepsize"].mul_(factor).clamp_(smin, smax)
        dfdx = dfdx.masked_fill(agree < 0, 0)
        x.addcmul_(dfdx.sign(), state["stepsize"], value=-1)
        state["delta"].copy_(dfdx)
    return x, fs
