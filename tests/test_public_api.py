"""Our code leans on its dependencies' public API only (issue 12): no `_name` imported from a
dependency or from its private modules, and no private attribute of a Textual object read.

Private attributes are recognised by name: those Textual's own classes assign (`self._x = …`)
and our sources never define themselves.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import textual

ROOT = Path(__file__).resolve().parents[1]
OURS = {"diagnose", "grading", "scenarios", "tests", "bench"}
SOURCES = sorted(path for folder in ("diagnose", "bench", "tests")
                 for path in (ROOT / folder).rglob("*.py"))
ASSIGNED = re.compile(r"self\.(_[a-z]\w*)\s*[:=]")


def private_names_of(files) -> set[str]:
    return {name for path in files for name in ASSIGNED.findall(path.read_text(encoding="utf-8"))}


TEXTUAL_PRIVATE = private_names_of(Path(textual.__file__).parent.rglob("*.py"))
OUR_PRIVATE = private_names_of(SOURCES)


def is_private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def is_stdlib_module(node: ast.expr) -> bool:
    """`os._exit` is the standard library's public API, whatever Textual names its own."""
    return isinstance(node, ast.Name) and node.id in sys.stdlib_module_names


def offences(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            parts = node.module.split(".")
            if parts[0] in OURS:
                continue
            if any(is_private(part) for part in parts):
                found.append(f"{path}:{node.lineno}: from {node.module} import …")
            found += [f"{path}:{node.lineno}: from {node.module} import {alias.name}"
                      for alias in node.names if is_private(alias.name)]
        elif isinstance(node, ast.Import):
            found += [f"{path}:{node.lineno}: import {alias.name}" for alias in node.names
                      if alias.name.split(".")[0] not in OURS
                      and any(is_private(part) for part in alias.name.split("."))]
        elif (isinstance(node, ast.Attribute) and node.attr in TEXTUAL_PRIVATE
              and node.attr not in OUR_PRIVATE and not is_stdlib_module(node.value)):
            found.append(f"{path}:{node.lineno}: .{node.attr}")
    return found


def test_the_scan_finds_what_it_looks_for(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("from textual.renderables._blend_colors import blend_colors\n"
                   "from textual.app import _private\n"
                   "strips = app.screen._compositor.render_strips()\n"
                   "node._bindings.key_to_bindings.clear()\n"
                   "os._exit(3)\n")
    assert len(offences(bad)) == 4


def test_no_private_name_of_a_dependency_is_used():
    assert SOURCES and {"_compositor", "_bindings"} <= TEXTUAL_PRIVATE
    assert [offence for path in SOURCES for offence in offences(path)] == []
