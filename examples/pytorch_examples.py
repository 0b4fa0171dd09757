"""Run pytorch/examples' vision programs, unmodified, under numtorch and under torch.

Each program is copied into a scratch folder and run twice: with ``python -m numtorch.run``
(``import torch`` / ``import torchvision`` resolve to numtorch / numtorchvision) and with the
real torch + torchvision. The data is fabricated in the real on-disk formats (raw MNIST IDX
files under ``../data/MNIST/raw``, an ImageFolder of JPEGs, a cached random VGG-16
checkpoint for fast_neural_style), small enough for a few minutes on a laptop CPU; the
class-dependent patterns are easy to learn, so a working program's loss falls. Every loss
the program prints is collected and the first and last are reported for both libraries.

    python examples/pytorch_examples.py --examples /path/to/pytorch/examples [--only mnist]

A program that runs for too long (imagenet's epoch of 1.28M dummy images, the reinforcement
learning agents that train until CartPole is solved) is stopped after ``--timeout`` seconds:
its losses up to then still count. Besides the vision programs the list holds the word-level
language model (LSTM, GRU, RNN_TANH, Transformer, each followed by ``generate.py`` on its own
checkpoint, on a fabricated corpus), mnist_rnn, mnist_forward_forward, regression,
time_sequence_prediction (its data made by its own ``generate_sine_wave.py``; both libraries run
with ``TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD=1``, which torch itself needs to read that file) and,
when ``gymnasium`` imports, reinforce and actor_critic.

Each row also gives the program's wall time and CPU time (user + system, its reaped worker
processes included) and numtorch/torch ratios of both; set ``OMP_NUM_THREADS`` for the thread
count (default 1). The times include start-up (imports), so short runs understate the ratio of
the training loops themselves.
"""

import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import numpy as np

# the real torchvision imports with torch.library.register_fake as a no-op (its compiled ops
# do not load with the CPU wheel): a sitecustomize on PYTHONPATH does that in every process of
# a torch run (spawned multiprocessing children too); the program then runs as ``python main.py``
_TORCH_SITECUSTOMIZE = """
import torch
_orig = torch.library.register_fake
torch.library.register_fake = lambda *a, **k: (lambda f: f)
try:
    import torchvision
finally:
    torch.library.register_fake = _orig
"""

_LOSS = re.compile(r"(?:Loss_D|Loss|total|loss|Average reward):?\s+(-?[0-9.]+(?:e[-+]?[0-9]+)?)")
_ACC = re.compile(r"Accuracy: (\d+)/(\d+)")


def _idx(arr):
    header = bytes([0, 0, 8, arr.ndim]) + b"".join(int(s).to_bytes(4, "big") for s in arr.shape)
    return header + arr.astype(np.uint8).tobytes()


def _digits(n, rng):
    """28x28 'digits': class c is a bright stroke pattern of its own plus noise and jitter."""
    protos = np.random.default_rng(1234).random((10, 28, 28)) > 0.8
    labels = rng.integers(0, 10, size=n).astype(np.uint8)
    images = rng.integers(0, 50, size=(n, 28, 28))
    shift = rng.integers(-1, 2, size=(n, 2))
    for i, c in enumerate(labels):
        images[i] += 200 * np.roll(protos[c], tuple(shift[i]), axis=(0, 1))
    return np.clip(images, 0, 255).astype(np.uint8), labels


def fabricate_mnist(root, n_train, n_test, seed=0):
    rng = np.random.default_rng(seed)
    raw = os.path.join(root, "MNIST", "raw")
    os.makedirs(raw, exist_ok=True)
    for split, n in (("train", n_train), ("t10k", n_test)):
        images, labels = _digits(n, rng)
        for kind, arr in (("images-idx3", images), ("labels-idx1", labels)):
            with open(os.path.join(raw, f"{split}-{kind}-ubyte"), "wb") as f:
                f.write(_idx(arr))


def fabricate_folder(root, n, size=72, classes=2, seed=0):
    """An ImageFolder of JPEGs: smooth colour gradients, one family per class."""
    from PIL import Image

    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:size, 0:size] / size
    for i in range(n):
        c = i % classes
        folder = os.path.join(root, f"class{c}")
        os.makedirs(folder, exist_ok=True)
        a, b = rng.uniform(0.5, 1.5, 2)
        base = np.stack([xx * a, yy * b, (xx + yy) / 2], -1) if c == 0 else \
            np.stack([1 - yy * a, xx * b, np.abs(xx - yy)], -1)
        arr = np.clip(base * 255 + rng.normal(0, 8, base.shape), 0, 255).astype(np.uint8)
        Image.fromarray(arr).save(os.path.join(folder, f"{i:04d}.jpg"), quality=90)


def fabricate_corpus(root, words=(20000, 3000, 3000), vocab=400, seed=0):
    """train/valid/test.txt of lines of words from a Markov chain: each word has four likely
    successors, so a language model's loss falls well below log(vocab)."""
    rng = np.random.default_rng(seed)
    succ = rng.integers(0, vocab, (vocab, 4))
    os.makedirs(root, exist_ok=True)
    for name, n in zip(("train", "valid", "test"), words):
        w, toks = 0, []
        for i in range(n):
            w = succ[w, rng.integers(4)]
            toks.append(f"w{w}" + ("\n" if i % 17 == 16 else " "))
        with open(os.path.join(root, f"{name}.txt"), "w") as f:
            f.write("".join(toks))


_GYM = ("reinforce", "actor_critic")


def _has_gym():
    import importlib.util

    return any(importlib.util.find_spec(m) is not None for m in ("gymnasium", "gym"))


def fabricate_vgg16_cache(torch_home):
    """torchvision's VGG-16 weight file, random values, in the hub cache (no download)."""
    code = _TORCH_SITECUSTOMIZE + (
        "import os, sys\n"
        "d = os.path.join(sys.argv[1], 'hub', 'checkpoints'); os.makedirs(d, exist_ok=True)\n"
        "torch.manual_seed(0)\n"
        "torch.save(torchvision.models.vgg16().state_dict(),"
        " os.path.join(d, 'vgg16-397923af.pth'))\n")
    subprocess.run([sys.executable, "-c", code, torch_home], check=True)


def programs(ex):
    """name -> (example folder, script relative to it, argv, timeout factor)."""
    fns = "fast_neural_style/neural_style"
    table = {
        "mnist": ("mnist", "main.py", ["--epochs", "2", "--batch-size", "64",
                                       "--test-batch-size", "500", "--log-interval", "5"]),
        "dcgan-fake": ("dcgan", "main.py", ["--dataset", "fake", "--batchSize", "64",
                                            "--niter", "1", "--ngf", "16", "--ndf", "16",
                                            "--workers", "2", "--manualSeed", "1",
                                            "--outf", "out"]),
        "dcgan-folder": ("dcgan", "main.py", ["--dataset", "folder", "--dataroot",
                                              "../data/folder", "--batchSize", "16",
                                              "--niter", "2", "--ngf", "16", "--ndf", "16",
                                              "--workers", "2", "--manualSeed", "1",
                                              "--outf", "out"]),
        "vae": ("vae", "main.py", ["--epochs", "2", "--batch-size", "64",
                                   "--log-interval", "5"]),
        "imagenet": ("imagenet", "main.py", ["--dummy", "-a", "resnet18", "-b", "8",
                                             "--epochs", "1", "-p", "2", "-j", "2",
                                             "--seed", "1"]),
        "mnist_hogwild": ("mnist_hogwild", "main.py", ["--epochs", "2", "--num-processes", "2",
                                                       "--lr", "0.05",
                                                       "--batch-size", "64",
                                                       "--log-interval", "5"]),
        "siamese_network": ("siamese_network", "main.py", ["--epochs", "1", "--batch-size",
                                                           "64", "--log-interval", "5"]),
        "fast_neural_style": (fns, "neural_style.py", [
            # a small fabricated style image: --style-size resizes with PIL's ANTIALIAS
            # constant, which Pillow 10 removed (the program fails there under torch too)
            "train", "--dataset", "../../data/folder", "--style-image", "../../data/style.jpg",
            "--save-model-dir", "saved", "--epochs", "1", "--batch-size", "4",
            "--image-size", "64", "--log-interval", "4"]),
        "mnist_rnn": ("mnist_rnn", "main.py", ["--epochs", "1", "--log-interval", "5"]),
        "mnist_forward_forward": ("mnist_forward_forward", "main.py", [
            "--epochs", "20", "--train_size", "1000", "--test_size", "200", "--no_accel"]),
        "regression": ("regression", "main.py", []),
        "time_sequence_prediction": ("time_sequence_prediction", "train.py", ["--steps", "1"]),
    }
    lm = ["--data", "../data/corpus", "--epochs", "1", "--log-interval", "20", "--bptt", "20"]
    for model in ("LSTM", "GRU", "RNN_TANH", "Transformer"):
        lr = ["--lr", "5"] if model == "Transformer" else ["--lr", "1" if model == "RNN_TANH" else "20"]
        table[f"wlm-{model}"] = ("word_language_model", "main.py",
                                 [*lm, "--model", model, *lr, "--save", f"{model}.pt"])
        table[f"generate-{model}"] = ("word_language_model", "generate.py", [
            "--data", "../data/corpus", "--checkpoint", f"{model}.pt", "--words", "100",
            "--outf", f"generated_{model}.txt"])
    if _has_gym():
        for agent in _GYM:
            table[agent] = ("reinforcement_learning", f"{agent}.py", ["--log-interval", "5"])
    return table


def _timed(cmd, cwd, env, timeout):
    """Run ``cmd``; its output, exit code ("timeout" when stopped), wall and CPU seconds (user +
    system of the program and the worker processes it waited for)."""
    start = time.perf_counter()
    with tempfile.TemporaryFile("w+") as log:
        proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=log, stderr=subprocess.STDOUT,
                                text=True, start_new_session=True)
        rc = None
        while rc is None:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                rc = os.waitstatus_to_exitcode(status)
            elif time.perf_counter() - start > timeout:
                os.killpg(proc.pid, signal.SIGTERM)  # the program and its workers
                _, _, usage = os.wait4(proc.pid, 0)
                rc = "timeout"
            else:
                time.sleep(0.05)
        proc.returncode = -1  # reaped above; keeps Popen from waiting again
        log.seek(0)
        out = log.read()
    return out, rc, time.perf_counter() - start, usage.ru_utime + usage.ru_stime


def run(name, spec, ex, scratch, lib, timeout, env):
    folder, script, argv = spec
    top = folder.split("/")[0]
    work = os.path.join(scratch, lib, top)
    if not os.path.exists(work):
        shutil.copytree(os.path.join(ex, top), work)
    cwd = os.path.join(scratch, lib, folder)
    os.makedirs(os.path.join(cwd, "out"), exist_ok=True)
    os.makedirs(os.path.join(cwd, "results"), exist_ok=True)
    if lib == "numtorch":
        prefix = [sys.executable, "-m", "numtorch.run"]
    else:
        site = os.path.join(scratch, "torch_site")
        os.makedirs(site, exist_ok=True)
        with open(os.path.join(site, "sitecustomize.py"), "w") as f:
            f.write(_TORCH_SITECUSTOMIZE)
        env = dict(env, PYTHONPATH=os.pathsep.join([site, env.get("PYTHONPATH", "")]))
        prefix = [sys.executable]
    if folder == "mnist_forward_forward" and not os.path.exists(os.path.join(cwd, "data")):
        fabricate_mnist(os.path.join(cwd, "data"), 1000, 200)  # it reads ./data/
    if folder == "time_sequence_prediction":
        # traindata.pt is a pickled ndarray: torch >= 2.6 reads it only with this switch
        env = dict(env, TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD="1")
        subprocess.run([*prefix, "generate_sine_wave.py"], cwd=cwd, env=env, check=True)
    out, rc, wall, cpu = _timed([*prefix, script, *argv], cwd, env, timeout)
    with open(os.path.join(scratch, f"{name}.{lib}.log"), "w") as f:
        f.write(out)
    losses = [float(m) for m in _LOSS.findall(out)]
    acc = _ACC.findall(out)
    return rc, losses, acc[-1] if acc else None, wall, cpu


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--examples", required=True, help="a checkout of pytorch/examples")
    p.add_argument("--only", action="append", help="program name (repeatable)")
    p.add_argument("--libs", default="numtorch,torch")
    p.add_argument("--timeout", type=float, default=300)
    p.add_argument("--scratch", default=None)
    p.add_argument("--train", type=int, default=1280, help="fabricated MNIST training images")
    args = p.parse_args(argv)
    ex = os.path.abspath(args.examples)
    scratch = args.scratch or tempfile.mkdtemp(prefix="pytorch_examples_")
    for lib in args.libs.split(","):
        data = os.path.join(scratch, lib, "data")
        if not os.path.exists(data):
            fabricate_mnist(data, args.train, 500)
            fabricate_folder(os.path.join(data, "folder"), 64)
            fabricate_corpus(os.path.join(data, "corpus"))
            fabricate_folder(os.path.join(data, "style"), 1, size=64, seed=1)
            os.replace(os.path.join(data, "style", "class0", "0000.jpg"),
                       os.path.join(data, "style.jpg"))
    env = dict(os.environ, OMP_NUM_THREADS=os.environ.get("OMP_NUM_THREADS", "1"),
               TORCH_HOME=os.path.join(scratch, "torch_home"))
    selected = args.only or list(programs(ex))
    if "fast_neural_style" in selected and not os.path.exists(env["TORCH_HOME"]):
        fabricate_vgg16_cache(env["TORCH_HOME"])
    print(f"scratch: {scratch}")
    print(f"{'program':24} {'lib':9} {'rc':>7} {'losses':>6}  {'first -> last  (at n)':22} "
          f"{'wall s':>7} {'cpu s':>7}  accuracy")
    for name in selected:
        spec = programs(ex).get(name)
        if spec is None:
            print(f"{name:24} not run: {'needs gymnasium or gym' if name in _GYM else 'unknown'}")
            continue
        results = {lib: run(name, spec, ex, scratch, lib, args.timeout, env)
                   for lib in args.libs.split(",")}
        # a program stopped by the timeout: compare the libraries after the same number of
        # printed losses
        common = min(len(r[1]) for r in results.values())
        for lib, (rc, losses, acc, wall, cpu) in results.items():
            span = f"{losses[0]:.4g} -> {losses[common - 1]:.4g} ({common})" if common else "-"
            acc = f"{acc[0]}/{acc[1]}" if acc else ""
            print(f"{name:24} {lib:9} {rc!s:>7} {len(losses):6}  {span:22} {wall:7.1f} "
                  f"{cpu:7.1f}  {acc}", flush=True)
        if {"numtorch", "torch"} <= set(results):
            (_, _, _, w_nt, c_nt), (_, _, _, w_t, c_t) = results["numtorch"], results["torch"]
            print(f"{name:24} {'ratio':9} {'':>7} {'':>6}  {'numtorch / torch':22} "
                  f"{w_nt / w_t:7.2f} {c_nt / max(c_t, 1e-9):7.2f}", flush=True)


if __name__ == "__main__":
    main()
