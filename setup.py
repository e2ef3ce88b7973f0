"""The package list of the one `tessera` namespace (pyproject.toml holds everything else: the
metadata, the package-dir mapping of dsl/, compiler/, verifier/, pictures/, rules/ and docs/ under
`tessera.`, and the package data).  The list is found from the folders as the build runs, so a new
subpackage (dsl/checks/, say) or a new folder of records is installed without an edit here."""
from __future__ import annotations

from pathlib import Path

from setuptools import setup

ROOT = Path(__file__).resolve().parent
CODE = ("tessera", "dsl", "compiler", "verifier", "pictures", "play", "replay")  # folders of Python packages
DATA = ("rules",)  # folders of data, every subfolder a (data-only) package so that setuptools takes it as is


def packages(root: Path = ROOT) -> list[str]:
    found = ["tessera.docs"]  # docs/*.md (package data)
    for top in CODE:
        for init in sorted((root / top).rglob("__init__.py")):
            parts = init.parent.relative_to(root / top).parts
            found.append(".".join(("tessera", *([] if top == "tessera" else [top]), *parts)))
    for top in DATA:
        folders = (d for d in (root / top).rglob("*") if d.is_dir() and not d.name.startswith((".", "__")))
        for folder in [root / top, *sorted(folders)]:
            found.append(".".join(("tessera", *folder.relative_to(root).parts)))
    return sorted(set(found))


if __name__ == "__main__":
    setup(packages=packages())
