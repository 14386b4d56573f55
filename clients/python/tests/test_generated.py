"""tools/gen_types.py: the checked-in wire_types.py / wire_calls.py / wire_methods.py are what
it makes of clients/openrpc.json, and it handles the whole schema subset of the contract (the
fixture)."""
import importlib.util
import json
import shutil
import subprocess
import sys
import typing

import pytest

from openrpc_doc import FIXTURE, PYTHON_DIR, load_document

GENERATOR = PYTHON_DIR / "tools" / "gen_types.py"
PACKAGE = PYTHON_DIR / "fetchd"
GENERATED = ("wire_types.py", "wire_calls.py", "wire_methods.py")


def generator():
    spec = importlib.util.spec_from_file_location("gen_types", GENERATOR)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_regenerating_from_the_document_changes_nothing(tmp_path):
    load_document()  # fails when clients/openrpc.json is absent
    result = subprocess.run([sys.executable, str(GENERATOR), "--output-dir", str(tmp_path)],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(GENERATED)
    for name in GENERATED:
        fresh = (tmp_path / name).read_text(encoding="utf-8")
        assert fresh == (PACKAGE / name).read_text(encoding="utf-8"), \
            f"fetchd/{name} is stale: run python3 clients/python/tools/gen_types.py"


def test_check_mode_reports_a_stale_file(tmp_path):
    for name in GENERATED:
        (tmp_path / name).write_text("stale\n")
    args = ["--input", str(FIXTURE), "--output-dir", str(tmp_path)]
    assert generator().main(args + ["--check"]) == 1
    assert generator().main(args) == 0
    assert generator().main(args + ["--check"]) == 0


@pytest.fixture(scope="module")
def fixture_package(tmp_path_factory):
    """A copy of the package whose wire modules come from the fixture document."""
    root = tmp_path_factory.mktemp("generated")
    shutil.copytree(PACKAGE, root / "fetchd", ignore=shutil.ignore_patterns("__pycache__", "wire_*.py"))
    assert generator().main(["--input", str(FIXTURE), "--output-dir", str(root / "fetchd")]) == 0
    return root


def load(root, name):
    sys.path.insert(0, str(root))
    saved = {k: v for k, v in sys.modules.items() if k == "fetchd" or k.startswith("fetchd.")}
    for key in saved:
        del sys.modules[key]
    try:
        return importlib.import_module(f"fetchd.{name}")
    finally:
        sys.path.remove(str(root))
        for key in [k for k in sys.modules if k == "fetchd" or k.startswith("fetchd.")]:
            del sys.modules[key]
        sys.modules.update(saved)


def test_the_fixture_generates_typed_dicts_literals_and_unions(fixture_package):
    types = load(fixture_package, "wire_types")
    assert typing.get_args(types.ObjectChangeType) == ("insert", "delete", "move", "update")
    assert typing.get_args(types.ContextCreateParamsMergePolicy) == (
        "error", "objectTrump", "storeTrump", "overwrite", "rollback")
    assert typing.get_args(types.SortDescriptorComparator)[0] == "compare"
    assert types.FetchRequest.__required_keys__ == {"entity"}
    assert "sortDescriptors" in types.FetchRequest.__optional_keys__
    assert types.SectionInfo.__required_keys__ == {"name", "indexTitle", "numberOfObjects"}
    assert types.ControllerCreateParamsNotify.__optional_keys__ == {"keys", "objects", "mode"}
    assert types.Object == typing.Dict[str, typing.Any]  # open object: any keys besides id
    assert types.ObjectID is str
    assert types.IndexPath == typing.List[int]
    # oneOf with a title, const, nested inline objects, type arrays, keys that are keywords
    assert set(typing.get_args(types.Shape)) == {typing.ForwardRef("Circle"), typing.ForwardRef("ShapeOption2")}
    assert types.ShapeOption2Size.__required_keys__ == {"w"}
    assert set(typing.get_args(types.Scalar)) == {str, float, bool, type(None)}
    assert types.Odd.__required_keys__ == {"from"}
    assert types.Odd.__optional_keys__ == {"not-an-identifier", "class"}
    assert typing.get_args(types.Weekday) == ("mon", "tue")


def test_the_fixture_generates_a_builder_and_both_mixins_per_request(fixture_package):
    calls = load(fixture_package, "wire_calls")
    methods = load(fixture_package, "wire_methods")
    doc = json.loads(FIXTURE.read_text(encoding="utf-8"))
    wire = [m["name"] for m in doc["methods"] if "result" in m]
    assert list(calls.REQUESTS) == wire
    call = calls.Calls.controller_rows("c", 2, limit=5)
    assert (call.method, call.params) == ("controller/rows", {"controller": "c", "section": 2, "limit": 5})
    assert calls.Calls.shutdown().params is None
    # Descriptions reach the docstrings intact, quotes and backslashes included.
    assert 'context: the context\'s name ("main" after store/open; a \\\\ is kept)' in calls.Calls.context_insert.__doc__
    for name in calls.REQUESTS.values():
        assert callable(getattr(methods.SyncMethods, name)) and callable(getattr(methods.AsyncMethods, name))


def test_the_package_generated_from_the_fixture_passes_mypy_strict(fixture_package):
    import mypy  # noqa: F401  (installed by scripts/test-python.sh; missing fails)
    result = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-incremental", "fetchd"],
                            cwd=fixture_package, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
