"""``hub.load`` / ``hub.list`` / ``hub.help``: models from a repository's ``hubconf.py``.

A repository is a local folder (``source="local"``) or a GitHub ``owner/name[:ref]``, fetched
once as a zipball into ``<hub dir>/<owner>_<name>_<ref>`` and used from there afterwards
(without asking the network, so a cached repository loads offline). The trust prompt, the
``trusted_list`` file and the error texts follow torch's behaviour.
"""

import contextlib
import importlib.util
import json
import os
import shutil
import sys
import urllib.error
import urllib.request
import zipfile

# The hosts are attributes so that tests can point them at a loopback server.
GITHUB = "https://github.com"
GITHUB_API = "https://api.github.com"
# owners whose repositories are trusted without asking
TRUSTED_OWNERS = ("facebookresearch", "facebookincubator", "pytorch", "fairinternal")
HUBCONF = "hubconf.py"
DEPENDENCIES = "dependencies"


def _hub_dir():
    from . import hub

    return hub.get_dir()


def _parse(github):
    owner_name, ref = github.split(":") if ":" in github else (github, None)
    owner, name = owner_name.split("/")
    return owner, name, ref


def _repo_dir(owner, name, ref):
    return os.path.join(_hub_dir(), f"{owner}_{name}_{ref.replace('/', '_')}")


def _default_ref(owner, name):
    """'main' if the repository has that branch, else 'master'; offline, whichever is cached."""
    try:
        with urllib.request.urlopen(f"{GITHUB}/{owner}/{name}/tree/main/"):
            return "main"
    except urllib.error.HTTPError as e:
        if e.code == 404:
            return "master"
        raise
    except urllib.error.URLError as e:
        for ref in ("main", "master"):
            if os.path.exists(_repo_dir(owner, name, ref)):
                return ref
        raise RuntimeError("It looks like there is no internet connection and the repo could "
                           f"not be found in the cache ({_hub_dir()})") from e


def _check_trusted(owner, name, ref, trust_repo, calling_fn):
    hub_dir = _hub_dir()
    os.makedirs(hub_dir, exist_ok=True)
    listing = os.path.join(hub_dir, "trusted_list")
    if not os.path.exists(listing):
        open(listing, "a").close()
    with open(listing) as f:
        trusted = {line.strip() for line in f}
    owner_name = f"{owner}_{name}"
    # a repository already in the cache was trusted when it was fetched
    cached = os.path.basename(_repo_dir(owner, name, ref))
    is_trusted = (owner_name in trusted or owner in TRUSTED_OWNERS
                  or os.path.isdir(os.path.join(hub_dir, cached)))
    if trust_repo is False or (trust_repo == "check" and not is_trusted):
        answer = input(f"Repository {owner_name} is not in the list of trusted repositories, so "
                       f"{calling_fn}() will not fetch it. Trust it and add it to the list "
                       f"(y/N)?").strip().lower()
        if answer in ("n", "no", ""):
            raise Exception("Untrusted repository.")  # noqa: TRY002 - torch raises this class
        if answer not in ("y", "yes"):
            raise ValueError(f"Unrecognized response {answer}.")
    if not is_trusted:
        with open(listing, "a") as f:
            f.write(owner_name + "\n")


def _api_names(url, token):
    request = urllib.request.Request(url)
    if token:
        request.add_header("Authorization", f"token {token}")
    with urllib.request.urlopen(request) as resp:
        return json.loads(resp.read().decode("utf-8"))


def _validate_ref(owner, name, ref):
    """Refuse a ref that is neither a branch nor a tag nor a commit of this very repository
    (a commit of a fork would otherwise be fetched under the parent's name)."""
    token = os.environ.get("GITHUB_TOKEN")
    for kind in ("branches", "tags"):
        page = 1
        while True:
            entries = _api_names(f"{GITHUB_API}/repos/{owner}/{name}/{kind}?per_page=100"
                                 f"&page={page}", token)
            if not entries:
                break
            for entry in entries:
                if ref in (entry["name"], entry["commit"]["sha"]) or \
                        entry["commit"]["sha"].startswith(ref):
                    return
            page += 1
    raise ValueError(f"Cannot find {ref} in https://github.com/{owner}/{name}. If it's a "
                     "commit from a forked repo, please call hub.load() with forked repo "
                     "directly.")


def _extract(archive, hub_dir, target):
    """Unpack a GitHub zipball (one top folder) into ``target``, refusing entries that would
    land outside the hub folder."""
    root = os.path.realpath(hub_dir)
    with zipfile.ZipFile(archive) as zf:
        names = zf.namelist()
        if not names:
            raise RuntimeError(f"{archive} is an empty archive")
        top = names[0].split("/")[0]
        for entry in names:
            dest = os.path.realpath(os.path.join(root, entry))
            if entry.split("/")[0] != top or os.path.commonpath([root, dest]) != root:
                raise RuntimeError(f"{archive}: refusing the archive entry {entry!r}, "
                                   "which lies outside the repository's folder")
        zf.extractall(root)
    if os.path.exists(target):
        shutil.rmtree(target)
    shutil.move(os.path.join(root, top), target)


def _fetch(github, force_reload, trust_repo, calling_fn, verbose=True, skip_validation=False):
    from . import hub

    owner, name, ref = _parse(github)
    if ref is None:
        ref = _default_ref(owner, name)
    _check_trusted(owner, name, ref, trust_repo, calling_fn)
    hub_dir = _hub_dir()
    target = _repo_dir(owner, name, ref)
    if os.path.exists(target) and not force_reload:
        if verbose:
            sys.stderr.write(f"Using cache found in {target}\n")
        return target
    if not skip_validation:
        _validate_ref(owner, name, ref)
    archive = os.path.join(hub_dir, ref.replace("/", "_") + ".zip")
    url = f"{GITHUB}/{owner}/{name}/zipball/{ref}"
    sys.stdout.write(f'Downloading: "{url}" to {archive}\n')
    hub.download_url_to_file(url, archive, progress=False)
    try:
        _extract(archive, hub_dir, target)
    finally:
        with contextlib.suppress(OSError):
            os.remove(archive)
    return target


@contextlib.contextmanager
def _torch_names():
    """While a hubconf runs, let its ``import torch`` find numtorch when real torch is not
    already loaded (under ``numtorch.run`` the alias is on anyway)."""
    from . import _import_hook

    if _import_hook.is_installed() or "torch" in sys.modules:
        yield
        return
    before = set(sys.modules)
    _import_hook.install()
    try:
        yield
    finally:
        _import_hook.uninstall()
        for key in set(sys.modules) - before:
            if _import_hook.real_name(key) is not None:
                del sys.modules[key]


def _missing(deps):
    from . import _import_hook

    def found(dep):
        if importlib.util.find_spec(dep) is not None:
            return True
        real = _import_hook.real_name(dep)
        return real is not None and importlib.util.find_spec(real) is not None

    return [dep for dep in deps if not found(dep)]


@contextlib.contextmanager
def _hubconf(folder, check_dependencies=True):
    sys.path.insert(0, folder)
    try:
        with _torch_names():
            spec = importlib.util.spec_from_file_location("hubconf", os.path.join(folder,
                                                                                  HUBCONF))
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            missing = _missing(getattr(module, DEPENDENCIES, [])) if check_dependencies else []
            if missing:
                raise RuntimeError(f"Missing dependencies: {', '.join(missing)}")
            yield module
    finally:
        with contextlib.suppress(ValueError):
            sys.path.remove(folder)


def _entry(module, model):
    if not isinstance(model, str):
        raise ValueError("Invalid input: model should be a string of function name")  # noqa: TRY004 - torch raises ValueError
    fn = getattr(module, model, None)
    if fn is None or not callable(fn):
        raise RuntimeError(f"Cannot find callable {model} in hubconf")
    return fn


def load_local(hubconf_dir, model, *args, **kwargs):
    with _hubconf(hubconf_dir) as module:
        return _entry(module, model)(*args, **kwargs)


def load(repo_or_dir, model, *args, source="github", trust_repo="check", force_reload=False,
         verbose=True, skip_validation=False, **kwargs):
    source = source.lower()
    if source not in ("github", "local"):
        raise ValueError(f'Unknown source: "{source}". Allowed values: "github" | "local".')
    if source == "github":
        repo_or_dir = _fetch(repo_or_dir, force_reload, trust_repo, "load", verbose=verbose,
                             skip_validation=skip_validation)
    return load_local(repo_or_dir, model, *args, **kwargs)


def list_entrypoints(github, force_reload=False, skip_validation=False, trust_repo="check",
                     verbose=True):
    folder = _fetch(github, force_reload, trust_repo, "list", verbose=verbose,
                    skip_validation=skip_validation)
    with _hubconf(folder, check_dependencies=False) as module:
        return [f for f in dir(module) if callable(getattr(module, f)) and not f.startswith("_")]


def entrypoint_doc(github, model, force_reload=False, skip_validation=False, trust_repo="check"):
    folder = _fetch(github, force_reload, trust_repo, "help", verbose=True,
                    skip_validation=skip_validation)
    with _hubconf(folder, check_dependencies=False) as module:
        return _entry(module, model).__doc__
