"""Builds libswage.so and the `swage` and `swage-opt` programs with the
repository's Makefile and ships them inside the `swage` package (the
library next to the Python files, the programs in swage/bin/, run by the
console scripts of swage._cli), so that an installed wheel needs neither
the source tree nor a compiler at run time. Metadata lives in
pyproject.toml.

SWAGE_BUILD (default "build") names the Makefile's build directory; MAKE
(default "make") the make program.
"""

import glob
import os
import shutil
import subprocess

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py
from setuptools.command.sdist import sdist

try:  # setuptools >= 70.1 has its own
    from setuptools.command.bdist_wheel import bdist_wheel
except ImportError:  # pragma: no cover - older setuptools
    from wheel.bdist_wheel import bdist_wheel

ROOT = os.path.dirname(os.path.abspath(__file__))
PROGRAMS = ("swage", "swage-opt")


class BuildPyWithLibrary(build_py):
    """build_py that first runs `make` for libswage.so and the two programs
    and copies them into the package."""

    def run(self):
        super().run()
        build_dir = os.environ.get("SWAGE_BUILD", "build")
        targets = [os.path.join(build_dir, name) for name in ("libswage.so",) + PROGRAMS]
        jobs = str(max(1, min(os.cpu_count() or 1, 8)))
        command = [os.environ.get("MAKE", "make"), "-j" + jobs, "BUILD=" + build_dir] + targets
        self.announce("building libswage.so, swage and swage-opt: " + " ".join(command), level=2)
        subprocess.check_call(command, cwd=ROOT)
        package = os.path.join(self.build_lib, "swage")
        self.mkpath(os.path.join(package, "bin"))
        shutil.copyfile(os.path.join(ROOT, build_dir, "libswage.so"),
                        os.path.join(package, "libswage.so"))
        for name in PROGRAMS:
            target = os.path.join(package, "bin", name)
            shutil.copyfile(os.path.join(ROOT, build_dir, name), target)
            os.chmod(target, 0o755)


class SdistWithSources(sdist):
    """sdist that carries the C sources the Makefile needs."""

    PATTERNS = ("Makefile", "README.md", "CHANGELOG.md", "DESIGN.md", "LICENSE", "include/*.h",
                "src/**/*.c", "src/**/*.h", "src/**/*.def", "tools/*.c", "docs/*.md")

    def make_release_tree(self, base_dir, files):
        extra = set()
        for pattern in self.PATTERNS:
            extra.update(os.path.relpath(path, ROOT)
                         for path in glob.glob(os.path.join(ROOT, pattern), recursive=True))
        super().make_release_tree(base_dir, sorted(set(files) | extra))


class PlatformDistribution(Distribution):
    """The wheel holds a native library: mark it platform-specific."""

    def has_ext_modules(self):
        return True


class AnyPythonWheel(bdist_wheel):
    """The native code is loaded with ctypes, not as a Python extension, so
    one wheel serves every Python 3: tag it py3-none-<platform>."""

    def get_tag(self):
        _, _, platform = super().get_tag()
        return "py3", "none", platform


# egg_info refuses an egg_base that does not exist yet.
os.makedirs(os.path.join(ROOT, "build"), exist_ok=True)

setup(
    cmdclass={"build_py": BuildPyWithLibrary, "sdist": SdistWithSources,
              "bdist_wheel": AnyPythonWheel},
    distclass=PlatformDistribution,
    options={
        # Keep setuptools' scratch files under the Makefile's build/ tree.
        "build": {"build_base": os.path.join("build", "python")},
        "egg_info": {"egg_base": "build"},
    },
)
