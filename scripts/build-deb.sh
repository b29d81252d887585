#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds hotspot-helper_VERSION_ARCH.deb from the tree: `make install` into a staging root,
# DEBIAN/ control files from packaging/debian, dependencies from dpkg-shlibdeps, dpkg-deb.
# Called by `make deb` (VERSION, DEB_DIR, DEB_COMPRESS, BUILT_PRODUCTS come from there).
set -euo pipefail
cd "$(dirname "$0")/.."

VERSION=${VERSION:-$(sed -n 's/^ *public static let current = "\([^"]*\)".*/\1/p' Sources/HotspotProtocol/ProductVersion.swift)}
DEB_DIR=${DEB_DIR:-debian-build}
DEB_COMPRESS=${DEB_COMPRESS:-xz}
BUILT_PRODUCTS=${BUILT_PRODUCTS:-.build-release/release}
ARCH=$(dpkg --print-architecture)
ROOT="$DEB_DIR/root"
DEB="$DEB_DIR/hotspot-helper_${VERSION}_${ARCH}.deb"

command -v dpkg-deb >/dev/null || { echo "build-deb: dpkg-deb is missing (apt-get install dpkg)" >&2; exit 1; }
rm -rf "$ROOT"
mkdir -p "$ROOT/DEBIAN"
make --no-print-directory install SKIP_BUILD=1 DESTDIR="$ROOT" PREFIX=/usr BUILT_PRODUCTS="$BUILT_PRODUCTS" >/dev/null
# Where the unstripped binary is, for the tests that read its symbols (ReleaseTests): outside
# the staged root, so not packaged.
(cd "$BUILT_PRODUCTS" && pwd) > "$DEB_DIR/built-products"

# Debian wants the changelog beside the copyright, compressed, and stripped binaries. There is one
# binary: hotspot-helperd, hotspotctl and hotspot-helper-agent are links to it.
gzip -9 -n -c packaging/debian/changelog > "$ROOT/usr/share/doc/hotspot-helper/changelog.gz"
install -D -m 0644 packaging/debian/lintian-overrides "$ROOT/usr/share/lintian/overrides/hotspot-helper"
chmod 0644 "$ROOT/usr/share/doc/hotspot-helper/changelog.gz"
if command -v strip >/dev/null; then
    strip --remove-section=.comment --remove-section=.note --strip-unneeded "$ROOT/usr/libexec/hotspot-helper/hotspot-helper"
fi

# Shared-library dependencies as dpkg-shlibdeps finds them (libdbus-1-3, libc-ares2, libc6,
# libgcc-s1; libstdc++ is linked in, as the Swift runtime is), plus libcurl and libxml2, which the
# binary loads when first used (Sources/CLazyLibraries: dpkg-shlibdeps cannot see them). Those two
# are named as each Debian release ships them, newest first, so one package installs on Debian 12,
# 13 and testing (docs/PACKAGING.md, "One package for three releases"):
#   libcurl.so.4   Debian 12: libcurl4;  13 and testing: libcurl4t64 (the 64-bit time_t rename)
#   libxml2        Debian 12 and 13: libxml2 (libxml2.so.2);  testing: libxml2-16 (libxml2.so.16)
LAZY_LIBS="libcurl4t64 | libcurl4, libxml2-16 | libxml2"
SHLIBS="libc6, libdbus-1-3"
if command -v dpkg-shlibdeps >/dev/null; then
    work=$(mktemp -d)
    mkdir -p "$work/debian"
    printf 'Source: hotspot-helper\n\nPackage: hotspot-helper\nArchitecture: any\n' > "$work/debian/control"
    root_abs=$(cd "$ROOT" && pwd)
    binaries=("$root_abs/usr/libexec/hotspot-helper/hotspot-helper")
    if found=$(cd "$work" && dpkg-shlibdeps --ignore-missing-info -O "${binaries[@]}" 2>/dev/null); then
        found=${found#shlibs:Depends=}
        [ -n "$found" ] && SHLIBS="$found"
        case "$SHLIBS" in *libdbus-1-3*) ;; *) SHLIBS="$SHLIBS, libdbus-1-3" ;; esac
    fi
    rm -rf "$work"
fi
# Relative relocations are packed (DT_RELR, Makefile): the binary needs glibc 2.36's
# GLIBC_ABI_DT_RELR, a version dpkg-shlibdeps does not map to a package version.
if readelf -V "$ROOT/usr/libexec/hotspot-helper/hotspot-helper" 2>/dev/null | grep -q GLIBC_ABI_DT_RELR; then
    # Raised only: a binary built against a newer glibc keeps the version it needs.
    have=$(printf '%s' "$SHLIBS" | sed -nE 's/.*libc6 \(>= ([0-9.]+)\).*/\1/p')
    if [ -z "$have" ] || dpkg --compare-versions "$have" lt 2.36; then
        SHLIBS=$(printf '%s' "$SHLIBS" | sed -E 's/libc6 \(>= [0-9.]+\)/libc6 (>= 2.36)/; s/libc6(,|$)/libc6 (>= 2.36)\1/')
    fi
fi

SHLIBS="$SHLIBS, $LAZY_LIBS"

SIZE=$(du -sk --exclude=DEBIAN "$ROOT" | cut -f1)
sed -e "s/@VERSION@/$VERSION/" -e "s/@ARCH@/$ARCH/" -e "s/@SIZE@/$SIZE/" -e "s/@SHLIBS@/$SHLIBS/" \
    packaging/debian/control.in > "$ROOT/DEBIAN/control"
install -m 0644 packaging/debian/conffiles "$ROOT/DEBIAN/conffiles"
install -m 0755 packaging/debian/postinst packaging/debian/prerm packaging/debian/postrm "$ROOT/DEBIAN/"
(cd "$ROOT" && find . -path ./DEBIAN -prune -o -type f -printf '%P\n' | sort | xargs -d '\n' md5sum) > "$ROOT/DEBIAN/md5sums"
chmod 0644 "$ROOT/DEBIAN/md5sums"

# Written beside and renamed into place: a reader (a test, apt) never sees half a package.
dpkg-deb --root-owner-group -Z"$DEB_COMPRESS" --build "$ROOT" "$DEB.partial" >/dev/null
mv -f "$DEB.partial" "$DEB"
echo "$DEB"
if command -v lintian >/dev/null && [ -z "${NO_LINTIAN:-}" ]; then
    lintian --info --display-info "$DEB" || true
fi
