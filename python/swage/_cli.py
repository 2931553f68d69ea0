"""The `swage` and `swage-opt` commands that `pip install` puts on PATH.

Both are C programs (tools/swage.c, tools/swage_opt.c) built with the
library; these console-script entry points find the program and replace
the Python process with it, so arguments, output and exit status are the
program's own. An installed wheel holds the programs in swage/bin/; in the
source tree they sit next to the libswage.so in use (build/).
"""

import os
import sys

from . import _native


def program_path(name):
    """The path of the C program `name` ("swage" or "swage-opt"), or None."""
    here = os.path.dirname(os.path.abspath(__file__))
    library_dir = os.path.dirname(os.path.abspath(_native.library_path))
    for directory in (os.path.join(here, "bin"), library_dir):
        path = os.path.join(directory, name)
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    return None


def _run(name, argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    path = program_path(name)
    if path is None:
        sys.stderr.write("%s: the program is not installed next to %s; build it with `make` in "
                         "the Swage repository, or reinstall the package\n"
                         % (name, _native.library_path))
        return 127
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(path, [name] + argv)
    return 127  # not reached


def swage():
    """Entry point of the `swage` command."""
    sys.exit(_run("swage"))


def swage_opt():
    """Entry point of the `swage-opt` command."""
    sys.exit(_run("swage-opt"))
