"""Real, unmodified PyTorch programs (pytorch/examples, minGPT, nanoGPT) run under torch and
under ``python -m numtorch.run`` on fabricated data: see ``run.py`` and bench/README.md."""
