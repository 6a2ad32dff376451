"""Every function of the three packages fits in one reading: at most 60 lines and at most six
parameters (issue 22).

Walked with `ast` over diagnose/, grading/ and scenarios/. Not counted: `self` and `cls`, and
click command callbacks (a command's options are its parameters; the CLI is their one
reader). A dataclass's generated `__init__` is not in the source, so it is not walked. `*args`
and `**kwargs` count as one parameter each, and passing `**kwargs` on to another call (other
than `str.format`) hides that call's parameters behind one name: it is refused unless listed in
`FORWARDS` with the reason.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("diagnose", "grading", "scenarios")
MAX_LINES = 60
MAX_PARAMS = 6
FORWARDS = {  # functions that pass **kwargs on, and why that hides nothing
    "diagnose/cli/params.py:PathArg.__init__": "click.Path's own options, documented by click",
    "grading/autograder.py:Refused.__init__": "a message's format fields, for `tell`",
    "diagnose/runs/torch_hooks.py:ModelRecorder.log": "a step's values, Recorder.log checks each",
}
STANDS_IN = {  # functions that take another library's parameters, as that library names them
    "diagnose/runs/torch_hooks.py:ModelRecorder._attention_call":
        "torch's F.scaled_dot_product_attention, which it stands in for during probe passes",
}


class Shape(ast.NodeVisitor):
    """Each function's qualified name, line count, parameter count and forwarded **kwargs."""

    def __init__(self, path: str) -> None:
        self.path, self.scope, self.found = path, [], []

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.scope.append(node.name)
        self.generic_visit(node)
        self.scope.pop()

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        name = ".".join([*self.scope, node.name])
        if not is_command(node):
            args = node.args
            params = [a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)
                      if a.arg not in ("self", "cls")]
            params += [a.arg for a in (args.vararg, args.kwarg) if a is not None]
            self.found.append((f"{self.path}:{name}", node.lineno,
                               node.end_lineno - node.lineno + 1, len(params),
                               forwards(node)))
        self.scope.append(node.name)
        self.generic_visit(node)
        self.scope.pop()

    visit_AsyncFunctionDef = visit_FunctionDef


def is_command(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """A click command callback: decorated with a command, an option or an argument."""
    return any(word in ast.unparse(d) for d in node.decorator_list
               for word in ("command", "option", "argument"))


def forwards(node: ast.FunctionDef | ast.AsyncFunctionDef) -> str | None:
    """The name of the **kwargs the function passes on to a call other than `.format`."""
    if node.args.kwarg is None:
        return None
    name = node.args.kwarg.arg
    return name if any(isinstance(call, ast.Call) and any(
                   k.arg is None and isinstance(k.value, ast.Name) and k.value.id == name
                   for k in call.keywords)
               and not (isinstance(call.func, ast.Attribute) and call.func.attr == "format")
               for call in ast.walk(node)) else None


def functions(root: Path) -> list[tuple[str, int, int, int, str | None]]:
    found = []
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            shape = Shape(path.relative_to(root).as_posix())
            shape.visit(ast.parse(path.read_text(encoding="utf-8")))
            found += shape.found
    return found


def offenders(root: Path) -> list[str]:
    out = []
    for name, line, lines, params, forwarded in functions(root):
        if lines > MAX_LINES or (params > MAX_PARAMS and name not in STANDS_IN):
            out.append(f"{name} (line {line}): {lines} lines, {params} parameters")
        if forwarded and name not in FORWARDS:
            out.append(f"{name} (line {line}): passes **{forwarded} on to another call")
    return out


def test_every_function_is_at_most_60_lines_and_6_parameters():
    found = offenders(ROOT)
    assert not found, ("over the limits (60 lines, 6 parameters; click commands and "
                       "dataclasses aside):\n  " + "\n  ".join(found))


def test_the_exemptions_name_real_functions():
    names = {name for name, *_ in functions(ROOT)}
    assert not [n for n in (*FORWARDS, *STANDS_IN) if n not in names]


@pytest.mark.parametrize(("source", "expected"), [
    ("def f(a, b, c, d, e, f, g): pass", "f (line 1): 1 lines, 7 parameters"),
    ("def f(a, *args, **kwargs): return g(**kwargs)", "f (line 1): passes **kwargs on"),
    ("def f(*, a, b, c, d, e, f, g): pass", "f (line 1): 1 lines, 7 parameters"),
    ("class C:\n    def m(self, a, b, c, d, e, f, g): pass", "C.m (line 2): 1 lines, 7"),
    ("def f(a):\n" + "    a += 1\n" * 60, "f (line 1): 61 lines, 1 parameters"),
])
def test_the_walk_finds_each_kind_of_offender(tmp_path, source, expected):
    (tmp_path / "diagnose").mkdir()
    (tmp_path / "diagnose" / "m.py").write_text(source)
    (found,) = offenders(tmp_path)
    assert found.startswith(f"diagnose/m.py:{expected}")


@pytest.mark.parametrize("source", [
    "def f(a, b, c, d, e, f): pass",
    "def f(text, **fields): return text.format(**fields)",
    "@cli.command()\n@click.option('--a')\ndef f(a, b, c, d, e, f, g): pass",
    "def f(a):\n" + "    a += 1\n" * 59,
])
def test_the_walk_lets_the_allowed_shapes_pass(tmp_path, source):
    (tmp_path / "diagnose").mkdir()
    (tmp_path / "diagnose" / "m.py").write_text(source)
    assert offenders(tmp_path) == []


# --- a thin CLI (issue 36): a command parses, builds its options and calls one function --------

MAX_COMMAND_BODY = 20  # lines of a command callback's body, its docstring left out
MAX_CLI_MODULE = 500  # lines of a module of diagnose/cli/


def body_lines(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """The lines of `node`'s body from its first statement after the docstring to its end."""
    body = node.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
            and isinstance(body[0].value.value, str):
        body = body[1:]
    return 0 if not body else (body[-1].end_lineno or body[-1].lineno) - body[0].lineno + 1


def fat_cli(root: Path) -> list[str]:
    """Each command callback of diagnose/cli/ over MAX_COMMAND_BODY lines, and each module of
    it over MAX_CLI_MODULE lines."""
    out = []
    for path in sorted((root / "diagnose" / "cli").glob("*.py")):
        text = path.read_text(encoding="utf-8")
        name = path.relative_to(root).as_posix()
        if len(text.splitlines()) > MAX_CLI_MODULE:
            out.append(f"{name}: {len(text.splitlines())} lines")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and is_command(node) \
                    and body_lines(node) > MAX_COMMAND_BODY:
                out.append(f"{name}:{node.name} (line {node.lineno}): a body of "
                           f"{body_lines(node)} lines")
    return out


def test_every_command_is_thin_and_every_cli_module_small():
    found = fat_cli(ROOT)
    assert not found, (f"over the thin CLI's limits ({MAX_COMMAND_BODY} lines of a command's "
                       f"body, {MAX_CLI_MODULE} of a module):\n  " + "\n  ".join(found))


@pytest.mark.parametrize(("source", "expected"), [
    ("@cli.command()\ndef f():\n    '''Doc.'''\n" + "    a = 1\n" * 21,
     ["diagnose/cli/m.py:f (line 2): a body of 21 lines"]),
    ("@cli.command()\ndef f():\n    '''Doc\n" + "    more doc\n" * 30 + "    '''\n"
     + "    a = 1\n" * 20, []),
    ("def helper():\n" + "    a = 1\n" * 40, []),  # not a command: test_every_function's
    ("x = 1\n" * 501, ["diagnose/cli/m.py: 501 lines"]),
])
def test_the_cli_walk_counts_bodies_without_docstrings(tmp_path, source, expected):
    (tmp_path / "diagnose" / "cli").mkdir(parents=True)
    (tmp_path / "diagnose" / "cli" / "m.py").write_text(source)
    assert fat_cli(tmp_path) == expected
