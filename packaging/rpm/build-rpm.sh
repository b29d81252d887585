#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds hotspot-helper-VERSION-1.ARCH.rpm from the tree with rpmbuild and
# packaging/rpm/hotspot-helper.spec: the tree as Source0 (the files git knows, or the whole tree
# outside a checkout), then rpmbuild -bb in RPM_DIR/rpmbuild, then rpmlint unless NO_RPMLINT is
# set. Called by `make rpm` (VERSION, RPM_DIR, BUILT_PRODUCTS come from there).
# BUILT_PRODUCTS' release binary is packaged (the spec's "prebuilt").
set -euo pipefail
cd "$(dirname "$0")/../.."

VERSION=${VERSION:-$(sed -n 's/^ *public static let current = "\([^"]*\)".*/\1/p' Sources/HotspotProtocol/ProductVersion.swift)}
RPM_DIR=${RPM_DIR:-rpm-build}
BUILT_PRODUCTS=${BUILT_PRODUCTS:-.build-release/release}
command -v rpmbuild >/dev/null || { echo "build-rpm: rpmbuild is missing (Debian: apt-get install rpm; Fedora: dnf install rpm-build)" >&2; exit 1; }

mkdir -p "$RPM_DIR"
top=$(cd "$RPM_DIR" && pwd)/rpmbuild
rm -rf "$top"
mkdir -p "$top/SOURCES" "$top/SPECS" "$top/BUILD" "$top/RPMS" "$top/SRPMS"
name="hotspot-helper-$VERSION"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    # Tracked files and new ones not ignored: what a commit of this tree would hold.
    git ls-files -z --cached --others --exclude-standard | xargs -0 -I{} sh -c '[ -e "$1" ] && printf "%s\0" "$1"' _ {} \
        | tar --null -T - --transform "s,^,$name/," -czf "$top/SOURCES/$name.tar.gz"
else
    tar --exclude='./.build*' --exclude="./$RPM_DIR" --exclude=./debian-build --transform "s,^\.,$name," -czf "$top/SOURCES/$name.tar.gz" .
fi
cp packaging/rpm/hotspot-helper.spec "$top/SPECS/"

# The release build `make rpm` just made (or BUILT_PRODUCTS as it is, with SKIP_BUILD): built
# once, not again inside rpmbuild. A packager with Swift as a package builds with the spec alone.
args=(-bb --define "_topdir $top" --define "prebuilt $(cd "$BUILT_PRODUCTS" && pwd)")
# rpmbuild checks BuildRequires against the rpm database, which is empty where rpm is not the
# system's package manager (Debian): there the build machine's own check (scripts/install-deps.sh)
# stands in.
if ! rpm -q rpm >/dev/null 2>&1; then args+=(--nodeps); fi
rpmbuild "${args[@]}" "$top/SPECS/hotspot-helper.spec" > "$top/rpmbuild.log" 2>&1 || { cat "$top/rpmbuild.log" >&2; exit 1; }
rpm=$(find "$top/RPMS" -name "$name-*.rpm" | head -n 1)
cp -f "$rpm" "$RPM_DIR/"
out="$RPM_DIR/$(basename "$rpm")"
echo "$out"
if command -v rpmlint >/dev/null && [ -z "${NO_RPMLINT:-}" ]; then
    rpmlint -c packaging/rpm/rpmlint.toml -r packaging/rpm/hotspot-helper.rpmlintrc "$out" packaging/rpm/hotspot-helper.spec || true
fi
