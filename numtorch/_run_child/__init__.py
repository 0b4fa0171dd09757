"""Holds the ``sitecustomize`` that ``numtorch.run`` puts on ``PYTHONPATH`` (a package so
that wheels include it)."""
