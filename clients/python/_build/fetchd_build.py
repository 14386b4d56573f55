"""A minimal PEP 517/660 build backend for the pure-Python fetchd package.

The package has no dependencies and one import package (fetchd/), so a wheel is a zip of it
plus metadata; writing that here keeps `pip install ./clients/python` working offline.
"""
import base64
import hashlib
import io
import os
import tarfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NAME = "fetchd"
VERSION = "0.1.0"
DIST_INFO = f"{NAME}-{VERSION}.dist-info"
TAG = "py3-none-any"


def _metadata() -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8") if (ROOT / "README.md").exists() else ""
    return (
        "Metadata-Version: 2.1\n"
        f"Name: {NAME}\nVersion: {VERSION}\n"
        "Summary: Python client for fetchd: NSFetchedResultsController over JSON-RPC 2.0 (stdio)\n"
        "Requires-Python: >=3.9\nLicense: MIT\n"
        "Description-Content-Type: text/markdown\n\n" + readme
    )


def _wheel_file() -> str:
    return f"Wheel-Version: 1.0\nGenerator: fetchd_build\nRoot-Is-Purelib: true\nTag: {TAG}\n"


def _package_files():
    for path in sorted((ROOT / NAME).rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc":
            yield path.relative_to(ROOT).as_posix(), path.read_bytes()


def _write_wheel(directory: str, files) -> str:
    filename = f"{NAME}-{VERSION}-{TAG}.whl"
    records = []
    with zipfile.ZipFile(os.path.join(directory, filename), "w", zipfile.ZIP_DEFLATED) as wheel:
        entries = list(files) + [
            (f"{DIST_INFO}/METADATA", _metadata().encode()),
            (f"{DIST_INFO}/WHEEL", _wheel_file().encode()),
        ]
        for name, data in entries:
            wheel.writestr(name, data)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            records.append(f"{name},sha256={digest},{len(data)}")
        records.append(f"{DIST_INFO}/RECORD,,")
        wheel.writestr(f"{DIST_INFO}/RECORD", "\n".join(records) + "\n")
    return filename


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    return _write_wheel(wheel_directory, _package_files())


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    # A .pth file pointing at the source tree (PEP 660's simplest form).
    return _write_wheel(wheel_directory, [(f"__editable__.{NAME}.pth", (str(ROOT) + "\n").encode())])


def build_sdist(sdist_directory, config_settings=None):
    base = f"{NAME}-{VERSION}"
    filename = f"{base}.tar.gz"
    with tarfile.open(os.path.join(sdist_directory, filename), "w:gz") as archive:
        for path in ["pyproject.toml", "README.md", "_build/fetchd_build.py"]:
            if (ROOT / path).exists():
                archive.add(ROOT / path, f"{base}/{path}")
        for name, data in _package_files():
            info = tarfile.TarInfo(f"{base}/{name}")
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
        pkg_info = _metadata().encode()
        info = tarfile.TarInfo(f"{base}/PKG-INFO")
        info.size = len(pkg_info)
        archive.addfile(info, io.BytesIO(pkg_info))
    return filename
