"""Train a small classifier with numtorch tensors and autograd: ``python examples/train_small.py``.

A two-layer MLP learns to separate the two arms of a synthetic spiral. The weights are plain
leaf tensors with ``requires_grad=True`` and the update is hand-written SGD with momentum under
``torch.no_grad()``: everything the ``nn`` and ``optim`` packages will later wrap is visible here.

The code is written against the module passed as ``torch`` (numtorch by default), so the same
function also runs on real PyTorch; the tests use that to compare the two loss curves.
"""

import argparse
import math
import sys
import time

import numtorch

__all__ = ["make_spiral", "init_params", "train", "main"]


def make_spiral(n_per_class=100, *, noise=0.15, turns=1.25, torch=numtorch, dtype=None):
    """Sample a two-class spiral in the plane.

    Each class is one arm of a spiral; the second arm is the first rotated by half a turn, so
    the classes are not linearly separable.

    Args:
        n_per_class (int): points per class. Default: 100.
        noise (float): standard deviation of the angular noise, in radians. Default: 0.15.
        turns (float): how many full turns each arm makes. Default: 1.25.
        torch (module): the library to build tensors with (numtorch or torch).
            Default: numtorch.
        dtype (dtype, optional): floating dtype of the points. Default: the default dtype.

    Returns:
        tuple: ``(x, y)`` with ``x`` of shape ``(2 * n_per_class, 2)`` and integer labels ``y``
        of shape ``(2 * n_per_class,)``.

    Example:
        >>> import numtorch as torch
        >>> from numtorch.demo.spiral import make_spiral
        >>> x, y = make_spiral(5)
        >>> tuple(x.shape), tuple(y.shape)
        ((10, 2), (10,))
    """
    r = torch.linspace(0.1, 1.0, n_per_class, dtype=dtype)
    xs, ys = [], []
    for label in (0, 1):
        theta = (2 * math.pi * turns) * r + math.pi * label
        theta = theta + noise * torch.randn(n_per_class, dtype=dtype)
        xs.append(torch.stack([r * torch.cos(theta), r * torch.sin(theta)], dim=1))
        ys.append(torch.full((n_per_class,), label, dtype=torch.int64))
    return torch.cat(xs), torch.cat(ys)


def init_params(hidden=32, *, torch=numtorch, dtype=None):
    """Create the MLP's weights as leaf tensors that require gradients.

    Weights are scaled by ``1/sqrt(fan_in)`` so the tanh layer starts in its linear range.

    Args:
        hidden (int): width of the hidden layer. Default: 32.
        torch (module): the library to build tensors with. Default: numtorch.
        dtype (dtype, optional): floating dtype of the weights. Default: the default dtype.

    Returns:
        list: ``[w1, b1, w2, b2]`` with shapes ``(2, hidden)``, ``(hidden,)``, ``(hidden, 2)``,
        ``(2,)``.
    """
    w1 = torch.randn(2, hidden, dtype=dtype) / math.sqrt(2)
    w2 = torch.randn(hidden, 2, dtype=dtype) / math.sqrt(hidden)
    params = [w1, torch.zeros(hidden, dtype=dtype), w2, torch.zeros(2, dtype=dtype)]
    return [p.requires_grad_() for p in params]


def _forward(x, params, torch):
    w1, b1, w2, b2 = params
    return torch.tanh(x @ w1 + b1) @ w2 + b2


def _cross_entropy(logits, y, torch):
    # log-softmax through logsumexp keeps large logits from overflowing exp()
    picked = logits.gather(1, y.unsqueeze(1)).squeeze(1)
    return (torch.logsumexp(logits, dim=1) - picked).mean()


def train(steps=500, *, lr=0.3, momentum=0.9, hidden=32, n_per_class=100, seed=0,
          log_every=50, data=None, params=None, torch=numtorch, out=None):
    """Fit the spiral with full-batch SGD (with momentum) and return the loss curve.

    Args:
        steps (int): number of gradient steps. Default: 500.
        lr (float): learning rate. Default: 0.3.
        momentum (float): momentum factor of the SGD update. Default: 0.9.
        hidden (int): width of the hidden layer. Default: 32.
        n_per_class (int): points per class when ``data`` is not given. Default: 100.
        seed (int): passed to ``torch.manual_seed`` before data and weights are drawn.
            Default: 0.
        log_every (int): print the loss every this many steps (0 prints nothing).
            Default: 50.
        data (tuple, optional): ``(x, y)`` to train on instead of a fresh spiral.
        params (list, optional): ``[w1, b1, w2, b2]`` leaf tensors to start from (updated in
            place) instead of fresh random ones.
        torch (module): the library to run on (numtorch or torch). Default: numtorch.
        out (file, optional): where log lines go. Default: ``sys.stdout``.

    Returns:
        dict: ``losses`` (a float per step), ``accuracy`` (training accuracy after the last
        step) and ``params`` (the trained tensors).

    Example:
        >>> from numtorch.demo.spiral import train
        >>> result = train(steps=20, log_every=0)
        >>> result["losses"][-1] < result["losses"][0]
        True
    """
    out = sys.stdout if out is None else out
    torch.manual_seed(seed)
    x, y = make_spiral(n_per_class, torch=torch) if data is None else data
    params = init_params(hidden, torch=torch) if params is None else params
    velocity = [torch.zeros_like(p) for p in params]
    losses = []
    for step in range(steps):
        loss = _cross_entropy(_forward(x, params, torch), y, torch)
        loss.backward()
        losses.append(loss.item())
        # the update must not be recorded in the graph, so it runs under no_grad
        with torch.no_grad():
            for p, v in zip(params, velocity):
                v.mul_(momentum).add_(p.grad)
                p.sub_(lr * v)
                p.grad = None
        if log_every and (step % log_every == 0 or step == steps - 1):
            print(f"step {step:4d}   loss {losses[-1]:.4f}", file=out)
    with torch.no_grad():
        pred = _forward(x, params, torch).argmax(dim=1)
        accuracy = (pred == y).float().mean().item()
    if log_every:
        print(f"training accuracy {accuracy:.1%}", file=out)
    return {"losses": losses, "accuracy": accuracy, "params": params}


def main(argv=None):
    """Command-line entry point: parse ``--steps``/``--seed`` and run :func:`train`."""
    parser = argparse.ArgumentParser(prog="python examples/train_small.py", description=__doc__)
    parser.add_argument("--steps", type=int, default=500, help="gradient steps (default 500)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument("--hidden", type=int, default=32, help="hidden width (default 32)")
    args = parser.parse_args(argv)
    print(f"numtorch {numtorch.__version__}: 2-layer MLP on a 2-class spiral "
          f"({args.steps} full-batch SGD steps)")
    start = time.perf_counter()
    result = train(args.steps, hidden=args.hidden, seed=args.seed)
    print(f"done in {time.perf_counter() - start:.2f} s")
    return result


if __name__ == "__main__":
    main()
