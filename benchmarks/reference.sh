#!/usr/bin/env bash
# The reference opponent: this repository at commit REFERENCE_COMMIT (main when the strength goals
# were set), installed in a venv of its own under .reference/ (gitignored), so that today's bots
# can be measured against it over the bot protocol (benchmarks/heads_up.py):
#
#     exec:.reference/venv/bin/python -I -m liarsdice.botproto.helper strong
#
# (-I: the reference imports its own copy, whatever PYTHONPATH says.) Only the base dependencies
# and numba are installed (what `strong` needs). A second run finds it built and returns at once;
# `rm -rf .reference` builds it afresh.
set -euo pipefail

COMMIT="${REFERENCE_COMMIT:-245049c}"
PYTHON="${PYTHON:-python3}"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
REF="$ROOT/.reference"
STAMP="$REF/.built-$COMMIT"

if [[ -f "$STAMP" && -x "$REF/venv/bin/python" ]]; then
	echo "reference (commit $COMMIT) is ready in $REF"
	exit 0
fi

if ! git -C "$ROOT" cat-file -e "$COMMIT^{commit}" 2>/dev/null; then
	if [[ "$(git -C "$ROOT" rev-parse --is-shallow-repository 2>/dev/null)" == "true" ]]; then
		echo "this clone is shallow and lacks commit $COMMIT, the reference: run 'git fetch --unshallow' first" >&2
	else
		echo "this clone has no commit $COMMIT, the reference: fetch it (git fetch origin), or set REFERENCE_COMMIT" >&2
	fi
	exit 1
fi

"$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))' || {
	echo "the reference needs Python 3.11 or newer ($PYTHON is older): set PYTHON=python3.11 or newer" >&2
	exit 1
}

echo "building the reference (commit $COMMIT) in $REF"
rm -rf "$REF/src" "$REF/venv" "$REF"/.built-*
mkdir -p "$REF/src"
git -C "$ROOT" archive "$COMMIT" | tar -x -C "$REF/src"

# As the Makefile does: a venv even where ensurepip is missing, with the host's pip then.
"$PYTHON" -m venv "$REF/venv" 2>/dev/null || {
	rm -rf "$REF/venv"
	"$PYTHON" -m venv --without-pip "$REF/venv"
}
if ! "$REF/venv/bin/python" -m pip --version >/dev/null 2>&1; then
	"$PYTHON" -m pip --python "$REF/venv/bin/python" install --quiet pip
fi
"$REF/venv/bin/python" -m pip install --quiet --disable-pip-version-check -e "$REF/src" numba

# The level must be served over the protocol by the helper of that commit.
"$REF/venv/bin/python" -I -c 'from liarsdice.botproto.helper import serve_level; from liarsdice.bots import BOT_LEVELS; assert "strong" in BOT_LEVELS' || {
	echo "commit $COMMIT has no liarsdice.botproto.helper serving the strong level: it cannot be the reference" >&2
	exit 1
}
touch "$STAMP"
echo "reference (commit $COMMIT) is ready: exec:$REF/venv/bin/python -I -m liarsdice.botproto.helper strong"
