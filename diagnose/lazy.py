"""A feature package's public face, imported when a name is first used (PEP 562).

Each subpackage of `diagnose` (`game`, `classroom`, `runs`, `views`, `diagnosis`) names the few
things other code calls in its `__init__`: `from diagnose.game import create_scenario` reads
better than the module path, and the face costs nothing until a name is read, so
`diagnose --help` and the app's first frame import no more than before (bench/cli_startup.py,
bench/tui.py).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def face(package: str, names: Mapping[str, str]) -> tuple[Callable[[str], Any],
                                                          Callable[[], list[str]]]:
    """`__getattr__` and `__dir__` for `package`: `names` maps each public name to the module
    of the package that defines it ("scenario" for `package.scenario`)."""
    def __getattr__(name: str) -> Any:
        module = names.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{module}"), name)
        globals_of(package)[name] = value  # read once; later reads are plain attributes
        return value

    def __dir__() -> list[str]:
        return sorted(set(globals_of(package)) | set(names))

    return __getattr__, __dir__


def globals_of(package: str) -> dict[str, Any]:
    return vars(importlib.import_module(package))
