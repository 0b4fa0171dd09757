"""nanoGPT's sample.py imports tiktoken at the top but uses it only without a meta.pkl (GPT-2
encodings); tiktoken is not installed in the project's environment. Only on the runner's
PYTHONPATH."""


def get_encoding(name):
    raise RuntimeError(f"tiktoken stub: no encoding {name!r} (the runner's data has a meta.pkl)")
