# shellcheck shell=bash
# Shared set-up for scripts/test and scripts/lab. Source it; do not run it.
#
# Gives: REPO_ROOT, MAIN_EXTRAS, log/warn/die, ensure_venv DIR EXTRAS [PIP_SPEC...],
# ensure_chromium, ensure_postgresql, ensure_server_venv FRAMEWORK, ensure_server_venvs,
# ensure_node_modules.
# Every function is idempotent: a venv is reused while a stamp file (a hash of pyproject.toml,
# the extras, the extra pip specs and the interpreter) matches, so a second run skips pip.

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# The main venv's extras, shared by scripts/lab and scripts/test so they keep one stamp.
MAIN_EXTRAS="lab,test,interop,test-frontends"
PYTHON_FOR_VENV="${PYTHON_FOR_VENV:-python3}"

log() { printf '\033[1;34m[agui]\033[0m %s\n' "$*" >&2; }
warn() { printf '\033[1;33m[agui] WARNING:\033[0m %s\n' "$*" >&2; }
die() {
    printf '\033[1;31m[agui] ERROR:\033[0m %s\n' "$*" >&2
    exit 1
}

_sha256() { sha256sum | cut -d' ' -f1; }

# ensure_venv DIR EXTRAS [PIP_SPEC...]
#   DIR      venv directory (relative to REPO_ROOT or absolute)
#   EXTRAS   comma-separated extras of this project, e.g. "lab,test,interop" ("" for none)
#   PIP_SPEC further requirements installed after the project (e.g. ag-ui-protocol==1.0.0)
ensure_venv() {
    local dir="$1" extras="$2"
    shift 2
    case "$dir" in /*) ;; *) dir="$REPO_ROOT/$dir" ;; esac
    local stamp="$dir/.agui-install-stamp" key
    key="$(
        {
            cat "$REPO_ROOT/pyproject.toml"
            printf '\nextras=%s\nspecs=%s\n' "$extras" "$*"
            "$PYTHON_FOR_VENV" -c 'import sys; print(sys.version)'
        } | _sha256
    )"

    if [[ -x "$dir/bin/python" ]] && ! "$dir/bin/python" -c 'import sys' 2>/dev/null; then
        warn "$dir is broken (its interpreter does not start): recreating it"
        rm -rf "$dir"
    fi
    if [[ ! -x "$dir/bin/python" ]]; then
        log "creating venv $dir"
        "$PYTHON_FOR_VENV" -m venv "$dir" || die "python3 -m venv $dir failed"
    fi
    if [[ -f "$stamp" && "$(cat "$stamp")" == "$key" ]]; then
        log "venv $dir is up to date (stamp matches pyproject.toml); skipping pip"
        return 0
    fi
    rm -f "$stamp"
    local target="$REPO_ROOT"
    if [[ -n "$extras" ]]; then target="$REPO_ROOT[$extras]"; fi
    log "installing -e .[${extras}] into $dir"
    "$dir/bin/python" -m pip install --quiet --disable-pip-version-check -e "$target" ||
        die "pip install -e '$target' into $dir failed"
    if [[ $# -gt 0 ]]; then
        log "installing $* into $dir"
        "$dir/bin/python" -m pip install --quiet --disable-pip-version-check "$@" ||
            die "pip install $* into $dir failed"
    fi
    printf '%s' "$key" >"$stamp"
}

# Debian's chromium for the Playwright browser tests. Never `playwright install` (no downloads
# outside the package registries on this workplace).
ensure_chromium() {
    if [[ -x /usr/bin/chromium ]]; then
        log "chromium present: /usr/bin/chromium"
        return 0
    fi
    local sudo=()
    if [[ "$(id -u)" != 0 ]]; then
        command -v sudo >/dev/null 2>&1 ||
            die "/usr/bin/chromium is missing and we are not root and have no sudo: install Debian's 'chromium' package"
        sudo=(sudo -n)
    fi
    log "installing Debian's chromium (apt-get)"
    export DEBIAN_FRONTEND=noninteractive
    "${sudo[@]}" apt-get update -q || die "apt-get update failed"
    "${sudo[@]}" apt-get install -y -q --no-install-recommends chromium || die "apt-get install chromium failed"
    [[ -x /usr/bin/chromium ]] || die "chromium installed but /usr/bin/chromium is missing"
}

# Debian's PostgreSQL server binaries (initdb, pg_ctl) for the store tests, which start a real
# server of their own in a temp dir (tests/store/_postgres.py); no cluster is created or started
# here, and a missing binary fails those tests rather than skipping them.
postgresql_bin() {
    local initdb
    initdb="$(find /usr/lib/postgresql -maxdepth 3 -path '*/bin/initdb' 2>/dev/null | sort -V | tail -n1)"
    [[ -n "$initdb" ]] && dirname "$initdb"
}

ensure_postgresql() {
    local bin
    if bin="$(postgresql_bin)" && [[ -x "$bin/pg_ctl" ]]; then
        log "postgresql present: $bin"
        return 0
    fi
    local sudo=()
    if [[ "$(id -u)" != 0 ]]; then
        command -v sudo >/dev/null 2>&1 ||
            die "PostgreSQL's initdb is missing and we are not root and have no sudo: install Debian's 'postgresql' package"
        sudo=(sudo -n)
    fi
    log "installing Debian's postgresql (apt-get)"
    export DEBIAN_FRONTEND=noninteractive
    "${sudo[@]}" apt-get update -q || die "apt-get update failed"
    "${sudo[@]}" apt-get install -y -q --no-install-recommends postgresql || die "apt-get install postgresql failed"
    bin="$(postgresql_bin)" || die "postgresql installed but no /usr/lib/postgresql/*/bin/initdb"
    log "postgresql installed: $bin"
}

# The Node that js/'s tools need: vite 7 (under vitest) wants ^20.19.0 || >=22.12.0.
node_is_recent_enough() {
    local version major minor
    version="$(node --version 2>/dev/null)" || return 1
    version="${version#v}"
    major="${version%%.*}"
    minor="${version#*.}"
    minor="${minor%%.*}"
    [[ "$major" =~ ^[0-9]+$ && "$minor" =~ ^[0-9]+$ ]] || return 1
    ((major > 22 || (major == 22 && minor >= 12) || (major == 20 && minor >= 19)))
}

# npm ci in js/ only when node_modules is older than package-lock.json (stamp = its hash).
ensure_node_modules() {
    local js="$REPO_ROOT/js"
    [[ -f "$js/package.json" ]] || return 0
    command -v npm >/dev/null 2>&1 || die "js/package.json exists but npm is not installed"
    node_is_recent_enough ||
        die "Node.js $(node --version 2>/dev/null || echo '(none)') is too old for js/ (vite 7 needs 20.19+ or 22.12+)"
    [[ -f "$js/package-lock.json" ]] ||
        die "js/package.json exists without js/package-lock.json: run 'npm install' in js/ and commit the lock file"
    local key stamp="$js/node_modules/.agui-install-stamp"
    key="$(cat "$js/package-lock.json" "$js/package.json" | _sha256)"
    if [[ -f "$stamp" && "$(cat "$stamp")" == "$key" ]]; then
        log "js/node_modules is up to date; skipping npm ci"
        return 0
    fi
    log "npm ci in js/"
    (cd "$js" && npm ci --no-audit --no-fund) || die "npm ci in js/ failed"
    printf '%s' "$key" >"$stamp"
}

# ensure_server_venv FRAMEWORK
#   .venv-servers/FRAMEWORK for the out-of-process test server tests/servers/FRAMEWORK/server.py,
#   from tests/servers/FRAMEWORK/requirements.txt (every package pinned exactly: installed with
#   --no-deps, then `pip check`). Rebuilt from scratch when the stamp (the file's hash and the
#   interpreter) differs, so no package of an older pin set lingers; otherwise left as it is.
ensure_server_venv() {
    local name="$1"
    local req="$REPO_ROOT/tests/servers/$name/requirements.txt"
    local dir="${AGUI_SERVER_VENVS:-$REPO_ROOT/.venv-servers}/$name"
    local stamp="$dir/.agui-install-stamp" key
    [[ -f "$req" ]] || die "no $req"
    key="$(
        {
            cat "$req"
            "$PYTHON_FOR_VENV" -c 'import sys; print(sys.version)'
        } | _sha256
    )"
    if [[ -f "$stamp" && "$(cat "$stamp")" == "$key" ]] && "$dir/bin/python" -c 'import sys' 2>/dev/null; then
        log "server venv $dir is up to date (stamp matches); skipping pip"
        return 0
    fi
    log "building server venv $dir from ${req#"$REPO_ROOT/"}"
    rm -rf "$dir"
    "$PYTHON_FOR_VENV" -m venv "$dir" || die "python3 -m venv $dir failed"
    "$dir/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps -r "$req" ||
        die "pip install -r $req into $dir failed"
    "$dir/bin/python" -m pip check --disable-pip-version-check ||
        die "$req is not a complete, consistent pin set (pip check failed in $dir)"
    printf '%s' "$key" >"$stamp"
}

# Every tests/servers/*/requirements.txt gets its venv.
ensure_server_venvs() {
    local req
    for req in "$REPO_ROOT"/tests/servers/*/requirements.txt; do
        [[ -f "$req" ]] || continue
        ensure_server_venv "$(basename "$(dirname "$req")")"
    done
}
