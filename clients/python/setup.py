"""Build hooks: pyproject.toml holds the metadata, this only decides what the wheel carries.

Without FETCHD_BUNDLE_BINARY the wheel is the pure client (py3-none-any), as before. With
FETCHD_BUNDLE_BINARY=/path/to/fetchd it also carries that binary as fetchd/bin/fetchd and a
``fetchd`` console command, and is tagged py3-none-<platform> (the binary is
platform-specific, the Python code is not); scripts/build-wheel.sh then lets auditwheel
vendor the binary's libraries and set the manylinux tag. The sdist never holds a binary.
"""
import os
import shutil
import sys

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py

try:
    from setuptools.command.bdist_wheel import bdist_wheel
except ImportError:  # setuptools < 70.1 gets it from the wheel package
    from wheel.bdist_wheel import bdist_wheel

BUNDLE = os.environ.get("FETCHD_BUNDLE_BINARY")
if BUNDLE and not (os.path.isfile(BUNDLE) and os.access(BUNDLE, os.X_OK)):
    sys.exit(f"FETCHD_BUNDLE_BINARY={BUNDLE}: not an executable file")


class BuildPy(build_py):
    def bundled_dir(self):
        return os.path.join(self.build_lib, "fetchd", "bin")

    def run(self):
        super().run()
        target = self.bundled_dir()
        # build/ survives between builds of one tree: a binary from an earlier bundled build
        # must not slip into a pure wheel.
        shutil.rmtree(target, ignore_errors=True)
        if BUNDLE:
            os.makedirs(target)
            dest = os.path.join(target, "fetchd")
            shutil.copyfile(BUNDLE, dest)
            os.chmod(dest, 0o755)  # the wheel records this mode; pip restores the x bits

    def get_outputs(self, include_bytecode=True):
        outputs = super().get_outputs(include_bytecode)
        if BUNDLE:
            outputs.append(os.path.join(self.bundled_dir(), "fetchd"))
        return outputs


class BinaryDistribution(Distribution):
    # "Not pure" makes bdist_wheel mark the wheel Root-Is-Purelib: false and put the package at
    # the wheel's root (platlib), where auditwheel looks for ELF files and vendors their
    # libraries, instead of under .data/purelib.
    def has_ext_modules(self):
        return bool(BUNDLE)


class BdistWheel(bdist_wheel):
    def get_tag(self):
        python, abi, plat = super().get_tag()
        if BUNDLE:
            return "py3", "none", plat  # any Python 3 can run it: no extension module inside
        return python, abi, plat


setup(
    distclass=BinaryDistribution,
    cmdclass={"build_py": BuildPy, "bdist_wheel": BdistWheel},
    # Only a wheel with the binary gets the command: in the pure client it would have nothing
    # to run, yet shadow a real fetchd on the PATH.
    entry_points={"console_scripts": ["fetchd = fetchd.__main__:main"]} if BUNDLE else {},
)
