#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Makes (once) the Debian roots the tests of the .deb run in (scripts/test-root.sh), side by side,
# so that `make test` can make them while it builds: debootstrap and apt wait on the mirror and the
# disk more than on the CPU. With the roots cached this takes a second. Without root, or with no
# root cached and a mirror that does not resolve, it makes nothing and says why: the tests that
# need the roots say the same and are skipped (docs/TESTING.md, "Other releases").
#
#     scripts/test-roots.sh [ROOT]...     # default: trixie-plasma forky
# (trixie-plasma is a copy of the trixie root with Plasma's network management added: making it
# makes the trixie root first)
set -uo pipefail
cd "$(dirname "$0")/.."

releases=("$@")
[ ${#releases[@]} -gt 0 ] || releases=(trixie-plasma forky)
if [ "$(id -u)" -ne 0 ]; then
    echo "test-roots: not root; no Debian root made (the tests that run in one are skipped)"
    exit 0
fi

mirror=${HOTSPOT_ROOTS_MIRROR:-$(sed -nE 's/^URIs: *(http[^ ]*debian)$/\1/p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n1)}
host=$(printf '%s\n' "${mirror:-http://deb.debian.org/debian}" | sed -E 's#^[a-z]+://([^/:]+).*#\1#')
cache=${HOTSPOT_ROOTS:-/var/cache/hotspot-helper/roots}
missing=()
for r in "${releases[@]}" trixie; do [ -f "$cache/$r/.hotspot-root" ] || missing+=("$r"); done
if [ ${#missing[@]} -gt 0 ] && ! getent hosts "$host" >/dev/null; then
    echo "test-roots: no cached ${missing[*]} root in $cache and the mirror $host does not resolve; none made (the tests that run in one are skipped)"
    exit 0
fi

pids=() status=0
for r in "${releases[@]}"; do
    ./scripts/test-root.sh "$r" > "/tmp/hotspot-test-root-$r.$$" 2>&1 &
    pids+=($!)
done
for i in "${!releases[@]}"; do
    wait "${pids[$i]}"
    s=$?
    r=${releases[$i]}
    # test-root.sh prints the root's path last, its progress before it.
    sed 's/^/  /' "/tmp/hotspot-test-root-$r.$$"
    rm -f "/tmp/hotspot-test-root-$r.$$"
    if [ "$s" -ne 0 ]; then
        echo "test-roots: the $r root could not be made (exit $s); the tests that run in it will say why"
        status=1
    fi
done
exit "$status"
