"""Sphinx extension: the API reference, generated from the seed API list and the docstrings.

On ``builder-inited`` it writes ``reference/<area>.rst`` (one page per area of
``seed_api.tsv``, plus the profiler and TensorBoard pages) with one ``py:`` object per
public name, mapped from ``torch.X`` / ``torchvision.X`` to ``numtorch.X`` /
``numtorchvision.X``. Each object's body is the ``numtorch-docstring`` directive, which reads
the docstring when the page is built, converts Google style with napoleon, and shows it as
reStructuredText, or verbatim when it is not valid reStructuredText (so one sloppy docstring
can never fail a warnings-as-errors build). A Tensor method without its own docstring shows
the docstring of the function it delegates to.
"""

import csv
import importlib
import inspect
import os
import re
import warnings

from docutils import nodes
from docutils.parsers.rst import Directive
from docutils.statemachine import StringList

HERE = os.path.dirname(os.path.abspath(__file__))
DOCS = os.path.dirname(HERE)
REPO = os.path.dirname(DOCS)

TITLES = {
    "autograd": "Autograd", "cuda": "CUDA", "data": "Data loading (utils.data)",
    "ffi": "C extensions (utils.ffi)", "functional": "nn.functional", "init": "nn.init",
    "legacy": "Legacy (Lua torch) nn and optim", "model_zoo": "utils.model_zoo",
    "multiprocessing": "multiprocessing", "optim": "optim", "serialization": "Serialization",
    "storage": "Storages", "tensor": "Tensor", "torch-functions": "Tensor functions (torch.*)",
    "vision-datasets": "numtorchvision.datasets", "vision-models": "numtorchvision.models",
    "vision-transforms": "numtorchvision.transforms", "vision-utils": "numtorchvision.utils",
    "profiler": "profiler", "tensorboard": "utils.tensorboard",
    "nn-activation": "nn: activations", "nn-containers": "nn: containers",
    "nn-conv": "nn: convolutions", "nn-distance": "nn: distances", "nn-dropout": "nn: dropout",
    "nn-linear": "nn: linear layers", "nn-loss": "nn: losses",
    "nn-module-api": "nn.Module", "nn-normalization": "nn: normalization",
    "nn-padding": "nn: padding", "nn-parallel": "nn: data parallelism",
    "nn-pooling": "nn: pooling", "nn-recurrent": "nn: recurrent layers",
    "nn-sparse": "nn: embeddings", "nn-transformer": "nn: transformers",
    "nn-utils": "nn.utils", "nn-vision": "nn: vision layers",
}
# names beyond the seed list that the guides point at
EXTRA = {
    "profiler": [
        ("torch.profiler.profile", "class"), ("torch.profiler.schedule", "function"),
        ("torch.profiler.record_function", "class"),
        ("torch.profiler.tensorboard_trace_handler", "function"),
        ("torch.profiler.ProfilerActivity", "class"), ("torch.profiler.ProfilerAction", "class"),
        ("torch.autograd.profiler.profile", "class")],
    "tensorboard": [("torch.utils.tensorboard.SummaryWriter", "class")] + [
        (f"torch.utils.tensorboard.SummaryWriter.{m}", "method") for m in (
            "add_scalar", "add_scalars", "add_histogram", "add_image", "add_images",
            "add_figure", "add_video", "add_audio", "add_text", "add_pr_curve", "add_hparams",
            "add_embedding", "add_graph", "flush", "close")],
}


def seed_tsv():
    """Where the seed API list is: $NUMTORCH_SEED_API, or shared/ beside the repository."""
    for path in (os.environ.get("NUMTORCH_SEED_API", ""),
                 os.path.join(REPO, "..", "shared", "api", "seed_api.tsv"),
                 os.path.join(REPO, "shared", "api", "seed_api.tsv")):
        if path and os.path.exists(path):
            return path
    return None


def load_rows():
    """[(torch name, kind, area)] from the seed list (empty when it is not there) + extras."""
    rows = []
    path = seed_tsv()
    if path:
        with open(path, encoding="utf-8") as f:
            for rec in csv.DictReader(f, delimiter="\t"):
                rows.append((rec["qualified_name"], rec["kind"], rec["area"]))
    for area, names in EXTRA.items():
        rows += [(n, k, area) for n, k in names]
    return rows


def ours(torch_name):
    """numtorch's spelling of a torch / torchvision name."""
    if torch_name.startswith("torchvision"):
        return "numtorchvision" + torch_name[len("torchvision"):]
    return "numtorch" + torch_name[len("torch"):]


def resolve(name):
    """The object called ``name`` (importing submodules on the way), or raise LookupError."""
    parts = name.split(".")
    obj = importlib.import_module(parts[0])
    for i, p in enumerate(parts[1:], 1):
        try:
            obj = getattr(obj, p)
        except AttributeError:
            try:
                obj = importlib.import_module(".".join(parts[:i + 1]))
            except ImportError:
                raise LookupError(name) from None
    return obj


def docstring(name):
    """The docstring shown for ``name``: its own, or for a Tensor method that only delegates,
    that of the function of the same name (in-place ``x_`` methods say so first)."""
    try:
        obj = resolve(name)
    except LookupError:  # an attribute each instance sets: its class documents it
        return inspect.getdoc(resolve(name.rpartition(".")[0])) if \
            _instance_attribute(name) else None
    if _is_plain_value(obj):  # a constant such as numtorch.float32: its type's docstring
        doc = inspect.getdoc(type(obj)) if type(obj).__module__.startswith("numtorch") else None
        if not doc:  # a plain class attribute: its entry in the class's "Attributes:" section
            doc = _class_attribute_doc(name)
    else:
        doc = inspect.getdoc(obj)
    if doc:
        return doc
    owner, _, attr = name.rpartition(".")
    if owner in ("numtorch.Tensor", "numtorch.autograd.Variable", "numtorch.FloatStorage"):
        base = attr[:-1] if attr.endswith("_") and not attr.endswith("__") else attr
        for src in (f"numtorch.Tensor.{attr}", f"numtorch.{base}", f"numtorch.Tensor.{base}"):
            try:
                doc = inspect.getdoc(resolve(src))
            except LookupError:
                continue
            if doc and src != name:
                if base != attr:
                    return f"In-place version of ``{base}``.\n\n{doc}"
                return f"Same as ``{src}``.\n\n{doc}"
    return None


def _class_attribute_doc(name):
    """The text of ``attr``'s entry in the Google-style ``Attributes:`` section of its class's
    docstring (``name`` is ``owner.attr``), or None."""
    owner, _, attr = name.rpartition(".")
    try:
        cls = resolve(owner)
    except LookupError:
        return None
    doc = inspect.getdoc(cls) if inspect.isclass(cls) else None
    section = re.search(r"^Attributes:\n((?:[ \t]+.*\n?|\n)+)", doc or "", re.M)
    if not section:
        return None
    entry = re.search(rf"^(\s+){attr}\b[^:\n]*:\s*(.*(?:\n\1\s+.*)*)", section.group(1), re.M)
    return " ".join(entry.group(2).split()) if entry else None


def _is_plain_value(obj):
    return not (inspect.isclass(obj) or inspect.isroutine(obj) or inspect.ismodule(obj)
                or isinstance(obj, property))


def _signature(obj):
    try:
        sig = str(inspect.signature(obj))
    except (TypeError, ValueError):
        return "()"
    return re.sub(r"<[^<>]*>", "...", sig)  # reprs such as <object at 0x..> do not parse


def _entry(torch_name, kind):
    name = ours(torch_name)
    try:
        obj = resolve(name)
    except LookupError:
        return _instance_attribute(name) if kind == "attribute" else None
    if kind == "module":
        head = [f".. py:module:: {name}", ""]
    elif kind == "class":
        head = [f".. py:class:: {name}{_signature(obj)}", ""]
    elif kind in ("function", "method"):
        directive = "method" if kind == "method" else "function"
        head = [f".. py:{directive}:: {name}{_signature(obj)}", ""]
    elif name.count(".") == 1 or inspect.ismodule(resolve(name.rpartition(".")[0])):
        head = [f".. py:data:: {name}", f"   :value: {_value(obj)}", ""]
    else:
        head = [f".. py:attribute:: {name}", ""]
    return head + [f"   .. numtorch-docstring:: {name}", ""]


def _instance_attribute(name):
    """An attribute each instance sets for itself (``ImageFolder.classes``): documented by its
    class, when the class is there and says it sets the attribute."""
    owner, _, attr = name.rpartition(".")
    try:
        cls = resolve(owner)
    except LookupError:
        return None
    if not inspect.isclass(cls) or not _sets_attribute(cls, attr):
        return None
    return [f".. py:attribute:: {name}", "",
            f"   Set on each instance by :class:`{owner}`, whose documentation follows.", "",
            f"   .. numtorch-docstring:: {owner}", ""]


def _sets_attribute(cls, attr):
    for klass in cls.__mro__:
        try:
            src = inspect.getsource(klass)
        except (OSError, TypeError):
            continue
        if re.search(rf"\bself\.{attr}\s*=|\b{attr}\s*:", src):
            return True
    return False


def _value(obj):
    text = repr(obj)
    return text if len(text) < 60 and "\n" not in text else type(obj).__name__


def generate(app=None):
    """Write the reference pages; returns (pages, names documented, names missing)."""
    out_dir = os.path.join(DOCS, "reference")
    os.makedirs(out_dir, exist_ok=True)
    areas, seen, missing = {}, set(), []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for torch_name, kind, area in load_rows():
            if torch_name in seen:
                continue
            seen.add(torch_name)
            entry = _entry(torch_name, kind)
            if entry is None:
                missing.append(torch_name)
                continue
            areas.setdefault(area, []).append(entry)
    pages = []
    for area, entries in sorted(areas.items()):
        title = TITLES.get(area, area.replace("-", " "))
        lines = [title, "=" * len(title), "", ".. py:currentmodule:: None", ""]
        for e in entries:
            lines += e
        _write(os.path.join(out_dir, f"{area}.rst"), "\n".join(lines))
        pages.append(area)
    index = ["API reference", "=============", "",
             ("Every public name of the PyTorch API that numtorch follows (the project's seed "
              "list), under numtorch's spelling, with its docstring."), "",
             ".. toctree::", "   :maxdepth: 1", ""] + [f"   {p}" for p in pages]
    if missing:
        index += ["", "Not in numtorch yet", "-------------------", ""]
        index += [f"- ``{n}``" for n in missing]
    _write(os.path.join(out_dir, "index.rst"), "\n".join(index) + "\n")
    return pages, len(seen) - len(missing), missing


def _write(path, text):
    old = None
    if os.path.exists(path):
        with open(path) as f:
            old = f.read()
    if old != text:  # unchanged pages keep their time stamps: incremental builds stay fast
        with open(path, "w") as f:
            f.write(text)


class DocstringDirective(Directive):
    """``.. numtorch-docstring:: name``: the docstring of ``name`` as page content."""

    required_arguments = 1
    has_content = False

    def run(self):
        from sphinx.ext.napoleon import Config
        from sphinx.ext.napoleon.docstring import GoogleDocstring

        name = self.arguments[0]
        doc = docstring(name)
        if not doc:
            return [nodes.paragraph(text="(No docstring.)", classes=["numtorch-nodoc"])]
        config = Config(napoleon_use_rtype=False, napoleon_use_ivar=True)
        lines = GoogleDocstring(doc, config, what="function", name=name).lines()
        container = nodes.container(classes=["numtorch-doc"])
        reporter = self.state.document.reporter
        level = reporter.report_level
        reporter.report_level = 5  # parse quietly, then look for problems ourselves
        try:
            self.state.nested_parse(StringList(lines, source=name), 0, container)
        finally:
            reporter.report_level = level
        if any(m["level"] >= 2 for m in container.findall(nodes.system_message)):
            block = nodes.literal_block(doc, doc, classes=["numtorch-doc-verbatim"])
            return [block]
        return [container]


def _math_inline(self, node):
    self.body.append(f'<code class="math">{self.encode(node.astext())}</code>')
    raise nodes.SkipNode


def _math_block(self, node):
    self.body.append(f'<pre class="math">{self.encode(node.astext())}</pre>')
    raise nodes.SkipNode


def setup(app):
    # formulas are shown as their TeX source: the site loads nothing from the network
    app.add_html_math_renderer("tex-source", (_math_inline, None), (_math_block, None))
    app.config.html_math_renderer = "tex-source"
    app.add_directive("numtorch-docstring", DocstringDirective)
    app.connect("builder-inited", lambda app: generate(app))
    # docstrings live in the code, which Sphinx does not watch: re-read the reference always
    app.connect("env-get-outdated", lambda app, env, added, changed, removed: [
        d for d in env.found_docs if d.startswith("reference/")])
    return {"parallel_read_safe": True, "parallel_write_safe": True}
