"""The documentation site: it builds with warnings as errors, every seed API name is in the
reference with its docstring, and every page loads in headless Chromium without console
errors, broken local links or missing images.

Needs the ``docs`` extra (Sphinx, MyST, matplotlib) and Chromium (Debian package
``chromium``); the tests are skipped, saying which is missing, only when they are absent.
"""

import contextlib
import html
import io
import json
import os
import re
import select
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.parse
import zlib

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOCS = os.path.join(ROOT, "docs")
sys.path.insert(0, os.path.join(DOCS, "_ext"))

pytest.importorskip("sphinx", reason="Sphinx is not installed: pip install -e '.[docs]'")
pytest.importorskip("myst_parser", reason="MyST is not installed: pip install -e '.[docs]'")
pytest.importorskip("matplotlib", reason="matplotlib is not installed: pip install -e '.[docs]'")

import numtorch_api

CHROMIUM = next((shutil.which(b) for b in ("chromium", "chromium-browser", "google-chrome")
                 if shutil.which(b)), None)

# seed names that numtorch has but that carry no docstring yet (other areas' code); the list
# may only shrink: a name missing a docstring that is not here fails the test
NO_DOCSTRING_YET = frozenset()


@pytest.fixture(scope="module")
def site():
    """Build the site from scratch (-E) with warnings as errors; yields the html folder."""
    from sphinx.cmd.build import build_main

    out = tempfile.mkdtemp(prefix="numtorch-docs-")
    err = io.StringIO()
    # in this process: the pages and the checks below see the same imported docstrings
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        rc = build_main(["-W", "--keep-going", "-E", "-q", "-b", "html", DOCS, out])
    assert rc == 0, err.getvalue()
    assert "WARNING" not in err.getvalue(), err.getvalue()
    yield out
    shutil.rmtree(out, ignore_errors=True)


def _text(path):
    with open(path) as f:
        return f.read()


def read_inventory(path):
    """{name: (role, uri)} from a Sphinx objects.inv (version 2: zlib after four lines)."""
    with open(path, "rb") as f:
        for _ in range(4):
            f.readline()
        text = zlib.decompress(f.read()).decode()
    out = {}
    for line in text.splitlines():
        m = re.match(r"(.+?)\s+(\S+):(\S+)\s+(-?\d+)\s+(\S*)\s+(.*)", line)
        if m:
            uri = m.group(5)
            if uri.endswith("$"):
                uri = uri[:-1] + m.group(1)
            out[m.group(1)] = (f"{m.group(2)}:{m.group(3)}", uri)
    return out


def _role_text(m):
    """What a cross-reference role shows: its title, or the last part of a ``~`` target."""
    target = m.group(1)
    titled = re.match(r"(.*?)\s*<[^<>]*>$", target)
    if titled:
        return titled.group(1)
    return target[1:].rsplit(".", 1)[-1] if target.startswith("~") else target


def _words(text, is_html=False):
    """Plain words of reStructuredText or HTML (markup, roles and punctuation dropped)."""
    if is_html:
        text = html.unescape(re.sub(r"<[^>]+>", " ", text))
    text = re.sub(r":[\w:]+:`([^`]*)`", _role_text, text)
    return re.findall(r"[A-Za-z0-9_]+", text)


def test_every_seed_name_is_in_the_reference_with_its_docstring(site):
    if numtorch_api.seed_tsv() is None:
        pytest.skip("the seed API list (shared/api/seed_api.tsv) is not beside the repository")
    inv = read_inventory(os.path.join(site, "objects.inv"))
    index = _text(os.path.join(site, "reference", "index.html"))
    pages = {}
    rows = numtorch_api.load_rows()
    assert len(rows) > 800
    undocumented = set()
    for torch_name, kind, _area in rows:
        name = numtorch_api.ours(torch_name)
        if name not in inv:
            assert torch_name in index, f"{name} is neither documented nor listed as missing"
            continue
        uri = inv[name][1]
        page, _, anchor = uri.partition("#")
        if page not in pages:
            pages[page] = _text(os.path.join(site, page))
        text = pages[page]
        start = text.index(f'id="{anchor}"')
        nxt = re.search(r'<dt class="sig', text[start + 10:])
        end = start + 10 + (nxt.start() if nxt else len(text))
        body = " ".join(_words(text[start:end], is_html=True))
        doc = numtorch_api.docstring(name)
        if not doc:
            undocumented.add(name)
            continue
        first = " ".join(_words(doc.split("\n\n")[0])[:8])
        assert first in body, f"{name}: docstring not shown ({first!r})"
    assert undocumented <= NO_DOCSTRING_YET, sorted(undocumented - NO_DOCSTRING_YET)


def test_guides_and_plot_are_in_the_site(site):
    for page in ("guides/getting-started.html", "guides/running-pytorch-programs.html",
                 "guides/differences.html", "guides/checkpoints.html", "guides/gpu.html",
                 "distributed.html", "guides/vision.html", "guides/profiling.html",
                 "guides/benchmarks.html", "reference/index.html"):
        assert os.path.exists(os.path.join(site, page)), page
    bench = _text(os.path.join(site, "guides", "benchmarks.html"))
    assert "bench_ratios.png" in bench
    getting = _text(os.path.join(site, "guides", "getting-started.html"))
    assert "python -m numtorch.demo" in html.unescape(re.sub(r"<[^>]+>", "", getting))


class Chromium:
    """Headless Chromium driven over the DevTools protocol on a pipe (fds 3 and 4)."""

    def __init__(self):
        self.profile = tempfile.mkdtemp(prefix="numtorch-chromium-")
        cmd_r, self._cmd_w = os.pipe()
        self._out_r, out_w = os.pipe()
        args = " ".join(["--headless", "--no-sandbox", "--disable-gpu",
                         "--remote-debugging-pipe", "--no-first-run",
                         "--allow-file-access-from-files", f"--user-data-dir={self.profile}",
                         "about:blank"])
        self.proc = subprocess.Popen(
            ["bash", "-c", f"exec {CHROMIUM} {args} 3<&{cmd_r} 4>&{out_w}"],
            pass_fds=(cmd_r, out_w), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(cmd_r)
        os.close(out_w)
        self._buf = b""
        self._id = 0
        self.events = []

    def _read(self, deadline):
        while b"\0" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._out_r], [], [], left)[0]:
                raise TimeoutError("Chromium did not answer")
            chunk = os.read(self._out_r, 1 << 20)
            if not chunk:
                raise RuntimeError("Chromium closed the pipe")
            self._buf += chunk
        msg, self._buf = self._buf.split(b"\0", 1)
        return json.loads(msg)

    def send(self, method, session=None, timeout=30, **params):
        self._id += 1
        msg = {"id": self._id, "method": method, "params": params}
        if session:
            msg["sessionId"] = session
        os.write(self._cmd_w, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            reply = self._read(deadline)
            if reply.get("id") == self._id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def wait_event(self, method, session, timeout=30):
        deadline = time.monotonic() + timeout
        for i, ev in enumerate(self.events):
            if ev.get("method") == method and ev.get("sessionId") == session:
                return self.events.pop(i)
        while True:
            ev = self._read(deadline)
            if ev.get("method") == method and ev.get("sessionId") == session:
                return ev
            self.events.append(ev)

    def close(self):
        try:
            self.send("Browser.close", timeout=5)
        except (OSError, RuntimeError, TimeoutError):  # it may already be gone
            self.proc.kill()
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        os.close(self._cmd_w)
        os.close(self._out_r)
        shutil.rmtree(self.profile, ignore_errors=True)


PAGE_REPORT = """JSON.stringify({
  images: Array.from(document.images).map(i => [i.src, i.complete && i.naturalWidth > 0]),
  links: Array.from(document.querySelectorAll('a[href]')).map(a => a.href),
})"""


def _problems(events, session):
    out = []
    for ev in events:
        if ev.get("sessionId") != session:
            continue
        m, p = ev.get("method"), ev.get("params", {})
        if m == "Runtime.exceptionThrown":
            out.append(f"exception: {p['exceptionDetails'].get('text')}")
        elif m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
            out.append(f"console.{p['type']}: {p.get('args')}")
        elif m == "Log.entryAdded" and p["entry"].get("level") == "error":
            out.append(f"log: {p['entry'].get('text')} {p['entry'].get('url', '')}")
        elif m == "Network.loadingFailed":
            out.append(f"failed load: {p.get('errorText')}")
    return out


@pytest.mark.skipif(CHROMIUM is None,
                    reason="Chromium is not installed (Debian: apt-get install chromium)")
def test_pages_load_in_headless_chromium(site):
    pages = sorted(os.path.relpath(os.path.join(d, f), site) for d, _, fs in os.walk(site)
                   for f in fs if f.endswith(".html") and "_sources" not in d)
    assert len(pages) > 40
    browser = Chromium()
    try:
        target = browser.send("Target.createTarget", url="about:blank")["targetId"]
        session = browser.send("Target.attachToTarget", targetId=target,
                               flatten=True)["sessionId"]
        for domain in ("Runtime", "Log", "Page", "Network"):
            browser.send(f"{domain}.enable", session)
        ids = {}
        problems = []
        for page in pages:
            url = "file://" + urllib.parse.quote(os.path.join(site, page))
            browser.events = []
            browser.send("Page.navigate", session, url=url)
            browser.wait_event("Page.loadEventFired", session)
            report = json.loads(browser.send("Runtime.evaluate", session,
                                             expression=PAGE_REPORT,
                                             returnByValue=True)["result"]["value"])
            problems += [f"{page}: {p}" for p in _problems(browser.events, session)]
            problems += [f"{page}: missing image {src}" for src, ok in report["images"]
                         if not ok]
            for link in report["links"]:
                parts = urllib.parse.urlsplit(link)
                if parts.scheme != "file":
                    continue  # the web is out of reach here; local links are all checked
                path = urllib.parse.unquote(parts.path)
                if not os.path.exists(path):
                    problems.append(f"{page}: broken link {link}")
                elif parts.fragment and path.endswith(".html"):
                    if path not in ids:
                        ids[path] = set(re.findall(r'id="([^"]+)"', _text(path)))
                    if urllib.parse.unquote(parts.fragment) not in ids[path]:
                        problems.append(f"{page}: broken anchor {link}")
        assert not problems, "\n".join(problems[:50])
    finally:
        browser.close()
