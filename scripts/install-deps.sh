#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs the Debian packages a make target needs on Debian 12 (run as root). Idempotent and quiet
# when everything is already there. The Swift toolchain itself is expected on PATH (swift.org builds).
#
#     scripts/install-deps.sh build    # building the programs
#     scripts/install-deps.sh demo     # make demo: building, plus a private bus and python-dbusmock
#     scripts/install-deps.sh test     # make test (the default): everything the tests, the .deb,
#                                      # GNOME Shell's tests and the lab (install-lab-deps.sh) use
#     scripts/install-deps.sh loaded   # make test-loaded: the tests' packages and stress-ng
#
# Download sizes on a fresh Debian 12 with Swift's own prerequisites: README, "Requirements".
set -euo pipefail

set_name=${1:-test}
build=(
  pkg-config
  libstdc++-12-dev     # libstdc++.a, linked into the release binary (Makefile, STATIC_CXX_FLAGS)
  libdbus-1-dev        # CDBus: libdbus-1
  libcurl4-openssl-dev # CCurl: HTTP probes
  libxml2-dev          # CXML2: the HTML parser for portal sign-in forms
  libc-ares-dev        # CAres: DNS on the joined link
)
demo=(
  dbus                 # dbus-daemon for the private bus
  python3-dbusmock     # the simulated NetworkManager (brings python3-dbus and python3-gi)
)
test=(
  libglib2.0-dev       # CGLib: tests hold KeyFile to GLib's GKeyFile (KeyFileAgreementTests)
  libglib2.0-bin       # gdbus, a foreign D-Bus client in tests
  systemd              # busctl, systemd-analyze
  python3-dbus         # dbus-python, the language-neutral helper in tests
  python3-gi           # GLib main loop for the Python helper in tests
  iproute2             # network namespaces for interface-binding tests
  openssl              # a test CA and server certificates for HTTPS tests
  socat                # TLS termination in front of the portal simulator in tests
  make                 # make install in the packaging tests
  man-db               # rendering the man pages in the packaging tests
  desktop-file-utils   # desktop-file-validate on the autostart entry
  dpkg-dev             # dpkg-shlibdeps for the .deb's dependencies
  lintian              # the .deb checked as Debian checks packages
  debootstrap          # Debian 13 and forky roots for the tests on other releases (scripts/test-root.sh)
  gnome-shell          # GNOME Shell 43, run headless to test the Shell extension (pulls mutter, gjs, and WebKit for its Hotspot Login window)
  fonts-cantarell      # Shell's own font, so its menus are laid out and screenshotted as users see them
  adwaita-icon-theme   # the icons in Shell's Wi-Fi menu
  xvfb xdotool x11-apps netpbm gir1.2-gtk-4.0 gir1.2-adw-1  # the sign-in dialog run, typed into and screenshotted (xwd, pnmtopng) under Xvfb
)
loaded=(
  stress-ng            # keeps both cores busy while the tests run (make test-loaded)
)

case "$set_name" in
  build)  packages=("${build[@]}") lab=0 ;;
  demo)   packages=("${build[@]}" "${demo[@]}") lab=0 ;;
  test)   packages=("${build[@]}" "${demo[@]}" "${test[@]}") lab=1 ;;
  loaded) packages=("${build[@]}" "${demo[@]}" "${test[@]}" "${loaded[@]}") lab=1 ;;
  *) echo "usage: scripts/install-deps.sh build|demo|test|loaded" >&2; exit 2 ;;
esac

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "missing Debian packages: ${missing[*]}" >&2
    echo "install them with: sudo apt-get install --no-install-recommends ${missing[*]}" >&2
    exit 1
  fi
  echo "Installing: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends -o DPkg::Lock::Timeout=600 "${missing[@]}" >/dev/null
fi
if [ "$lab" -eq 1 ]; then
  exec "$(dirname "$0")/install-lab-deps.sh"
fi
