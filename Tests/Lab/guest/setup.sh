# SPDX-License-Identifier: Apache-2.0
# The lab's guest setup (sourced by guest/boot): radios, the AP side, the client side.
#
# Radios (mac80211_hwsim, one simulated medium; radio N has MAC/BSSID 02:00:00:00:0N:00):
#   phy0 wlan0  client: wpa_supplicant + NetworkManager (root namespace)
#   in the "ap" namespace, each its own hostapd, bridge, dnsmasq and hotspot-portal-sim:
#   wlan1 CityFree  open, click-through portal        br-city   10.1.0.1
#   wlan2 Office    WPA2-PSK, not captive              br-office 10.2.0.1
#   wlan3 HomeNet   open, not captive                  br-home   10.3.0.1
#   wlan4 RoamNet   open, not captive (BSSID A)        br-roam   10.4.0.1
#   wlan5 RoamNet   open, not captive (BSSID B)        br-roam   (same bridge: the lease survives)
#   wlan6 FailNet   open, click-through portal         br-fail   10.6.0.1
#   wlan7 WisprNet  open, WISPr 1.0 gateway            br-wispr  10.7.0.1
#   wlan8 CapNet    open, RFC 8908 API over TLS        br-cap    10.8.0.1 (+ https on :443)
#   wlan9 SlowNet   open, click-through behind a gateway that resets a new client for 3 s, then
#                   answers its first 6 requests 4 s late      br-slow 10.9.0.1
#   wlan10 NdsNet   open, openNDS-like: 307 to :2050, two GET forms   br-nds 10.10.0.1
#   wlan11 FlapNet  open, click-through that hangs every other 5 s     br-flap 10.11.0.1
#   wlan12 SlowRouterNet open, openNDS on a slow router                  br-slowr 10.12.0.1
#   wlan13 HotelNet open, a hotel's form (room number + surname, plain http)   br-hotel 10.13.0.1
# Every name resolves to the bridge's own address (dnsmasq's catch-all), so every probe and
# NetworkManager's own connectivity check reach that network's portal simulator.

LAB_OFFICE_PSK="office-passphrase-42"
# name iface ssid bridge subnet mode security [simulator options]
LAB_APS="
city wlan1 CityFree br-city 10.1.0 click-through open
office wlan2 Office br-office 10.2.0 open wpa2
home wlan3 HomeNet br-home 10.3.0 open open
roamA wlan4 RoamNet br-roam 10.4.0 open open
roamB wlan5 RoamNet br-roam - - open
fail wlan6 FailNet br-fail 10.6.0 click-through open
wispr wlan7 WisprNet br-wispr 10.7.0 wispr open
cap wlan8 CapNet br-cap 10.8.0 capport open
slow wlan9 SlowNet br-slow 10.9.0 click-through open --refuse-seconds 3 --slow-first-requests 6 --slow-delay-ms 4000
nds wlan10 NdsNet br-nds 10.10.0 get-forms open --splash-port 2050
flap wlan11 FlapNet br-flap 10.11.0 click-through open --flap-seconds 5 --flap-hang-ms 8000
slowr wlan12 SlowRouterNet br-slowr 10.12.0 click-through open --slow-router 6-10 --intercept-after 3
hotel wlan13 HotelNet br-hotel 10.13.0 venue open --venue hotel
"
# SlowNet, NdsNet and FlapNet come up only for the portals group: every access point is one more
# radio beaconing on the simulated medium, which other groups' joins under TCG need not share. In a
# boot serving other groups first (lab.group=nm,portals) they start when the portals group does
# (lab_portals_aps), after the other access points have stopped. The links, signin (the sign-in
# scenarios run on other releases' NetworkManager) and systemd groups start only the networks they
# join (systemd: CityFree for sandboxed-signin, HotelNet for remembered-signin: HotelNet comes up
# in no other boot).
LAB_PORTAL_APS=$(grep -E '^(slow|nds|flap|slowr) ' <<< "$LAB_APS")
LAB_ALL_APS=$LAB_APS
LAB_APS_LATER=""
case ",$LAB_GROUP," in
    ,portals,) LAB_APS=$LAB_PORTAL_APS ;;
    ,links,*) LAB_APS=$(grep -E '^(office|home|roamA|roamB|cap) ' <<< "$LAB_APS") ;;
    ,signin,) LAB_APS=$(grep -E '^(city|office|fail|wispr|cap) ' <<< "$LAB_APS") ;;
    ,systemd,) LAB_APS=$(grep -E '^(city|hotel) ' <<< "$LAB_APS") ;;
    *) LAB_APS=$(grep -v -E '^(slow|nds|flap|slowr|hotel) ' <<< "$LAB_APS") ;;
esac
case ",$LAB_GROUP," in ,portals,) ;; *,portals,*) LAB_APS_LATER=$LAB_PORTAL_APS ;; esac
# Radio N is wlanN (BSSID 02:00:00:00:0N:00, which the scenarios know): as many radios as the
# highest-numbered interface the boot uses needs, radio 0 for the client; a radio no access point
# uses stays down in the ap namespace and sends nothing.
LAB_RADIOS=$(( $(awk 'NF { sub("wlan", "", $2); if ($2 + 0 > m) m = $2 + 0 } END { print m }' <<< "$LAB_APS
$LAB_APS_LATER") + 1 ))
# The SSIDs the client must see before the scenarios start.
LAB_SSIDS=$(awk 'NF { print $3 }' <<< "$LAB_APS" | sort -u)

t() { cut -d' ' -f1 /proc/uptime; }
lab_error() { LAB_SETUP_ERROR="$*"; echo "setup error: $*"; return 1; }

# wait_for SECONDS DESCRIPTION COMMAND...: polls COMMAND every 0.2 s.
wait_for() {
    local deadline=$(( $(date +%s) + $1 )) what="$2"; shift 2
    until "$@" > /dev/null 2>&1; do
        [ "$(date +%s)" -ge "$deadline" ] && { lab_error "timed out waiting for $what"; return 1; }
        sleep 0.2
    done
}

lab_ap_exec() { ip netns exec ap "$@"; }

# The throwaway CA and the certificate for capport.lab (RFC 8908 wants https), made at run time.
lab_make_ca() {
    local d=/run/lab-ca
    mkdir -p $d
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 -subj "/CN=Hotspot Lab CA" -keyout $d/ca.key -out $d/ca.pem \
        -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign 2>/dev/null || return 1
    openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj "/CN=capport.lab" -keyout $d/server.key -out $d/server.csr 2>/dev/null || return 1
    printf 'subjectAltName=DNS:capport.lab\nextendedKeyUsage=serverAuth\n' > $d/ext
    openssl x509 -req -in $d/server.csr -CA $d/ca.pem -CAkey $d/ca.key -CAcreateserial -days 2 -extfile $d/ext -out $d/server.pem 2>/dev/null || return 1
    cat $d/server.key $d/server.pem > $d/server-bundle.pem
    cp $d/ca.pem /lab-out/ca.pem
}

# Every radio but the client's into the "ap" namespace (before NetworkManager starts: it must
# only ever see wlan0).
lab_ap_radios() {
    ip netns add ap || return 1
    local n
    for n in $(seq 1 $((LAB_RADIOS - 1))); do
        iw phy "phy$n" set netns name ap || { lab_error "iw phy phy$n set netns name ap failed"; return 1; }
    done
    lab_ap_exec ip link set lo up
}

# lab_start_aps LINES: hostapd, bridge, dnsmasq and hotspot-portal-sim for each line of LAB_APS's
# format; waits until every one of those access points is enabled and every simulator listens.
lab_start_aps() {
    local name iface ssid bridge subnet mode security options names="" sims=""
    while read -r name iface ssid bridge subnet mode security options; do
        [ -n "$name" ] || continue
        names="$names $name"
        if [ "$subnet" != "-" ]; then
            lab_ap_exec ip link add "$bridge" type bridge forward_delay 0 stp_state 0
            lab_ap_exec ip addr add "$subnet.1/24" dev "$bridge"
            lab_ap_exec ip link set "$bridge" up
        fi
        {
            echo "interface=$iface"
            echo "bridge=$bridge"
            echo "driver=nl80211"
            echo "ssid=$ssid"
            echo "hw_mode=g"
            echo "channel=1"
            # A beacon a second instead of ten: every radio on the simulated medium receives
            # every beacon, under TCG a seventh of a guest's CPU at ten. Roaming notices a lost
            # access point after about seven missed beacons; DTIM every beacon, so a
            # power-saving client's broadcasts wait at most one.
            echo "beacon_int=1000"
            echo "dtim_period=1"
            echo "ctrl_interface=/run/hostapd"
            if [ "$security" = wpa2 ]; then
                echo "wpa=2"
                echo "wpa_key_mgmt=WPA-PSK"
                echo "rsn_pairwise=CCMP"
                echo "wpa_passphrase=$LAB_OFFICE_PSK"
                # Under TCG an EAPOL-Key message 4/4 can arrive after hostapd's retransmission
                # timer (100 ms for the first) and be dropped, failing a join with the right
                # password; NetworkManager then asks the requester's agents for a new one.
                echo "wpa_disable_eapol_key_retries=1"
            fi
        } > "/run/hostapd-$name.conf"
        lab_ap_exec hostapd "/run/hostapd-$name.conf" > "/lab-out/hostapd-$name.log" 2>&1 &
        echo $! > "/run/hostapd-$name.pid"
        [ "$subnet" = "-" ] && continue
        sims="$sims $name"
        # RFC 8910 (option 114) on CapNet: an https URI; dnsmasq must force it (NetworkManager's
        # client does not request it) and keeps quote characters, so it is written unquoted.
        local force=""
        [ "$mode" = capport ] && force="--dhcp-option-force=114,https://capport.lab/api/captive"
        lab_ap_exec dnsmasq --conf-file=/dev/null --keep-in-foreground --user=root --bind-interfaces --interface="$bridge" \
            --except-interface=lo --listen-address="$subnet.1" --dhcp-range="$subnet.50,$subnet.150,255.255.255.0,1h" \
            --dhcp-leasefile="/run/dnsmasq-$name.leases" --no-resolv --no-hosts \
            --address="/#/$subnet.1" --log-dhcp --log-queries --log-facility=- $force \
            > "/lab-out/dnsmasq-$name.log" 2>&1 &
        echo $! > "/run/dnsmasq-$name.pid"
        local sim=(serve --mode "$mode" --listen "$subnet.1:80")
        [ "$mode" = capport ] && sim+=(--https-base "https://capport.lab" --session-seconds 600 --trusted-proxy "$subnet.1")
        # shellcheck disable=SC2206 (options are words)
        [ -n "$options" ] && sim+=($options)
        lab_ap_exec "$LAB_BIN/hotspot-portal-sim" "${sim[@]}" > "/lab-out/portal-$name.log" 2>&1 &
        if [ "$mode" = capport ]; then
            lab_ap_exec /usr/bin/python3 "$LAB_DIR/guest/tls-front.py" "$subnet.1" 443 "$subnet.1:80" /run/lab-ca/server-bundle.pem \
                > /lab-out/tls-cap.log 2>&1 &
        fi
        echo "setup: AP $name started at $(t) s"
    done <<< "$1"
    wait_for 30 "the access points$names (AP-ENABLED in hostapd-*.log)" bash -c "for n in $names; do grep -q AP-ENABLED /lab-out/hostapd-\$n.log || exit 1; done" || return 1
    echo "setup: access points$names enabled at $(t) s"
    wait_for 60 "the portal simulators$sims" bash -c "for n in $sims; do grep -q listening /lab-out/portal-\$n.log || exit 1; done"
}

# The portals group's access points, in a boot that served other groups first: the others stop
# (hostapd ended and its radio down: with the interface up, mac80211_hwsim keeps answering for its
# BSSID) and the portals group's start, so its joins share the medium with no one else.
lab_portals_aps() {
    local name iface rest
    nmcli device disconnect wlan0 > /dev/null 2>&1
    while read -r name iface rest; do
        [ -n "$name" ] || continue
        [ -e "/run/hostapd-$name.pid" ] && kill "$(cat "/run/hostapd-$name.pid")" 2>/dev/null
        rm -f "/run/hostapd-$name.pid"
        lab_ap_exec ip link set "$iface" down 2>/dev/null
    done <<< "$LAB_APS"
    lab_start_aps "$LAB_APS_LATER" || return 1
    echo "setup: the portals group's access points up at $(t) s"
}

lab_client_side() {
    # dbus first (NetworkManager, wpa_supplicant and the daemon), then the project's bus policy.
    if [ ! -S /run/dbus/system_bus_socket ]; then  # the systemd group has dbus.service and the package's policy
        # The checkout's bus policy, unless the package's is installed (another release's root).
        [ -e /usr/share/dbus-1/system.d/org.freedesktop.NetworkManager.HotspotHelper.conf ] ||
            install -m 0644 "$LAB_REPO/dbus/org.freedesktop.NetworkManager.HotspotHelper.conf" /etc/dbus-1/system.d/
        dbus-daemon --system --fork --nopidfile || { lab_error "dbus-daemon --system did not start"; return 1; }
    fi
    wpa_supplicant -u > /lab-out/wpa_supplicant.log 2>&1 &
    mkdir -p /etc/NetworkManager/conf.d
    rm -f /etc/NetworkManager/system-connections/* 2>/dev/null
    cat > /etc/NetworkManager/conf.d/99-lab.conf <<EOF
[main]
plugins=keyfile
auth-polkit=false
dhcp=internal
rc-manager=file
[logging]
level=INFO
[connectivity]
enabled=true
uri=http://nmcheck.gnome.org/check_network_status.txt
response=NetworkManager is online
interval=30
[device-lab]
wifi.scan-rand-mac-address=no
EOF
    # The package's pre-up dispatcher script (the systemd group has it from the .deb): NetworkManager
    # holds each join until the daemon has settled it (nm-dispatcher is D-Bus activated).
    if [ ! -e /usr/lib/NetworkManager/dispatcher.d/pre-up.d/90-hotspot-helper ]; then
        install -D -m 0755 "$LAB_REPO/packaging/networkmanager/90-hotspot-helper" /etc/NetworkManager/dispatcher.d/pre-up.d/90-hotspot-helper
    fi
    NetworkManager --no-daemon --debug --log-level=INFO > /lab-out/NetworkManager.log 2>&1 &
    echo $! > /run/nm.pid
}

# NetworkManager started by lab_client_side (while the access points came up): wait until it is
# ready, wlan0 disconnected, and every access point of the boot in its scan list.
lab_client_ready() {
    wait_for 90 "NetworkManager's startup (nm-online -s)" nm-online -s -q -t 5 || return 1
    wait_for 60 "wlan0 managed and disconnected" bash -c '[ "$(nmcli -g GENERAL.STATE dev show wlan0)" = "30 (disconnected)" ]' || return 1
    echo "NetworkManager ready at $(t) s"
    local i
    for i in $(seq 1 12); do
        nmcli dev wifi rescan ifname wlan0 > /dev/null 2>&1
        sleep 3
        [ "$(nmcli -t -f SSID dev wifi list ifname wlan0 --rescan no | sort -u | grep -c -x -F "$LAB_SSIDS")" = "$(grep -c . <<< "$LAB_SSIDS")" ] && break
    done
    nmcli -t -f BSSID,SSID,SECURITY dev wifi list ifname wlan0 --rescan no > /lab-out/scan.txt
    echo "scan list complete at $(t) s (after $i rescans)"
}

# The project's daemon and helpers: started by scenarios.py (it restarts them per scenario).
lab_setup() {
    echo "setup: udev at $(t) s"
    pgrep -x systemd-udevd > /dev/null || /lib/systemd/systemd-udevd --daemon || { lab_error "systemd-udevd did not start"; return 1; }
    udevadm trigger --subsystem-match=net --action=add
    modprobe mac80211_hwsim radios=$LAB_RADIOS || { lab_error "modprobe mac80211_hwsim failed"; return 1; }
    modprobe sch_netem 2>/dev/null
    udevadm settle -t 15
    echo "setup: radios at $(t) s: $(ls /sys/class/ieee80211 | tr '\n' ' ')"
    lab_make_ca || { lab_error "openssl: the throwaway CA"; return 1; }
    echo "setup: CA at $(t) s"
    # The client side starts while the access points come up (NetworkManager's start and the AP
    # side's each take 25-60 s under TCG); the scan waits for both.
    lab_ap_radios || return 1
    lab_client_side || return 1
    echo "setup: NetworkManager started at $(t) s"
    lab_start_aps "$LAB_APS" || return 1
    echo "setup: AP side at $(t) s"
    lab_client_ready || return 1
}

lab_teardown() {
    local p
    for p in $(cat /run/*.pid 2>/dev/null); do kill "$p" 2>/dev/null; done
}
