#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs the Debian packages a make target needs on Debian 12 (run as root). Idempotent and quiet
# when everything is already there. The Swift toolchain itself is expected on PATH (swift.org builds).
# On Debian and its derivatives (Ubuntu, Mint…: ID or ID_LIKE in /etc/os-release) it installs with
# apt; on any other distribution it installs nothing: it checks what the build needs (commands and
# pkg-config modules, not package names), says what is missing with that distribution's package
# names where it knows them (Fedora, RHEL, openSUSE, Arch), and exits 1 when something is.
#
#     scripts/install-deps.sh build    # building the programs
#     scripts/install-deps.sh demo     # make demo: building, plus a private bus and python-dbusmock
#     scripts/install-deps.sh test     # make test (the default): everything the tests, the .deb,
#                                      # GNOME Shell's tests and the lab (install-lab-deps.sh) use
#     scripts/install-deps.sh loaded   # make test-loaded: the tests' packages and stress-ng
#
# Download sizes on a fresh Debian 12 with Swift's own prerequisites: docs/DEVELOPMENT.md, "Requirements".
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
  rpm                  # rpmbuild and rpm2cpio: the .rpm built from the spec and read back (RPMReleaseTests)
  rpmlint              # the .rpm checked as Fedora's review checks packages
  cpio                 # unpacking the .rpm to check the paths its files name
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

# Debian or a derivative of it?
os_id="" os_like="" os_name="this system"
os_release=${OS_RELEASE:-/etc/os-release}  # another file: to see what another distribution would be told
if [ -r "$os_release" ]; then
  # shellcheck disable=SC1091
  os_id=$(. "$os_release" && echo "${ID:-}") os_like=$(. "$os_release" && echo "${ID_LIKE:-}")
  os_name=$(. "$os_release" && echo "${PRETTY_NAME:-${ID:-this system}}")
fi
case " $os_id $os_like " in
  *" debian "*|*" ubuntu "*) debian_like=1 ;;
  *) debian_like=0 ;;
esac
if [ "$debian_like" -eq 0 ] && command -v apt-get >/dev/null && command -v dpkg-query >/dev/null && [ -z "$os_id" ]; then debian_like=1; fi

if [ "$debian_like" -eq 0 ]; then
  # What the build needs, checked directly; each as: description|check|dnf name|zypper name|pacman name.
  case " $os_id $os_like " in
    *" fedora "*|*" rhel "*|*" centos "*) family=dnf ;;
    *" suse "*|*" opensuse "*) family=zypper ;;
    *" arch "*) family=pacman ;;
    *) family="" ;;
  esac
  needs=(
    "pkg-config|command -v pkg-config|pkgconf-pkg-config|pkgconf-pkg-config|pkgconf"
    "libdbus-1 (pkg-config dbus-1)|pkg-config --exists dbus-1|dbus-devel|dbus-1-devel|dbus"
    "libcurl (pkg-config libcurl)|pkg-config --exists libcurl|libcurl-devel|libcurl-devel|curl"
    "libxml2 (pkg-config libxml-2.0)|pkg-config --exists libxml-2.0|libxml2-devel|libxml2-devel|libxml2"
    "c-ares (pkg-config libcares)|pkg-config --exists libcares|c-ares-devel|c-ares-devel|c-ares"
    "the static libstdc++ (libstdc++.a, for make release)|case \$(clang -print-file-name=libstdc++.a 2>/dev/null) in /*) true;; *) false;; esac|libstdc++-static|libstdc++-devel|gcc"
  )
  if [ "$set_name" != build ]; then
    needs+=(
      "dbus-daemon (a private bus)|command -v dbus-daemon|dbus-daemon|dbus-1-daemon|dbus"
      "python-dbusmock (the simulated NetworkManager)|/usr/bin/python3 -c 'import dbusmock'|python3-dbusmock|python3-python-dbusmock|python-dbusmock"
    )
  fi
  missing=() names=()
  for need in "${needs[@]}"; do
    IFS='|' read -r what check dnf zypper pacman <<<"$need"
    if ! bash -c "$check" >/dev/null 2>&1; then
      missing+=("$what")
      case "$family" in dnf) names+=("$dnf") ;; zypper) names+=("$zypper") ;; pacman) names+=("$pacman") ;; esac
    fi
  done
  command -v swift >/dev/null || missing+=("the Swift 6.3 toolchain on PATH (https://www.swift.org/install/linux/)")
  if [ ${#missing[@]} -gt 0 ]; then
    echo "$os_name is not Debian: nothing is installed. The build needs, and this system lacks:" >&2
    for m in "${missing[@]}"; do echo "  - $m" >&2; done
    case "$family" in
      dnf) [ ${#names[@]} -gt 0 ] && echo "install them with: sudo dnf install ${names[*]}" >&2 ;;
      zypper) [ ${#names[@]} -gt 0 ] && echo "install them with: sudo zypper install ${names[*]}" >&2 ;;
      pacman) [ ${#names[@]} -gt 0 ] && echo "install them with: sudo pacman -S --needed ${names[*]}" >&2 ;;
      *) echo "install them with your distribution's package manager (the pkg-config modules' development packages)" >&2 ;;
    esac
    exit 1
  fi
  if [ "$set_name" = test ] || [ "$set_name" = loaded ]; then
    echo "$os_name has what the build and the demo need. The whole test suite also runs Debian's own tools" >&2
    echo "(dpkg-deb, lintian, debootstrap, GNOME Shell 43, the lab's QEMU guests): run make test on Debian 12." >&2
    exit 1
  fi
  exit 0
fi

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
