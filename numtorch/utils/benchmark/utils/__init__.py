"""Pieces of ``numtorch.utils.benchmark``, at the module paths torch gives them."""
