#!/usr/bin/env python3
"""not.py - runs a command and inverts its success, like LLVM's `not`:
exit 0 when the command failed (nonzero exit), 1 when it succeeded. Used
by lit.cfg.py only when the tests run under an external shell."""
import subprocess
import sys

if len(sys.argv) < 2:
    sys.stderr.write("usage: not.py COMMAND [ARGS...]\n")
    sys.exit(2)
sys.exit(0 if subprocess.call(sys.argv[1:]) != 0 else 1)
