#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs what building and testing need on Debian 12 (run as root). Idempotent and quiet when
# everything is already there. The Swift toolchain itself is expected on PATH (swift.org builds).
set -euo pipefail

packages=(
  pkg-config
  libstdc++-12-dev     # libstdc++.a, linked into the release binary (Makefile, STATIC_CXX_FLAGS)
  libdbus-1-dev        # CDBus: libdbus-1
  libglib2.0-dev       # CGLib: tests hold KeyFile to GLib's GKeyFile (KeyFileAgreementTests)
  libcurl4-openssl-dev # CCurl: HTTP probes
  libxml2-dev          # CXML2: the HTML parser for portal sign-in forms
  libc-ares-dev        # CAres: DNS on the joined link
  dbus                 # dbus-daemon for private test buses
  libglib2.0-bin       # gdbus, a foreign D-Bus client in tests
  systemd              # busctl, systemd-analyze
  python3-dbus         # dbus-python, the language-neutral helper in tests
  python3-dbusmock     # mock NetworkManager, polkit and notification daemons
  python3-gi           # GLib main loop for the Python helper in tests
  iproute2             # network namespaces for interface-binding tests
  openssl              # a test CA and server certificates for HTTPS tests
  socat                # TLS termination in front of the portal simulator in tests
  make                 # make install in the packaging tests
  man-db               # rendering the man pages in the packaging tests
  desktop-file-utils   # desktop-file-validate on the autostart entry
  dpkg-dev             # dpkg-shlibdeps for the .deb's dependencies
  lintian              # the .deb checked as Debian checks packages
  gnome-shell          # GNOME Shell 43, run headless to test the Shell extension (pulls mutter, gjs, and WebKit for its Hotspot Login window)
  fonts-cantarell      # Shell's own font, so its menus are laid out and screenshotted as users see them
  adwaita-icon-theme   # the icons in Shell's Wi-Fi menu
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exec "$(dirname "$0")/install-lab-deps.sh"
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "missing Debian packages: ${missing[*]}" >&2
  echo "install them with: sudo apt-get install ${missing[*]}" >&2
  exit 1
fi
echo "Installing: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
"$(dirname "$0")/install-lab-deps.sh"
