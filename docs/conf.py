"""Sphinx configuration of numtorch's documentation site.

Build it with ``python -m sphinx -W -b html docs docs/_build/html`` (``pip install -e
".[docs]"``). The API reference under ``reference/`` is generated at build time by
``_ext/numtorch_api.py``; the benchmark plots by ``docs/bench_plots.py``.
"""

import os
import sys

DOCS = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(DOCS))  # the repository: numtorch without installing
sys.path.insert(0, os.path.join(DOCS, "_ext"))

project = "numtorch"
author = "the numtorch authors"
copyright = "the numtorch authors"
release = version = "0.1.0"

extensions = ["myst_parser", "numtorch_api"]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build", "README.md"]
myst_heading_anchors = 3  # "#running-on-one-machine" links between guides resolve
suppress_warnings = ["myst.xref_missing"]  # links into the repository (bench/, README.md)

html_theme = "alabaster"
html_static_path = ["_static"]
html_css_files = ["custom.css"]
html_title = "numtorch"
html_theme_options = {"description": "PyTorch's API on NumPy", "fixed_sidebar": True}
html_sidebars = {"**": ["about.html", "navigation.html", "searchbox.html"]}
html_show_sourcelink = False


def _plots(app):
    """Regenerate the benchmark plots from bench/results.json (needs matplotlib)."""
    sys.path.insert(0, DOCS)
    import bench_plots

    bench_plots.make_plots()


def setup(app):
    app.connect("builder-inited", _plots)
