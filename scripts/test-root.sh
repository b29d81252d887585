#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Makes (once) and prints the path of a Debian root of another release, for the tests that run
# the project where today's users run it: GNOME Shell 48 and NetworkManager 1.52 (trixie, Debian
# 13), GNOME Shell 50 and NetworkManager 1.58 (forky, testing). docs/TESTING.md, "Other releases".
#
#     scripts/test-root.sh trixie|forky|trixie-plasma   # prints the root's path on stdout; progress on stderr
#
# The root is built with debootstrap from this machine's Debian mirror, with a policy-rc.d that
# refuses every service start FIRST (nothing in it may run on this machine by itself), then the
# packages below, without recommends. It is cached under $HOTSPOT_ROOTS (default
# /var/cache/hotspot-helper/roots/RELEASE) and made again only when the package list or this
# script changes; it is built in a directory beside the cache and renamed into place, so an
# interrupted build leaves nothing half-made behind. Root only (debootstrap and chroot need it).
#
# forky is Debian testing: the mirror's Release file for it may be past its Valid-Until date
# (testing's is a week; the mirror here is a snapshot). The signature is still checked against
# debian-archive-keyring; only the date is not, and only for testing (apt's
# Acquire::Check-Valid-Until, set in the root for forky alone). trixie, a stable release, is
# checked in full.
#
# trixie-plasma is the trixie root (made first if missing) copied, with KDE Plasma 6.3's network
# management added: plasma-nm (its QML module, org.kde.plasma.networkmanagement, its applet's
# QML files and its kded module), the qml runtime and kded6 (PackageTests.PlasmaRootTests). A
# cache of its own, so the trixie root the other tests use stays as it is.
set -euo pipefail

release=${1:-}
case "$release" in
    trixie|forky|trixie-plasma) ;;
    *) echo "usage: scripts/test-root.sh trixie|forky|trixie-plasma" >&2; exit 2 ;;
esac
if [ "$(id -u)" -ne 0 ]; then
    echo "test-root.sh: not root (debootstrap and chroot need root)" >&2
    exit 77
fi
command -v debootstrap >/dev/null || { echo "test-root.sh: no debootstrap (apt-get install debootstrap)" >&2; exit 1; }

mirror=${HOTSPOT_ROOTS_MIRROR:-$(sed -nE 's/^URIs: *(http[^ ]*debian)$/\1/p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n1)}
mirror=${mirror:-http://deb.debian.org/debian}
cache=${HOTSPOT_ROOTS:-/var/cache/hotspot-helper/roots}
root="$cache/$release"

# What the roots carry, one line each, why (all without recommends):
packages=(
    # GNOME Shell run headless, as on the host (Tests/DesktopTests/GnomeShellTests)
    gnome-shell fonts-cantarell adwaita-icon-theme
    # the private buses, the mock NetworkManager and the scenarios' D-Bus client
    dbus python3-dbusmock python3-dbus python3-gi
    # the lab's guest: real NetworkManager, its supplicant, the access points, DHCP and DNS
    network-manager wpasupplicant hostapd dnsmasq-base iw iproute2 wireless-regdb kmod udev
    # the lab's guest: first-stage tools, the RFC 8908 test CA, setpriv, busctl
    busybox-static cpio openssl util-linux systemd
    # the project's own package's run-time libraries come with it through apt (its Depends)
)
# What the trixie-plasma root adds to the trixie one (without recommends):
plasma_packages=(
    # Plasma's network list and its portal notification: plasma-nm's QML module and kded module
    plasma-nm kded6
    # the QML runtime that loads the applet's list headless (QT_QPA_PLATFORM=offscreen), and
    # Plasma's font for its picture
    qml-qt6 fonts-noto-core
)
if [ "$release" = trixie-plasma ]; then
    base=$("$0" trixie)
    packages=("${plasma_packages[@]}")
    # Made again when the trixie root it was copied from was.
    packages+=("base=$(cat "$base/.hotspot-root")")
fi
# What the cached root was made from: the release, the package list and how it is made (bump
# `layout` when the steps below change what a root holds).
layout=1
key=$(printf '%s\n' "$layout" "$release" "${packages[@]}" | sha256sum | cut -c1-16)
if [ -f "$root/.hotspot-root" ] && [ "$(cat "$root/.hotspot-root")" = "$key" ]; then
    echo "$root"
    exit 0
fi

mkdir -p "$cache"
# One maker a root at a time (make test makes the roots beside the build while a test may ask for
# one): the second waits for the first and then finds the root made.
exec 9>"$cache/.$release.lock"
flock 9
if [ -f "$root/.hotspot-root" ] && [ "$(cat "$root/.hotspot-root")" = "$key" ]; then
    echo "$root"
    exit 0
fi
work=$(mktemp -d "$cache/.$release.XXXXXX")
chmod 0755 "$work"  # apt in the root downloads as _apt
trap 'umount_all "$work" 2>/dev/null || true; rm -rf --one-file-system "$work"' EXIT
umount_all() { for m in proc sys dev/pts dev; do umount -l "$1/$m" 2>/dev/null || true; done; }

start=$SECONDS
if [ "$release" = trixie-plasma ]; then
    echo "test-root: making a $release root in $root (the trixie root copied, Plasma's network management added; a few minutes, once)" >&2
    cp -a "$base/." "$work/"
    rm -f "$work/.hotspot-root"
else
    echo "test-root: making a $release root in $root (debootstrap from $mirror; a few minutes, once)" >&2
    # forky's Release may have expired (see above); debootstrap checks the signature, not the date.
    # Debian 12's debootstrap has no script named forky; Debian's releases share sid's.
    script=/usr/share/debootstrap/scripts/$release
    [ -e "$script" ] || script=/usr/share/debootstrap/scripts/sid
    debootstrap --variant=minbase --components=main "$release" "$work" "$mirror" "$script" >"$work.log" 2>&1 || {
        echo "test-root: debootstrap $release failed; its last lines:" >&2
        tail -n 20 "$work.log" >&2
        exit 1
    }
    rm -f "$work.log"
    printf '#!/bin/sh\n# hotspot-helper scripts/test-root.sh: no service starts in this root.\nexit 101\n' > "$work/usr/sbin/policy-rc.d"
    chmod 0755 "$work/usr/sbin/policy-rc.d"
fi
if [ "$release" = forky ]; then
    printf '// Debian testing on a mirror snapshot: Release may be past Valid-Until (scripts/test-root.sh)\nAcquire::Check-Valid-Until "false";\n' \
        > "$work/etc/apt/apt.conf.d/90hotspot-valid-until"
fi
printf 'deb %s %s main\n' "$mirror" "${release%-plasma}" > "$work/etc/apt/sources.list"
mount -t proc proc "$work/proc"
mount --rbind /sys "$work/sys"
mount --bind /dev "$work/dev"
if [ "$release" = trixie-plasma ]; then unset 'packages[-1]'; fi  # the base's key is not a package
echo "test-root: installing ${#packages[@]} packages into the $release root" >&2
chroot "$work" env DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8 apt-get update -qq
chroot "$work" env DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8 \
    apt-get install -y -qq --no-install-recommends "${packages[@]}" >"$cache/.$release-install.log" 2>&1 || {
    echo "test-root: installing into the $release root failed; the last lines:" >&2
    tail -n 20 "$cache/.$release-install.log" >&2
    exit 1
}
rm -f "$cache/.$release-install.log"
chroot "$work" apt-get clean
umount_all "$work"
echo "$key" > "$work/.hotspot-root"
rm -rf --one-file-system "$root"
mv "$work" "$root"
trap - EXIT
echo "test-root: $release root ready in $((SECONDS - start)) s" >&2
echo "$root"
