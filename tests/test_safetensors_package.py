"""The real ``safetensors`` package's torch API (save_file, load_file, safe_open with
framework="pt", which maps the file through ``UntypedStorage.from_file``) run on numtorch by
``python -m numtorch.run``, against the same program on torch: transformers' save_pretrained
and from_pretrained go through it."""

import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("safetensors")

PROGRAM = textwrap.dedent("""
    import sys
    import torch
    from safetensors import safe_open
    from safetensors.torch import load_file, save_file, save, load

    path = sys.argv[1]
    torch.manual_seed(0)
    tensors = {"w": torch.randn(3, 4), "b": torch.arange(5, dtype=torch.int64),
               "h": torch.linspace(0, 1, 6, dtype=torch.float16).reshape(2, 3),
               "m": torch.tensor([True, False]), "e": torch.zeros(0, 2)}
    save_file(tensors, path, metadata={"format": "pt"})
    back = load_file(path)
    for k in sorted(back):
        v = back[k]
        print(k, v.dtype, tuple(v.shape), v.flatten().tolist(), torch.equal(v, tensors[k]))
    with safe_open(path, framework="pt") as f:
        print(sorted(f.keys()), f.metadata())
        print(f.get_tensor("w")[1].tolist(), f.get_slice("w")[1:, :2].tolist())
    blob = save({"x": torch.ones(2, 2)})
    print(type(blob).__name__, load(blob)["x"].sum().item())
""")


READER = textwrap.dedent("""
    import sys
    from safetensors.torch import load_file

    back = load_file(sys.argv[1])
    print({k: (str(v.dtype), v.flatten().tolist()) for k, v in sorted(back.items())})
""")

TORCH = [sys.executable]
NUMTORCH = [sys.executable, "-m", "numtorch.run"]


def _run(cmd, program, path):
    script = path.parent / ("prog_" + path.stem + ".py")
    script.write_text(program)
    done = subprocess.run([*cmd, str(script), str(path)], capture_output=True, text=True,
                          timeout=300, cwd=path.parent)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def test_safetensors_torch_api_matches_torch(tmp_path):
    t_file, n_file = tmp_path / "t.safetensors", tmp_path / "n.safetensors"
    assert _run(NUMTORCH, PROGRAM, n_file) == _run(TORCH, PROGRAM, t_file)
    assert n_file.read_bytes() == t_file.read_bytes()  # the same bytes on disk
    # each library reads the other's file
    assert _run(NUMTORCH, READER, t_file) == _run(TORCH, READER, n_file)


def _view_float(lib, shape):
    t = lib.empty(shape, dtype=lib.uint8)
    try:
        v = t.view(dtype=lib.float32)
    except RuntimeError as e:
        return str(e)
    return tuple(v.shape), v.stride()


@pytest.mark.parametrize("shape", [(0,), (3, 0), (0, 8), (2, 0, 3), (0, 2, 4)])
def test_view_dtype_of_empty_tensors_as_torch(shape):
    import torch

    import numtorch

    assert _view_float(numtorch, shape) == _view_float(torch, shape)
