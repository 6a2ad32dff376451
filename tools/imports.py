"""The import graph of the three packages, read from the source (AST), and its circles.

Every import counts: at module level, inside a function, under `if TYPE_CHECKING:`. A circle is a
strongly connected component of two or more modules (or a module importing itself); each is
printed with one cycle through it. `python tools/imports.py` prints the circles and exits 1 when
there is one. Deliberately left out: imports of names built at run time (`importlib`), which the
packages do only for a break's own `signature.py`, found by walking its folder.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("diagnose", "grading", "scenarios")


def modules(root: Path = ROOT) -> dict[str, Path]:
    """Every module of the packages by its dotted name (a package by its own name)."""
    found: dict[str, Path] = {}
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def _imported(name: str, tree: ast.AST, known: dict[str, Path]) -> set[str]:
    package = name if known[name].name == "__init__.py" else name.rpartition(".")[0]
    targets: set[str] = set()

    def resolve(dotted: str) -> str | None:
        while dotted and dotted not in known:
            dotted = dotted.rpartition(".")[0]
        return dotted or None

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if (hit := resolve(alias.name)) is not None:
                    targets.add(hit)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            for alias in node.names:
                full = f"{base}.{alias.name}"
                hit = full if full in known else resolve(base)
                if hit is not None:
                    targets.add(hit)
    targets.discard(name) if name in targets and known[name].name == "__init__.py" else None
    return targets


def graph(root: Path = ROOT) -> dict[str, set[str]]:
    known = modules(root)
    return {name: _imported(name, ast.parse(path.read_text(encoding="utf-8")), known)
            for name, path in known.items()}


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with a cycle (Tarjan), each as one cycle through it."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    sys.setrecursionlimit(max(10_000, sys.getrecursionlimit()))

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1 or v in edges.get(v, ()):
                found.append(_cycle(sorted(component), edges))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return sorted(found)


def _cycle(component: list[str], edges: dict[str, set[str]]) -> list[str]:
    """One shortest cycle through the component's first module (breadth first)."""
    inside = set(component)
    start = component[0]
    paths = {start: [start]}
    frontier = [start]
    while frontier:
        nxt = []
        for v in frontier:
            for w in sorted(edges[v] & inside):
                if w == start:
                    return paths[v] + [start]
                if w not in paths:
                    paths[w] = paths[v] + [w]
                    nxt.append(w)
        frontier = nxt
    return component


def main() -> int:
    found = circles(graph())
    for cycle in found:
        print(" -> ".join(cycle))
    print(f"{len(found)} import circle(s)")
    return 1 if found else 0


if __name__ == "__main__":
    raise SystemExit(main())
