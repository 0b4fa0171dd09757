"""Runnable demos. ``python -m numtorch.demo`` trains a CNN on the bundled digits
(:mod:`numtorch.demo.digits`); :mod:`numtorch.demo.spiral` trains an MLP with raw tensors."""
