# SPDX-License-Identifier: Apache-2.0
# Sourced by guest/boot when the guest's root is another Debian release's (run-lab --nm-release:
# the trixie or forky root from scripts/test-root.sh, with its own NetworkManager, wpa_supplicant,
# hostapd, dnsmasq, systemd-udevd, D-Bus and Python). The host's / is mounted read-only at /host
# (Tests/Lab/init). What the release root lacks comes from there:
#
# - the kernel's modules: the guest runs the host's Debian kernel, so /lib/modules/$(uname -r) is
#   the host's, bound in (mac80211_hwsim, sch_netem and their dependencies);
# - the project's package: the release .deb, installed into the root by run-lab before the boot
#   with apt, as a user installs it (`apt-get install ./hotspot-helper_*.deb` in a chroot of an
#   overlay on the cached root, so its Depends come from the mirror and the cached root stays as
#   it was; the root's policy-rc.d keeps its maintainer scripts from starting anything). The
#   scenarios then run the daemon and hotspotctl that shipped, and NetworkManager runs the pre-up
#   dispatcher script and the bus policy that shipped;
# - the test-only programs (hotspot-portal-sim, hotspot-example-helper: never packaged) from the
#   host's debug build, run by the host's own dynamic loader with the host's libraries
#   (/host/opt/swift for the Swift runtime, /host/usr/lib/x86_64-linux-gnu for the rest), so
#   nothing of the release root's C library or libraries is mixed into them and nothing needs to
#   be built for the release. They are stand-ins for a network and a third-party helper: what
#   they link does not change what is tested.
#
# LAB_BIN becomes /run/lab-bin: wrappers for the test-only programs, and links to the installed
# hotspot-helperd and hotspotctl (or, with no .deb given, the debug build's, through the host's
# loader: for working on the lab only; run-lab says so).

lab_release_root() {
    local kver
    kver=$(uname -r)
    mkdir -p "/lib/modules/$kver"
    mount --bind "/host$LAB_MODULES" "/lib/modules/$kver" || { lab_error "cannot bind the host's modules /host$LAB_MODULES"; return 1; }
    [ -e "/lib/modules/$kver/modules.dep" ] || { lab_error "no modules.dep in /host$LAB_MODULES"; return 1; }

    local host_bin="/host$LAB_BIN" wrap=/run/lab-bin p
    mkdir -p $wrap
    for p in hotspot-portal-sim hotspot-example-helper; do
        printf '#!/bin/sh\nexec /host%s --library-path %s %s/%s "$@"\n' "$LAB_HOSTLD" "$LAB_HOSTLIBS" "$host_bin" "$p" > "$wrap/$p"
        chmod 0755 "$wrap/$p"
    done
    if [ -n "$LAB_DEB" ]; then
        dpkg-query -W hotspot-helper > /lab-out/installed.txt 2>&1 || { lab_error "hotspot-helper is not installed in the $LAB_RELEASE root"; return 1; }
        local daemon
        daemon=$(dpkg -L hotspot-helper | grep -E '/hotspot-helperd$' | grep -v /share/ | head -1)
        [ -n "$daemon" ] && [ -x "$daemon" ] || { lab_error "the package installs no hotspot-helperd"; return 1; }
        ln -sf "$daemon" $wrap/hotspot-helperd
        ln -sf /usr/bin/hotspotctl $wrap/hotspotctl
        # The installed programs must load on this release (the libraries named in Depends).
        "$wrap/hotspotctl" --help > /dev/null 2> /lab-out/hotspotctl-help.log || { lab_error "the installed hotspotctl does not run on $LAB_RELEASE: $(head -c 300 /lab-out/hotspotctl-help.log)"; return 1; }
        echo "release: $(cat /lab-out/installed.txt) installed; daemon $daemon"
    else
        echo "release: no .deb given: the debug build's daemon and hotspotctl through the host's loader"
        for p in hotspot-helperd hotspotctl; do
            printf '#!/bin/sh\nexec /host%s --library-path %s %s/%s "$@"\n' "$LAB_HOSTLD" "$LAB_HOSTLIBS" "$host_bin" "$p" > "$wrap/$p"
            chmod 0755 "$wrap/$p"
        done
    fi
    # The desktop user the provisioned-password scenario joins as (uid 1000, as on the host).
    id -u 1000 > /dev/null 2>&1 || useradd -u 1000 -m -s /bin/bash desktop || { lab_error "useradd desktop (uid 1000)"; return 1; }
    export LAB_BIN=$wrap
}
