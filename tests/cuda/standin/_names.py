"""The names CuPy 14 offers, read once from ``cupy_names.json`` (see ``make_names.py``)."""

import json
import os

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "cupy_names.json")) as _f:
    NAMES = json.load(_f)
