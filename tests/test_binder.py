"""Binder: the repository has what repo2docker reads, the README's badge opens it, and the pins install.

repo2docker (what mybinder.org runs) builds an image from ``runtime.txt`` (``python-X.Y``) and
``pip install -r requirements.txt``. The fast tests check those files and the README's badge; the slow one
does what repo2docker does, for real: a fresh virtual environment of the Python version that
``runtime.txt`` names, ``pip install -r requirements.txt`` into it (pip's cache is used; ``--dry-run``
would not catch a wheel that fails to install or a module that fails to import), then every module of
``lib`` is imported there, from a folder outside the repository, and the installed versions are the pinned
ones.
"""

from __future__ import annotations

import json
import re
import tomllib
import urllib.parse

import pytest
from packaging.specifiers import SpecifierSet

import booksite

ROOT = booksite.ROOT
CONFIG = booksite.config()


def _requirement_lines():
    lines = []
    for raw in (ROOT / "requirements.txt").read_text().splitlines():
        line = raw.split("#", 1)[0].strip()
        if line:
            lines.append(line)
    return lines


def test_runtime_txt_names_the_python_the_project_supports():
    text = (ROOT / "runtime.txt").read_text().strip()
    match = re.fullmatch(r"python-(\d+\.\d+)", text)
    assert match, f"runtime.txt must read python-X.Y for repo2docker, not {text!r}"
    requires = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["requires-python"]
    assert SpecifierSet(requires).contains(match.group(1) + ".0"), f"runtime.txt's {text} is outside {requires}"
    makefile = (ROOT / "Makefile").read_text()
    assert re.search(
        rf"^PYTHON \?= python{re.escape(match.group(1))}$", makefile, re.M
    ), f"the Makefile's PYTHON should be the {text} that Binder uses"


def test_every_requirement_is_pinned_exactly():
    loose = [
        line
        for line in _requirement_lines()
        if line not in ("-e .", "-c constraints.txt") and not re.fullmatch(r"[A-Za-z0-9_.\-]+==[^\s=<>~!]+", line)
    ]
    assert loose == [], f"requirements.txt lines that are not name==version: {loose}"
    names = [line.split("==")[0].lower() for line in _requirement_lines() if "==" in line]
    assert len(names) == len(set(names)), "a package is pinned twice"
    assert (
        "-e ." in _requirement_lines()
    ), "requirements.txt must install this project (-e .) so `import lib` works on Binder"


def test_readme_binder_badge_opens_this_repository():
    readme = (ROOT / "README.md").read_text()
    badges = re.findall(r"\[!\[Binder\]\((https://mybinder\.org/badge[^)]*)\)\]\(([^)]+)\)", readme)
    assert len(badges) == 1, f"expected one Binder badge in README.md, found {badges}"
    _, target = badges[0]
    repo = CONFIG["repository"]
    owner_name = urllib.parse.urlsplit(repo["url"]).path.strip("/")
    binderhub = CONFIG["launch_buttons"]["binderhub_url"].rstrip("/")
    match = re.fullmatch(
        re.escape(binderhub) + rf"/v2/gh/{re.escape(owner_name)}/{re.escape(repo['branch'])}"
        r"(?:\?urlpath=(?:lab/)?tree/(.+))?",
        target,
    )
    assert match, f"the badge opens {target}, not {owner_name} at {repo['branch']} on {binderhub}"
    path = urllib.parse.unquote(match.group(1) or "")
    if path:
        assert (ROOT / path).exists() and booksite.git_tracked(path), f"the badge opens {path}, not in the repository"


@pytest.mark.slow
def test_pinned_requirements_install_in_a_fresh_environment(tmp_path):
    python = booksite.fresh_venv(tmp_path / "venv")
    env = booksite.clean_env()
    # as repo2docker: from the repository's root, so that `-e .` installs this project
    booksite.run(
        [str(python), "-m", "pip", "install", "--quiet", "-r", "requirements.txt"],
        cwd=ROOT,
        env=env,
        what="installing requirements.txt into a fresh environment",
    )
    booksite.run([str(python), "-m", "pip", "check"], cwd=tmp_path, env=env, what="pip check")

    # every module of lib imports there, and the installed versions are the pinned ones
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    script = (
        "import importlib, importlib.metadata as md, json, pkgutil, sys\n"
        "import lib\n"
        "names = [m.name for m in pkgutil.walk_packages(lib.__path__, 'lib.')]\n"
        "failed = {}\n"
        "for name in names:\n"
        "    try:\n"
        "        importlib.import_module(name)\n"
        "    except Exception as error:\n"
        "        failed[name] = repr(error)\n"
        "pins = json.loads(sys.argv[1])\n"
        "versions = {name: md.version(name) for name in pins}\n"
        "print(json.dumps({'lib': lib.__file__, 'modules': names, 'failed': failed, 'versions': versions,\n"
        "                  'python': list(sys.version_info[:2])}))\n"
    )
    pins = booksite.requirement_pins()
    result = booksite.run(
        [str(python), "-c", script, json.dumps(sorted(pins))],
        cwd=outside,
        env=env,
        what="importing lib in the Binder environment",
    )
    seen = json.loads(result.stdout.strip().splitlines()[-1])
    assert seen["lib"] == str(ROOT / "lib" / "__init__.py"), f"lib imported from {seen['lib']}"
    assert len(seen["modules"]) >= 5 and "lib.figures.style" in seen["modules"], seen["modules"]
    assert seen["failed"] == {}, f"modules of lib that do not import on Binder: {seen['failed']}"
    wrong = {
        name: (got, pins[name])
        for name, got in seen["versions"].items()
        if got.split("+")[0] != pins[name].split("+")[0]
    }
    assert wrong == {}, f"installed versions differ from the pins (got, pinned): {wrong}"
    runtime = (ROOT / "runtime.txt").read_text().strip().removeprefix("python-")
    assert ".".join(map(str, seen["python"])) == runtime, f"Binder would run Python {runtime}, not {seen['python']}"
