"""The OpenRPC document and the Python name mapping the tests check the clients against.

The mapping (also in tools/gen_types.py's docstring and the README), applied here on its own
so a wrong generator cannot agree with itself:
- method: drop ``rpc.``, split at ``/`` and ``.``, camelCase -> snake_case, join with ``_``;
- parameter: camelCase -> snake_case, ``id`` -> ``object_id``, a keyword (or ``self``) gets a
  trailing ``_``.
"""
import inspect
import json
import keyword
import re
from pathlib import Path
from typing import Any, Dict, List, Optional

import pytest

PYTHON_DIR = Path(__file__).resolve().parents[1]
REPO = PYTHON_DIR.parents[1]
DOCUMENT = REPO / "clients" / "openrpc.json"
FIXTURE = Path(__file__).resolve().parent / "fixtures" / "openrpc-fixture.json"


def load_document() -> Dict[str, Any]:
    """clients/openrpc.json; the test is skipped when the checkout does not have it yet."""
    if not DOCUMENT.is_file():
        pytest.skip(f"{DOCUMENT} is not in this checkout")
    return json.loads(DOCUMENT.read_text(encoding="utf-8"))


def snake(name: str) -> str:
    return re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name).lower()


def method_name(wire: str) -> str:
    if wire.startswith("rpc."):
        wire = wire[4:]
    return "_".join(snake(part) for part in re.split(r"[/.]", wire) if part not in ("", "$"))


def param_name(wire: str) -> str:
    if wire == "id":
        return "object_id"
    name = snake(wire)
    return name + "_" if keyword.iskeyword(name) or name == "self" else name


def requests(doc: Dict[str, Any]) -> List[Dict[str, Any]]:
    """Client-to-server methods with a result."""
    return [m for m in doc["methods"] if "result" in m and m.get("x-direction", "clientToServer") == "clientToServer"]


def coverage_problems(doc: Dict[str, Any], cls: type, is_async: bool) -> List[str]:
    """Every way ``cls`` differs from the document's requests (empty: it covers them)."""
    problems = []
    for method in requests(doc):
        name = method_name(method["name"])
        function: Optional[Any] = getattr(cls, name, None)
        if function is None or not callable(function):
            problems.append(f"{cls.__name__} has no {name}() for {method['name']}")
            continue
        if inspect.iscoroutinefunction(function) != is_async:
            problems.append(f"{cls.__name__}.{name} is {'not ' if is_async else ''}a coroutine function")
        parameters = dict(inspect.signature(function).parameters)
        parameters.pop("self", None)
        wanted = {param_name(p["name"]): bool(p.get("required")) for p in method.get("params", [])}
        if set(parameters) != set(wanted):
            problems.append(f"{cls.__name__}.{name}{tuple(parameters)} != {method['name']} params {tuple(wanted)}")
            continue
        for pname, required in wanted.items():
            has_default = parameters[pname].default is not inspect.Parameter.empty
            if has_default == required:
                problems.append(f"{cls.__name__}.{name}: {pname} is {'required' if required else 'optional'} "
                                f"in {method['name']}")
    return problems
