#!/usr/bin/env bash
# prepare_variants.sh - side-by-side timing of schedule experiments on the
# GPU machine, in one device call. Here (where git works):
#
#   tools/prepare_variants.sh main exp/quads exp/span-tile
#
# copies each ref's tree (git archive) into variants/<name>/ (untracked, so
# it travels with the working tree; delete variants/ afterwards) and writes
# variants/run.sh. There (the device machine, from the repository root):
#
#   OUT=$OUT bash variants/run.sh [bench/segments.py options]
#
# builds every variant's library (gcc, make -j, all at once) and runs bench/segments.py for Swage
# only (auto, one round, no forced schedules unless asked), one variant
# after another in the same run, writing $OUT/<name>.json (nothing else:
# the device returns at most 8 files) and printing each table. Default distributions: all; pass e.g. --distributions medium-uniform
# --ops sum to narrow it; --seed N draws the same lengths for every variant.
# Back here, tools/variants_table.py main=DIR/main.json exp=DIR/exp-x.json
# prints the runs side by side.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { echo "usage: $0 REF [REF...]" >&2; exit 2; }
mkdir -p variants
names=()
for ref in "$@"; do
    name=$(echo "$ref" | tr '/' '-')
    rm -rf "variants/$name"
    mkdir -p "variants/$name"
    git archive "$ref" | tar -x -C "variants/$name"
    # what a variant's build and benchmark do not read: the device machine
    # takes at most 64 MiB of working tree
    rm -rf "variants/$name/bench/results" "variants/$name/fuzz"
    echo "$(git rev-parse --short "$ref")" > "variants/$name/COMMIT"
    names+=("$name")
done
cat > variants/run.sh <<RUN
#!/usr/bin/env bash
# written by tools/prepare_variants.sh for: ${names[*]}
cd "\$(dirname "\$0")"
OUT="\${OUT:-/tmp/swage-variants}"
LOGS="\$(mktemp -d)"   # builds, logs and tables: only the JSON goes to \$OUT (the device returns few files)
mkdir -p "\$OUT"
# the libraries only, all at once (each make shares the cores)
for name in ${names[*]}; do
    (cd "\$name" && make -j"\$(nproc)" BUILD=build-gpu build-gpu/libswage.so > "\$LOGS/build-\$name.log" 2>&1 ||
        { echo "== \$name: build failed"; tail -20 "\$LOGS/build-\$name.log"; }) &
done
wait
for name in ${names[*]}; do
    [ -f "\$name/build-gpu/libswage.so" ] || continue
    echo "== \$name (\$(cat "\$name/COMMIT"))"
    (cd "\$name" && SWAGE_COMMIT="\$(cat COMMIT)" SWAGE_LIB="\$PWD/build-gpu/libswage.so" PYTHONPATH="\$PWD/python" \\
        PYTHONDONTWRITEBYTECODE=1 python3 bench/segments.py --peers swage --rounds 1 --forced-rounds 0 \\
        --budget-s 100 --json "\$OUT/\$name.json" --table "\$LOGS/\$name.txt" "\$@" > "\$LOGS/\$name.log" 2>&1) || true
    cat "\$LOGS/\$name.txt" 2>/dev/null || tail -5 "\$LOGS/\$name.log"
done
RUN
chmod +x variants/run.sh
echo "variants/: ${names[*]}; on the device: OUT=\$OUT bash variants/run.sh"
