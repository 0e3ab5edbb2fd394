#!/usr/bin/env bash
# Installs what the toolkit needs and is missing: Bun (pinned, through npm), the Debian packages of the
# services the harness starts (through apt), and the JavaScript dependencies (from bun.lock).
# Idempotent and quiet when everything is there; says what it does otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf 'setup: %s\n' "$*" >&2; }

bun_version=$(sed -n 's/.*"bun": *"\([0-9.]*\)".*/\1/p' package.json | head -n1)
if ! command -v bun >/dev/null 2>&1 || [ "$(bun --version 2>/dev/null)" != "$bun_version" ]; then
  say "installing Bun $bun_version through npm"
  npm install --global --no-fund --no-audit --loglevel=error "bun@$bun_version" >&2
  hash -r
  if [ "$(bun --version 2>/dev/null)" != "$bun_version" ]; then
    say "Bun $bun_version did not install (bun --version: $(bun --version 2>&1 || true))"
    exit 1
  fi
fi

# binary (or glob) -> Debian package
missing=()
need() { compgen -G "$1" >/dev/null || command -v "$1" >/dev/null 2>&1 || missing+=("$2"); }
need "/usr/lib/postgresql/*/bin/initdb" postgresql
need rabbitmq-server rabbitmq-server
need ovsdb-server openvswitch-common
need ovs-vswitchd openvswitch-switch
need ovn-northd ovn-central
need ovn-controller ovn-host
need victoria-metrics victoria-metrics
# promtool lints every server's /metrics exposition in the tests.
need promtool prometheus
# report.html is rendered headless by the scenario runner and its test.
need chromium chromium
# The fake platform API is tried with the real OpenStack client (`loadbalancer` comes with octaviaclient).
need openstack python3-openstackclient
need "/usr/lib/python3/dist-packages/octaviaclient" python3-octaviaclient
# The clustered stack (scenario cluster): Patroni with etcd as its store, HAProxy in front.
need patroni patroni
need "/usr/lib/python3/dist-packages/etcd" python3-etcd
need etcd etcd-server
need haproxy haproxy
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ]; then
    say "missing Debian packages ${missing[*]}; run as root or install them with apt-get"
    exit 1
  fi
  say "installing Debian packages: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  # policy-rc.d keeps the packages from starting their system-wide daemons: the harness starts private ones.
  policy=/usr/sbin/policy-rc.d
  created_policy=0
  if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod +x "$policy" && created_policy=1
  fi
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2 || {
    [ "$created_policy" = 1 ] && rm -f "$policy"
    say "apt-get install failed"
    exit 1
  }
  [ "$created_policy" = 1 ] && rm -f "$policy"
fi

# A changed patch of a dependency (patches/) changes neither bun.lock nor package.json, yet needs an install.
stale=0
for input in bun.lock package.json patches/*; do
  [ -e "$input" ] && [ "$input" -nt node_modules/.svc-installed ] && stale=1
done
if [ ! -d node_modules ] || [ ! -e node_modules/.svc-installed ] || [ "$stale" = 1 ]; then
  say "installing JavaScript dependencies from bun.lock"
  bun install --frozen-lockfile >&2
  touch node_modules/.svc-installed
fi
