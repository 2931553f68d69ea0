#!/bin/sh
# tools/testenv.sh VENV REQUIREMENTS PTXAS PTXAS_WHEEL
#
# Makes the test environment that `make test` runs in, and says what it did
# in one line per step (nothing when everything is already there):
#
#   VENV/               a virtual environment made with $PYTHON3 (python3),
#                       holding the packages of REQUIREMENTS; they are
#                       installed again when that file changes
#   VENV/bin/ptxas      a link to the ptxas the PTX assembly checks use:
#                       PTXAS when it is a path; else the first ptxas on PATH
#                       (VENV/bin excepted); else the one in NVIDIA's wheel
#                       PTXAS_WHEEL (nvidia/cuda_nvcc/bin/ptxas), installed
#                       into VENV from PyPI. PTXAS=none removes the link.
#
# Needs only a POSIX shell and a Python 3 with its venv module (on Debian and
# Ubuntu, the python3-venv package). The link is made again on every run, so
# a ptxas installed or removed since the last run is noticed.
set -eu

venv=$1 requirements=$2 want=$3 wheel=$4
python=${PYTHON3:-python3}
vpy="$venv/bin/python"
pip="$vpy -m pip install --disable-pip-version-check -q"

fail() { echo "testenv: $*" >&2; exit 1; }

if [ ! -x "$vpy" ]; then
    echo "  VENV   $venv (with $python)"
    "$python" -m venv "$venv" ||
        fail "cannot make the virtual environment $venv with '$python -m venv'" \
             "(on Debian and Ubuntu: apt install python3-venv)"
fi

stamp="$venv/.requirements"
if [ ! -f "$stamp" ] || ! cmp -s "$requirements" "$stamp"; then
    echo "  PIP    $requirements into $venv"
    $pip -r "$requirements" || fail "pip could not install $requirements into $venv"
    cp "$requirements" "$stamp"
fi

# ---- ptxas ----
link="$venv/bin/ptxas"
here=$(cd "$venv/bin" && pwd -P)
case "$want" in
    none)
        rm -f "$link"
        exit 0 ;;
    "")
        want=
        old_ifs=$IFS
        IFS=:
        for dir in $PATH; do
            [ -n "$dir" ] && [ -d "$dir" ] || continue
            [ "$(cd "$dir" && pwd -P)" = "$here" ] && continue
            if [ -x "$dir/ptxas" ] && [ ! -d "$dir/ptxas" ]; then
                want="$dir/ptxas"
                break
            fi
        done
        IFS=$old_ifs ;;
    *)
        [ -x "$want" ] || fail "PTXAS=$want is not an executable file" ;;
esac

if [ -z "$want" ]; then
    site=$("$vpy" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
    want="$site/nvidia/cuda_nvcc/bin/ptxas"
    if [ ! -x "$want" ]; then
        echo "  PTXAS  none on this machine: installing $wheel from PyPI into $venv"
        $pip "$wheel" ||
            fail "cannot install $wheel; give PTXAS=/path/to/ptxas, or PTXAS=none to skip" \
                 "the PTX assembly checks"
        [ -x "$want" ] || fail "$wheel has no executable $want"
    fi
fi

case "$want" in /*) ;; *) want="$(pwd -P)/$want" ;; esac
if [ "$(readlink "$link" 2>/dev/null || true)" != "$want" ]; then
    echo "  PTXAS  $want"
    ln -sf "$want" "$link"
fi
"$link" --version >/dev/null 2>&1 || fail "$link ($want) does not run"
