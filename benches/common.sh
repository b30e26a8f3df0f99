# Shared by benches/suite.sh and benches/pairs.sh (sourced, not run): DuckDB in a virtualenv,
# the generated files, and the machine probe. The caller sets VENV, DOCS, GEN, THREADS and the
# probe's binary (PROBE), and defines `log`.

# DuckDB 2.0.0 in $VENV, installed once.
ensure_duckdb() {
    if [[ ! -x "$VENV/bin/python" ]] || ! "$VENV/bin/python" -c 'import duckdb' 2>/dev/null; then
        log "installing duckdb==2.0.0 into $VENV"
        [[ -x "$VENV/bin/python" ]] || python3 -m venv "$VENV"
        "$VENV/bin/pip" install --quiet --disable-pip-version-check duckdb==2.0.0
    fi
}

# The machine's state (docs/benchmarks.md): a CPU loop and the first touch of fresh memory.
probe() { "$PROBE" --threads "$THREADS"; }

# data FILE-STEM GENERATOR-ARGS...: generates bench-data/STEM[-DOCS].jsonl once; prints its path
data() {
    local stem=$1; shift
    local file="bench-data/$stem${DOCS:+-$DOCS}.jsonl"
    if [[ ! -s "$file" ]]; then
        log "generating $file"
        "$GEN" "$@" ${DOCS:+--docs "$DOCS"} --out "$file.tmp" >&2
        mv "$file.tmp" "$file"
    fi
    echo "$file"
}
