# lit configuration for Swage: .mlir files run swage-opt over IR, .py files
# run the swage command line over kernels. SWAGE_BUILD names the build
# directory that holds the tools (default: <repo>/build).
import os
import shutil
import sys

import lit.formats

config.name = "swage"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".py"]
config.excludes = ["lit.cfg.py", "not.py"]
config.test_source_root = os.path.dirname(__file__)

repo = os.path.dirname(os.path.dirname(config.test_source_root))
build = os.path.abspath(os.environ.get("SWAGE_BUILD", os.path.join(repo, "build")))
config.test_exec_root = os.path.join(build, "lit")


def filecheck_command():
    if os.path.exists("/usr/bin/FileCheck-14"):
        return "/usr/bin/FileCheck-14"
    for name in ("FileCheck", "filecheck"):  # LLVM's, then PyPI's
        path = shutil.which(name)
        if path:
            return path
    lit_config.fatal("FileCheck not found: install LLVM's FileCheck or `pip install filecheck`")


# %swage-opt before %swage: substitutions apply in order, and lit's own %s
# comes after ours, so neither eats the other's prefix.
config.substitutions.append(("%swage-opt", os.path.join(build, "swage-opt")))
config.substitutions.append(("%swage", os.path.join(build, "swage")))
config.substitutions.append((r"\bFileCheck\b", filecheck_command()))


def lit_shell_has_not():
    """True when lit's internal shell runs `not` itself (lit >= LLVM 9)."""
    if getattr(config.test_format, "execute_external", False):
        return False
    try:
        import inspect
        import lit.TestRunner

        source = inspect.getsource(lit.TestRunner)
    except (ImportError, OSError, TypeError):
        return False
    return "'not'" in source or '"not"' in source


# `not` inverts an exit status: lit's builtin where it has one, else not.py.
if not lit_shell_has_not():
    not_script = os.path.join(config.test_source_root, "not.py")
    config.substitutions.append((r"(^|[|&;]\s*)not\b", r"\1%s %s" % (sys.executable, not_script)))

config.environment["PYTHONPATH"] = os.path.join(repo, "python")
config.environment["SWAGE_LIB"] = os.path.join(build, "libswage.so")

# swage-opt --emit-ptx (test/lit/ptx).
config.available_features.add("emit-ptx")
