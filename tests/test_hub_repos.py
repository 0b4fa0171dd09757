"""hub.load / hub.list / hub.help against torch.hub: local folders, cached GitHub repositories,
the trust prompt and list, and a download from a loopback 'GitHub' (zipball + API)."""

import builtins
import http.server
import io
import json
import os
import subprocess
import sys
import textwrap
import threading
import zipfile

import pytest

import numtorch
from numtorch import _hub_repos

torch = pytest.importorskip("torch")

HUBCONF = textwrap.dedent('''
    dependencies = ["os"]
    import helper_mod_{tag}

    def entry(a, b=2, **kw):
        """Adds things."""
        return ("entry", a, b, sorted(kw.items()), helper_mod_{tag}.VALUE)

    def _private():
        return "private"

    class Builder:
        pass

    CONST = 3
    not_callable = [1]
''')


def _repo(folder, tag, deps=None):
    os.makedirs(folder, exist_ok=True)
    text = HUBCONF.format(tag=tag)
    if deps is not None:
        text += f"\ndependencies = {deps!r}\n"
    with open(os.path.join(folder, "hubconf.py"), "w") as f:
        f.write(text)
    with open(os.path.join(folder, f"helper_mod_{tag}.py"), "w") as f:
        f.write("VALUE = 41\n")
    return folder


def _outcome(fn):
    try:
        return ("ok", fn())
    except BaseException as e:  # noqa: BLE001 - EOFError and plain Exception are compared too
        return (type(e).__name__, str(e))


@pytest.fixture
def hubs(tmp_path):
    """Two hub folders with the same cached repositories, one per library."""
    dirs = {}
    for lib in ("torch", "numtorch"):
        d = tmp_path / lib / "hub"
        for sub, tag in (("owner_repo_main", "a"), ("pytorch_vision_main", "b"),
                         ("owner_br_feat_x", "c"), ("owner_old_master", "d")):
            _repo(str(d / sub), tag)
        _repo(str(d / "owner_dep_main"), "e", deps=["os", "no_such_pkg_q", "nor_this_one"])
        dirs[lib] = str(d)
    # the raw settings (None: follow $TORCH_HOME), not get_dir()'s answer, which set_dir
    # would pin for every later test
    old_t, old_n = torch.hub._hub_dir, numtorch.hub._HUB_DIR[0]
    torch.hub.set_dir(dirs["torch"])
    numtorch.hub.set_dir(dirs["numtorch"])
    yield dirs
    torch.hub._hub_dir = old_t
    numtorch.hub._HUB_DIR[0] = old_n


def _both(call):
    return _outcome(lambda: call(torch.hub)), _outcome(lambda: call(numtorch.hub))


def _trusted(d):
    p = os.path.join(d, "trusted_list")
    if not os.path.exists(p):
        return None
    with open(p) as f:
        return f.read()


@pytest.mark.parametrize("model,args,kwargs", [
    ("entry", (1,), {}), ("entry", (1, 5), {"z": 3}), ("_private", (), {}),
    ("nope", (), {}), ("CONST", (), {}), ("not_callable", (), {}), (3, (), {}),
    ("Builder", (), {}),
])
def test_local_source(tmp_path, model, args, kwargs):
    folder = _repo(str(tmp_path / "r"), "loc")
    path_before = list(sys.path)

    def call(hub):
        r = hub.load(folder, model, *args, source="local", **kwargs)
        return type(r).__name__ if model == "Builder" else r

    t, n = _both(call)
    assert n == t
    assert sys.path == path_before and "hubconf" not in sys.modules


@pytest.mark.parametrize("source", ["xx", "LOCAL", "GitHub", ""])
def test_source_names(tmp_path, hubs, source):
    folder = _repo(str(tmp_path / "r"), "src")
    repo = folder if source.lower() != "github" else "owner/repo:main"
    t, n = _both(lambda hub: hub.load(repo, "entry", 1, source=source, trust_repo=True))
    assert n == t


def test_missing_hubconf(tmp_path):
    t, n = _both(lambda hub: hub.load(str(tmp_path / "none"), "entry", source="local"))
    assert n == t and t[0] == "FileNotFoundError"


@pytest.mark.parametrize("repo,kw", [
    ("owner/repo:main", {"trust_repo": True}),
    ("owner/repo", {"trust_repo": True, "skip_validation": True}),
    ("owner/old", {"trust_repo": True}),          # offline: the cached 'master'
    ("owner/br:feat/x", {"trust_repo": True}),    # '/' in the ref becomes '_'
    ("pytorch/vision", {}),
    ("owner/repo:main", {"trust_repo": None}),
    ("owner/repo:main", {"trust_repo": "check"}),
    ("owner/repo:main", {"trust_repo": "bogus"}),
    ("owner/dep:main", {"trust_repo": True}),
    ("owner/missing", {"trust_repo": True}),      # not cached, no network
    ("bad", {"trust_repo": True}),
    ("a/b:c:d", {"trust_repo": True}),
])
def test_cached_github(hubs, capfd, repo, kw):
    model = "entry"
    t = _outcome(lambda: torch.hub.load(repo, model, 7, **kw))
    t_err = capfd.readouterr().err.replace(hubs["torch"], "HUB")
    n = _outcome(lambda: numtorch.hub.load(repo, model, 7, **kw))
    n_err = capfd.readouterr().err.replace(hubs["numtorch"], "HUB")
    assert repr(n) == repr(t).replace(hubs["torch"], hubs["numtorch"])
    assert n_err == t_err
    assert _trusted(hubs["numtorch"]) == _trusted(hubs["torch"])


def test_verbose_false_is_quiet(hubs, capfd):
    numtorch.hub.load("owner/repo:main", "entry", 1, trust_repo=True, verbose=False)
    assert capfd.readouterr().err == ""


@pytest.mark.parametrize("answer", ["y", "yes", "YES", "n", "", "maybe"])
@pytest.mark.parametrize("trust", ["check", False])
def test_trust_prompt(hubs, monkeypatch, answer, trust):
    prompts = []

    def fake_input(prompt=""):
        prompts.append(prompt)
        return answer

    monkeypatch.setattr(builtins, "input", fake_input)
    # not cached: the answer decides; a yes then fails at the (absent) network, as torch
    repo = f"stranger/r{answer}:main"
    t = _outcome(lambda: torch.hub.load(repo, "entry", trust_repo=trust, skip_validation=True))
    n = _outcome(lambda: numtorch.hub.load(repo, "entry", trust_repo=trust,
                                           skip_validation=True))
    assert n[0] == t[0]
    if t[0] != "URLError":
        assert n == t
    assert len(prompts) == 2
    assert _trusted(hubs["numtorch"]) == _trusted(hubs["torch"])


def test_trust_check_on_cached_and_trusted_owner(hubs, monkeypatch):
    monkeypatch.setattr(builtins, "input", lambda prompt="": pytest.fail("asked"))
    numtorch.hub.load("owner/repo:main", "entry", 1, trust_repo="check")
    numtorch.hub.load("pytorch/vision", "entry", 1, trust_repo="check")
    # a repository trusted once is not asked about again
    monkeypatch.setattr(builtins, "input", lambda prompt="": "y")
    _outcome(lambda: numtorch.hub.load("new/one:main", "entry", skip_validation=True))
    monkeypatch.setattr(builtins, "input", lambda prompt="": pytest.fail("asked twice"))
    _outcome(lambda: numtorch.hub.load("new/one:main", "entry", skip_validation=True))
    assert _trusted(hubs["numtorch"]) == "new_one\n"


@pytest.mark.parametrize("call", [
    lambda hub: hub.list("owner/repo:main", trust_repo=True),
    lambda hub: hub.list("owner/dep:main", trust_repo=True),      # list does not check deps
    lambda hub: hub.help("owner/repo:main", "entry", trust_repo=True),
    lambda hub: hub.help("owner/repo:main", "CONST", trust_repo=True),
    lambda hub: hub.help("owner/repo:main", "nope", trust_repo=True),
    lambda hub: hub.help("owner/repo:main", 3, trust_repo=True),
    lambda hub: hub.list("owner/repo:main", trust_repo=True, verbose=False),
])
def test_list_and_help(hubs, call):
    t, n = _both(call)
    assert n == t


def test_constants():
    for name in ("DEFAULT_CACHE_DIR", "ENV_GITHUB_TOKEN", "ENV_TORCH_HOME", "ENV_XDG_CACHE_HOME",
                 "MODULE_HUBCONF", "VAR_DEPENDENCY", "READ_DATA_CHUNK"):
        assert getattr(numtorch.hub, name) == getattr(torch.hub, name), name
    assert numtorch.hub.HASH_REGEX.pattern == torch.hub.HASH_REGEX.pattern


# ---- a loopback GitHub: zipball downloads and the branches/tags API ----

def _zipball(top, files):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, text in files.items():
            zf.writestr(name if name.startswith("..") else f"{top}/{name}", text)
    return buf.getvalue()


class _FakeGitHub(http.server.BaseHTTPRequestHandler):
    routes = {}
    hits = []

    def do_GET(self):
        self.hits.append(self.path)
        path, _, page = self.path.partition("&page=")
        body = self.routes.get(path if page in ("", "1") else self.path)
        if body is None:
            body = b"[]" if "/repos/" in self.path else None
        if body is None:
            self.send_response(404)
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *a):
        pass


@pytest.fixture
def github(monkeypatch, tmp_path):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _FakeGitHub)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    monkeypatch.setattr(_hub_repos, "GITHUB", base)
    monkeypatch.setattr(_hub_repos, "GITHUB_API", base + "/api")
    _FakeGitHub.routes, _FakeGitHub.hits = {}, []
    old = numtorch.hub._HUB_DIR[0]
    numtorch.hub.set_dir(str(tmp_path / "hub"))
    yield _FakeGitHub
    numtorch.hub._HUB_DIR[0] = old
    server.shutdown()


def _serve_repo(gh, ref, files, branches=("main",)):
    hubconf = HUBCONF.format(tag="dl")
    files = {"hubconf.py": hubconf, "helper_mod_dl.py": "VALUE = 41\n", **files}
    gh.routes[f"/me/proj/zipball/{ref}"] = _zipball("me-proj-abc1234", files)
    gh.routes["/me/proj/tree/main/"] = b"ok"
    gh.routes["/api/repos/me/proj/branches?per_page=100"] = json.dumps(
        [{"name": b, "commit": {"sha": "abc1234" + "0" * 33}} for b in branches]).encode()


def test_download_extract_and_cache(github, capfd):
    _serve_repo(github, "main", {"sub/data.txt": "x"})
    out = numtorch.hub.load("me/proj", "entry", 1, trust_repo=True)
    assert out == ("entry", 1, 2, [], 41)
    folder = os.path.join(numtorch.hub.get_dir(), "me_proj_main")
    assert os.path.isfile(os.path.join(folder, "sub", "data.txt"))
    assert not os.path.exists(os.path.join(numtorch.hub.get_dir(), "main.zip"))
    out = capfd.readouterr().out  # torch names the download on stdout
    assert 'Downloading: "' in out and "/me/proj/zipball/main" in out
    # the second call uses the cache: no request at all
    github.hits.clear()
    assert numtorch.hub.load("me/proj:main", "entry", 2, trust_repo=True)[1] == 2
    assert github.hits == []
    # force_reload fetches again and replaces the folder
    _serve_repo(github, "main", {})
    numtorch.hub.load("me/proj:main", "entry", 3, trust_repo=True, force_reload=True)
    assert not os.path.exists(os.path.join(folder, "sub"))
    assert numtorch.hub.list("me/proj:main", trust_repo=True) == ["Builder", "entry"]


def test_default_ref_master_when_main_is_missing(github):
    _serve_repo(github, "master", {}, branches=("master",))
    del github.routes["/me/proj/tree/main/"]
    numtorch.hub.load("me/proj", "entry", 1, trust_repo=True)
    assert os.path.isdir(os.path.join(numtorch.hub.get_dir(), "me_proj_master"))


def test_validation_refuses_an_unknown_ref(github):
    _serve_repo(github, "v9", {})
    with pytest.raises(ValueError, match=r"Cannot find v9 in https://github.com/me/proj\."):
        numtorch.hub.load("me/proj:v9", "entry", 1, trust_repo=True)
    # skip_validation fetches it
    assert numtorch.hub.load("me/proj:v9", "entry", 1, trust_repo=True,
                             skip_validation=True)[0] == "entry"


@pytest.mark.parametrize("evil", ["../escaped.py", "other-top/x.py"])
def test_archive_entries_outside_the_repository_are_refused(github, tmp_path, evil):
    _serve_repo(github, "main", {})
    good = zipfile.ZipFile(io.BytesIO(github.routes["/me/proj/zipball/main"]))
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for info in good.infolist():
            zf.writestr(info, good.read(info))
        zf.writestr(evil, "import os\n")
    github.routes["/me/proj/zipball/main"] = buf.getvalue()
    with pytest.raises(RuntimeError, match="refusing the archive entry"):
        numtorch.hub.load("me/proj", "entry", 1, trust_repo=True)
    hub = numtorch.hub.get_dir()
    assert not os.path.exists(os.path.join(os.path.dirname(hub), "escaped.py"))
    assert not os.path.exists(os.path.join(hub, "me_proj_main"))


def test_hubconf_importing_torch_gets_numtorch(tmp_path):
    """Without real torch loaded, a hubconf's `import torch` is numtorch, and the alias is
    gone afterwards."""
    folder = tmp_path / "r"
    folder.mkdir()
    (folder / "hubconf.py").write_text(textwrap.dedent('''
        dependencies = ["torch"]
        import torch
        def net(n):
            return torch.nn.Linear(n, 2)
    '''))
    code = textwrap.dedent(f'''
        import sys
        import numtorch
        m = numtorch.hub.load({str(folder)!r}, "net", 3, source="local")
        print(type(m).__module__, isinstance(m, numtorch.nn.Linear), "torch" in sys.modules)
    ''')
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["numtorch.nn.modules.linear", "True", "False"]

