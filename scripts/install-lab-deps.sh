#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Installs the Debian packages the real-NetworkManager lab needs (Tests/Lab, docs/LAB.md), as root.
# Called by scripts/install-deps.sh. None of the services these packages carry may run on this
# machine itself (NetworkManager would take over its network): a policy-rc.d that refuses every
# start goes in FIRST, and on a host run by systemd their units are masked. They run only inside
# the lab's QEMU guests.
set -eu

if [ "$(id -u)" != 0 ]; then
    echo "install-lab-deps.sh: not root; the lab needs root anyway (it is skipped otherwise)" >&2
    exit 0
fi

# 1. Nothing installed below may start on the host.
if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\n# Installed by hotspot-helper scripts/install-lab-deps.sh: no service starts on this host.\nexit 101\n' > /usr/sbin/policy-rc.d
    chmod 0755 /usr/sbin/policy-rc.d
fi
if [ -d /run/systemd/system ]; then
    for unit in NetworkManager.service NetworkManager-wait-online.service NetworkManager-dispatcher.service \
                wpa_supplicant.service hostapd.service dnsmasq.service; do
        systemctl mask "$unit" > /dev/null 2>&1 || true
    done
fi

# 2. The packages (about 110 MB). One line each, why:
#   qemu-system-x86     the guests
#   linux-image-amd64   Debian's kernel with mac80211_hwsim, 9p and overlay modules
#   busybox-static      the guests' first stage (initramfs)
#   cpio                builds that initramfs
#   kmod                modprobe in the guest
#   udev                NetworkManager waits for udev to have seen the network devices
#   network-manager     the real NetworkManager 1.42 (and nmcli, nm-online)
#   wpasupplicant       its Wi-Fi supplicant
#   hostapd             the access points
#   dnsmasq-base        DHCP (with options) and catch-all DNS on the AP side
#   iw                  moves radios into the AP network namespace
#   iproute2            namespaces, bridges, tc netem for the figures
#   wireless-regdb      the regulatory database cfg80211 loads
#   dbus                the guests' system bus
#   python3-dbus        the scenarios drive NetworkManager and the daemon over D-Bus
#   python3-gi          the stand-in desktop secret agent's main loop
#   systemd             the systemd group's PID 1, systemctl and busctl
#   openssl             the throwaway CA for the RFC 8908 API over TLS
#   util-linux          setpriv: scenarios run commands as an unprivileged user
#   polkitd             the systemd group's real polkit
apt-get install -y --no-install-recommends -o DPkg::Lock::Timeout=600 \
    qemu-system-x86 linux-image-amd64 busybox-static cpio kmod udev network-manager wpasupplicant hostapd \
    dnsmasq-base iw iproute2 wireless-regdb dbus python3-dbus python3-gi systemd openssl util-linux polkitd
