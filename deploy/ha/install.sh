#!/usr/bin/env bash
# Installs what the deployment scenarios run, from Debian's packages: PostgreSQL 15, Patroni,
# etcd, HAProxy and PgBouncer. Does nothing when they are there already; needs root otherwise.
set -euo pipefail
missing=()
[ -x /usr/lib/postgresql/15/bin/postgres ] || missing+=(postgresql-15)
command -v patroni >/dev/null 2>&1 || missing+=(patroni)
command -v etcd >/dev/null 2>&1 || missing+=(etcd-server)
command -v haproxy >/dev/null 2>&1 || missing+=(haproxy)
command -v pgbouncer >/dev/null 2>&1 || missing+=(pgbouncer)
if [ "${#missing[@]}" -gt 0 ]; then
  if [ "$(id -u)" != "0" ]; then
    echo "deploy/ha needs ${missing[*]} (Debian packages); run this script as root, or install them" >&2
    exit 1
  fi
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi
