"""Dynamic int8 quantization: inference time and memory of quantized Linear and LSTM models
against the same models in float32, in numtorch and in torch (x86 engine).

    python bench/quantized.py [--repeats 7] [--threads N]

Workloads (weights drawn once, the same in both libraries, ``quantize_dynamic`` with the
default qint8 configuration):

  mlp   Linear(1024, 1024) - ReLU - Linear(1024, 1024) - ReLU - Linear(1024, 256), batch 64
  lstm  LSTM(256, 512, num_layers=2), sequence 35, batch 16

For each, the four variants (numtorch float32, numtorch int8, torch float32, torch int8) take
turns for every repeat, so that load from elsewhere slows all of them; the median and the range
(min-max) of the per-call time are printed, with the ratios int8/float32 within each library
and numtorch/torch for each precision. Memory: the bytes the weights occupy (float32
parameters against int8 integers plus their quantization parameters and float biases), the
size of each model's saved state dict, and numtorch's peak allocation during one forward
(tracemalloc sees NumPy's allocations). The outputs are checked first: numtorch's int8 result
against torch's int8 result, and int8 against float32 (the quantization error).
"""

import argparse
import io
import statistics
import time
import tracemalloc
import warnings

import numpy as np

warnings.filterwarnings("ignore")


def _build(lib, name, rng_seed=0):
    rng = np.random.default_rng(rng_seed)
    if name == "mlp":
        model = lib.nn.Sequential(lib.nn.Linear(1024, 1024), lib.nn.ReLU(),
                                  lib.nn.Linear(1024, 1024), lib.nn.ReLU(),
                                  lib.nn.Linear(1024, 256))
        x = rng.standard_normal((64, 1024)).astype(np.float32)
    else:
        # (quantize_dynamic swaps a model's submodules, never the model itself)
        model = lib.nn.Sequential(lib.nn.LSTM(256, 512, num_layers=2))
        x = rng.standard_normal((35, 16, 256)).astype(np.float32)
    with lib.no_grad():
        for _, p in sorted(model.named_parameters()):
            bound = 1 / np.sqrt(p.shape[-1])
            p.copy_(lib.from_numpy(rng.uniform(-bound, bound, tuple(p.shape))
                                   .astype(np.float32)))
    model.eval()
    qmodel = lib.ao.quantization.quantize_dynamic(model, dtype=lib.qint8)
    return model, qmodel, lib.from_numpy(x)


def _call(lib, model, x):
    with lib.no_grad():
        out = model(x)
    return out[0] if isinstance(out, tuple) else out


def _weight_bytes(lib, model):
    """Bytes of the weights a model holds: float parameters, or quantized integers with their
    scales/zero points and the float biases of packed layers."""
    total = 0
    for v in model.state_dict().values():
        total += _value_bytes(lib, v)
    return total


def _value_bytes(lib, v):
    if isinstance(v, (tuple, list)):
        return sum(_value_bytes(lib, e) for e in v)
    if isinstance(v, lib.Tensor):
        if v.is_quantized:
            n = v.numel() * v.element_size()
            if v.qscheme() in (lib.per_channel_affine, lib.per_channel_affine_float_qparams):
                n += v.q_per_channel_scales().numel() * 8 + \
                    v.q_per_channel_zero_points().numel() * 8
            else:
                n += 16
            return n
        return v.numel() * v.element_size()
    if hasattr(v, "__getstate__") and type(v).__name__ == "ScriptObject":
        return _value_bytes(lib, v.__getstate__())
    return 0


def _saved_bytes(lib, model):
    buf = io.BytesIO()
    lib.save(model.state_dict(), buf)
    return buf.tell()


def _peak_forward(nt, model, x):
    _call(nt, model, x)
    tracemalloc.start()
    _call(nt, model, x)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak


def _fmt_bytes(n):
    return f"{n / 2 ** 20:7.2f} MiB"


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--repeats", type=int, default=7)
    p.add_argument("--threads", type=int, default=None)
    p.add_argument("--only", choices=["mlp", "lstm"], default=None)
    args = p.parse_args()
    import torch

    import numtorch as nt

    torch.backends.quantized.engine = "x86"
    if args.threads:
        torch.set_num_threads(args.threads)
        nt.set_num_threads(args.threads)
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads; "
          f"median (min-max) of {args.repeats} repeats, the four variants taking turns")
    for name in (args.only,) if args.only else ("mlp", "lstm"):
        nf, nq, nx = _build(nt, name)
        tf, tq, tx = _build(torch, name)
        outs = {k: _call(lib, m, x).detach().numpy() for k, lib, m, x in
                (("nf", nt, nf, nx), ("nq", nt, nq, nx), ("tf", torch, tf, tx),
                 ("tq", torch, tq, tx))}
        scale = float(np.abs(outs["tf"]).max())
        print(f"\n[{name}] outputs: |numtorch int8 - torch int8| max "
              f"{np.abs(outs['nq'] - outs['tq']).max():.2e}, |int8 - float32| max "
              f"{np.abs(outs['nq'] - outs['nf']).max():.2e} (outputs up to {scale:.2f}), "
              f"|numtorch f32 - torch f32| max {np.abs(outs['nf'] - outs['tf']).max():.2e}")
        variants = [("numtorch float32", nt, nf, nx), ("numtorch int8", nt, nq, nx),
                    ("torch float32", torch, tf, tx), ("torch int8", torch, tq, tx)]
        times = {v[0]: [] for v in variants}
        for label, lib, m, x in variants:  # warm-up
            _call(lib, m, x)
        for _ in range(args.repeats):
            for label, lib, m, x in variants:
                t0 = time.perf_counter()
                _call(lib, m, x)
                times[label].append(time.perf_counter() - t0)
        med = {k: statistics.median(v) for k, v in times.items()}
        for label, v in times.items():
            print(f"  {label:17s} {med[label] * 1e3:8.2f} ms  ({min(v) * 1e3:.2f}-"
                  f"{max(v) * 1e3:.2f})")
        best = {k: min(v) for k, v in times.items()}
        for name, t in (("median", med), ("best", best)):
            # on a shared machine the best run is the least disturbed estimate of each
            print(f"  {name:6s} int8/float32: numtorch "
                  f"{t['numtorch int8'] / t['numtorch float32']:.2f}, torch "
                  f"{t['torch int8'] / t['torch float32']:.2f};  numtorch/torch: float32 "
                  f"{t['numtorch float32'] / t['torch float32']:.2f}, int8 "
                  f"{t['numtorch int8'] / t['torch int8']:.2f}")
        wf, wq = _weight_bytes(nt, nf), _weight_bytes(nt, nq)
        twq = _weight_bytes(torch, tq)
        print(f"  weights: float32 {_fmt_bytes(wf)}, int8 {_fmt_bytes(wq)} "
              f"({wf / wq:.2f}x smaller; torch's int8 {_fmt_bytes(twq)})")
        print(f"  saved state dict: numtorch float32 {_fmt_bytes(_saved_bytes(nt, nf))}, "
              f"int8 {_fmt_bytes(_saved_bytes(nt, nq))}; torch float32 "
              f"{_fmt_bytes(_saved_bytes(torch, tf))}, int8 {_fmt_bytes(_saved_bytes(torch, tq))}")
        print(f"  numtorch peak allocation in one forward: float32 "
              f"{_fmt_bytes(_peak_forward(nt, nf, nx))}, int8 "
              f"{_fmt_bytes(_peak_forward(nt, nq, nx))}")


if __name__ == "__main__":
    main()
