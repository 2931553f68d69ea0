"""Builds libswage.so with the repository's Makefile and ships it inside the
`swage` package, so that an installed wheel needs neither the source tree
nor a compiler at run time. Metadata lives in pyproject.toml.

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

ROOT = os.path.dirname(os.path.abspath(__file__))


class BuildPyWithLibrary(build_py):
    """build_py that first runs `make` for libswage.so and copies it into the package."""

    def run(self):
        super().run()
        build_dir = os.environ.get("SWAGE_BUILD", "build")
        library = os.path.join(build_dir, "libswage.so")
        jobs = str(max(1, min(os.cpu_count() or 1, 8)))
        command = [os.environ.get("MAKE", "make"), "-j" + jobs, "BUILD=" + build_dir, library]
        self.announce("building libswage.so: " + " ".join(command), level=2)
        subprocess.check_call(command, cwd=ROOT)
        target = os.path.join(self.build_lib, "swage")
        self.mkpath(target)
        shutil.copyfile(os.path.join(ROOT, library), os.path.join(target, "libswage.so"))


class SdistWithSources(sdist):
    """sdist that carries the C sources the Makefile needs."""

    PATTERNS = ("Makefile", "README.md", "DESIGN.md", "include/*.h", "src/**/*.c",
                "src/**/*.h", "src/**/*.def", "tools/*.c", "docs/*.md")

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


# egg_info refuses an egg_base that does not exist yet.
os.makedirs(os.path.join(ROOT, "build"), exist_ok=True)

setup(
    cmdclass={"build_py": BuildPyWithLibrary, "sdist": SdistWithSources},
    distclass=PlatformDistribution,
    options={
        # Keep setuptools' scratch files under the Makefile's build/ tree.
        "build": {"build_base": os.path.join("build", "python")},
        "egg_info": {"egg_base": "build"},
    },
)
