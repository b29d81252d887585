# SPDX-License-Identifier: Apache-2.0
"""The systemd group ("installed as a user installs it"): a guest booted with systemd as
PID 1, the .deb from `make deb` installed by dpkg, real dbus.service and polkitd with the shipped
policy, and hotspot-helperd started by D-Bus activation and by systemctl under its shipped
hardening. Run by scenarios.py inside lab-scenarios.service (see boot-systemd).
"""

import json
import os
import pty
import select
import signal
import stat
import subprocess
import time

import dbus

import lab as lab_module
from lab import BIN, HH, HH_PATH, Failed, Process, note, now, portal_events, portal_reset, run, wait
from scenarios import NM_FULL, SIGNED_IN, sign_in

# The hotel's access point (setup.sh's LAB_APS: this group's boot only).
lab_module.SUBNETS["HotelNet"] = "10.13.0"

UNIT = "hotspot-helperd.service"
DESKTOP_UID = 1000


def active():
    return run("systemctl", "is-active", UNIT, check=False).strip()


def main_pid():
    return int(run("systemctl", "show", "-p", "MainPID", "--value", UNIT).strip() or 0)


def dbus_activation(lab):
    """The installed package: hotspot-helperd is not running until a client calls it; the bus
    asks systemd to start it (dbus-org.…HotspotHelper.service alias) and the call is answered."""
    run("dpkg-query", "-W", "hotspot-helper")
    if active() == "active":
        raise Failed(f"{UNIT} already running before any client asked (lab.target does not pull it in)")
    start = now()
    version = str(lab.bus.get(HH, HH_PATH, HH, "Version"))
    note(f"D-Bus activation answered Version {version} in {now() - start:.2f} s")
    wait(f"{UNIT} active after D-Bus activation", lambda: active() == "active", 30, interval=0.2)
    out = run("/usr/bin/hotspotctl", "status", check=False)
    if "hotspot-helperd is not running" in out:
        raise Failed(f"the installed hotspotctl does not see the daemon: {out[:200]}")


def systemctl_start_hardening(lab):
    """`systemctl stop` / `systemctl start`, and the running process carries the shipped
    hardening: no new privileges, no capabilities at all (bounding and effective sets empty:
    SO_BINDTODEVICE needs none since Linux 5.7), a seccomp filter, a memory limit, no core dumps."""
    run("systemctl", "stop", UNIT)
    wait(f"{UNIT} inactive", lambda: active() in ("inactive", "failed"), 30, interval=0.2)
    run("systemctl", "start", UNIT, timeout=90)
    wait(f"{UNIT} active", lambda: active() == "active", 30, interval=0.2)
    pid = main_pid()
    with open(f"/proc/{pid}/status") as f:
        status = dict(line.rstrip("\n").split(":\t", 1) for line in f if ":\t" in line)
    bounding = int(status.get("CapBnd", "0").strip(), 16)
    problems = []
    if status.get("NoNewPrivs", "").strip() != "1":
        problems.append(f"NoNewPrivs {status.get('NoNewPrivs')}")
    if bounding != 0:
        problems.append(f"CapBnd {bounding:#x} (expected 0: no capabilities)")
    effective = int(status.get("CapEff", "0").strip(), 16)
    if effective != 0:
        problems.append(f"CapEff {effective:#x} (expected 0)")
    limits = dict(line.split("=", 1) for line in run("systemctl", "show", "-p", "MemoryMax", "-p", "LimitCORE", UNIT).split())
    if limits.get("MemoryMax") in (None, "infinity"):
        problems.append(f"MemoryMax {limits.get('MemoryMax')} (expected a limit)")
    if limits.get("LimitCORE") != "0":
        problems.append(f"LimitCORE {limits.get('LimitCORE')} (expected 0)")
    if status.get("Seccomp", "").strip() != "2":
        problems.append(f"Seccomp {status.get('Seccomp')} (expected 2, a filter)")
    if problems:
        raise Failed("the running daemon lacks its hardening: " + "; ".join(problems))
    str(lab.bus.get(HH, HH_PATH, HH, "Version"))


def polkit(lab):
    """Real polkitd with the shipped policy: an unprivileged user is refused register-helper,
    CheckPermission answers at once without prompting, root is allowed."""
    start = now()
    out = run("busctl", "--system", "call", HH, HH_PATH, HH, "CheckPermission", "s", "register-helper", user=DESKTOP_UID, timeout=20)
    took = now() - start
    answer = out.strip().split()[-1].strip('"')
    note(f"CheckPermission(register-helper) as uid {DESKTOP_UID}: {answer} in {took:.2f} s")
    if answer not in ("no", "challenge"):
        raise Failed(f"CheckPermission(register-helper) as uid {DESKTOP_UID} answered {answer!r}, expected no or challenge")
    p = subprocess.run(["setpriv", f"--reuid={DESKTOP_UID}", f"--regid={DESKTOP_UID}", "--clear-groups", "--", f"{BIN}/hotspot-example-helper",
                        "--display-name", "Desktop Helper", "--network", "Nowhere"], capture_output=True, text=True, timeout=60)
    said = (p.stdout + p.stderr).strip()
    if p.returncode == 0 or "authori" not in said.lower():
        raise Failed(f"uid {DESKTOP_UID} registering a helper: exit {p.returncode}, {said[:200]!r} (expected refused, not authorized)")
    if "Desktop Helper" in [str(h.get("display-name", "")) for h in lab.bus.get(HH, HH_PATH, HH, "Helpers")]:
        raise Failed("the refused helper appears in Helpers")
    root = Process("root-helper", [f"{BIN}/hotspot-example-helper", "--display-name", "Root Helper", "--network", "Nowhere"])
    try:
        # Registered, and given its command channel: a socket passed by the installed daemon,
        # sandboxed by its unit, through the system bus under the shipped policy.
        wait("root's helper registered with its command channel",
             lambda: any(str(h.get("display-name", "")) == "Root Helper" and str(h.get("commands-via", "")) == "channel"
                         for h in lab.bus.get(HH, HH_PATH, HH, "Helpers")), 30)
    finally:
        root.stop()
    answer = run("busctl", "--system", "call", HH, HH_PATH, HH, "CheckPermission", "s", "register-helper").strip().split()[-1].strip('"')
    if answer != "yes":
        raise Failed(f"CheckPermission(register-helper) as root answered {answer!r}, expected yes")


LAB_RULE = "/etc/polkit-1/rules.d/50-hotspot-lab.rules"


def polkit_dialog(lab):
    """Real polkitd asks a person, and the dialog says who asks and why. The
    guest has no logind session, so the shipped default for uid 1000 is "no"; a lab-only rule
    makes register-helper auth_admin for non-root users. A HotspotHelperKit helper registers as
    uid 1000 (interactively, the Kit's default); real pkttyagent, registered for that helper's
    process on a pseudo-terminal, is asked by polkitd and prints the dialog: the daemon's
    polkit.message with the helper's display name and purpose. The agent then gives up, so the
    helper is refused and absent from Helpers; and a unicast signal to the daemon is refused by
    the installed bus policy."""
    with open(LAB_RULE, "w") as f:
        f.write('polkit.addRule(function(action, subject) {\n'
                '  if (action.id == "org.freedesktop.NetworkManager.HotspotHelper.register-helper" && subject.user != "root")\n'
                '    return polkit.Result.AUTH_ADMIN;\n});\n')
    try:
        run("systemctl", "restart", "polkit.service", timeout=60)
        gate = "/run/hotspot-lab-agent-ready"
        if os.path.exists(gate):
            os.unlink(gate)
        purpose = "Signs you in at the Lab Library"
        # The helper waits for the agent; exec keeps its pid and start time, which the agent is registered for.
        helper = subprocess.Popen(["setpriv", f"--reuid={DESKTOP_UID}", f"--regid={DESKTOP_UID}", "--clear-groups", "--", "sh", "-c",
                                   f"while [ ! -e {gate} ]; do sleep 0.1; done; exec {BIN}/hotspot-example-helper "
                                   f"--display-name 'Library Helper' --purpose '{purpose}' --network Nowhere"],
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        ready_r, ready_w = os.pipe()
        os.set_inheritable(ready_w, True)
        agent_pid, master = pty.fork()
        if agent_pid == 0:
            os.execv("/usr/bin/pkttyagent", ["pkttyagent", "--process", str(helper.pid), "--notify-fd", str(ready_w)])
        os.close(ready_w)
        said = b""
        try:
            # pkttyagent closes the notify fd once it is registered with polkitd.
            readable, _, _ = select.select([ready_r], [], [], 60)
            if not readable:
                raise Failed("pkttyagent did not register with polkitd within 60 s")
            os.close(ready_r)
            open(gate, "w").close()
            deadline = now() + 90
            # Stop at the prompt (a password, or a choice when several users may authenticate).
            while now() < deadline and not any(w in said for w in (b"Password", b"Choose identity", b"FAILED")):
                readable, _, _ = select.select([master], [], [], 1)
                if readable:
                    try:
                        said += os.read(master, 4096)
                    except OSError:
                        break
        finally:
            os.kill(agent_pid, signal.SIGTERM)
            os.waitpid(agent_pid, 0)
        text = said.decode(errors="replace")
        note(f"pkttyagent showed: {' / '.join(line.strip() for line in text.splitlines() if line.strip())[:400]}")
        try:
            out, _ = helper.communicate(timeout=150)
        except subprocess.TimeoutExpired:
            helper.kill()
            out, _ = helper.communicate()
            raise Failed(f"the helper still waits after the agent left: {out[-300:]!r}")
        if "register-helper" not in text or "Library Helper" not in text or purpose not in text:
            raise Failed(f"the authorization dialog does not name the helper and its purpose: {text[-500:]!r}")
        if helper.returncode == 0 or "authori" not in out.lower():
            raise Failed(f"the helper was not refused after the dialog was dismissed: exit {helper.returncode}, {out[-300:]!r}")
        if "Library Helper" in [str(h.get("display-name", "")) for h in lab.bus.get(HH, HH_PATH, HH, "Helpers")]:
            raise Failed("the refused helper appears in Helpers")
    finally:
        os.unlink(LAB_RULE)
        run("systemctl", "restart", "polkit.service", timeout=60, check=False)
    # The installed bus policy: nobody may unicast a signal to the daemon (a 30 MB one would be read in full).
    p = subprocess.run(["setpriv", f"--reuid={DESKTOP_UID}", f"--regid={DESKTOP_UID}", "--clear-groups", "--", "python3", "-c",
                        "import dbus, sys\n"
                        "b = dbus.SystemBus()\n"
                        f"m = dbus.lowlevel.SignalMessage('/flood', 'org.example.Flood', 'Bytes'); m.set_destination('{HH}')\n"
                        "b.send_message(m)\n"
                        f"b.get_object('{HH}', '{HH_PATH}', introspect=False).Get('{HH}', 'Version', dbus_interface='org.freedesktop.DBus.Properties')\n"],
                       capture_output=True, text=True, timeout=60)
    if p.returncode != 0:
        raise Failed(f"uid {DESKTOP_UID} could not call the daemon: {p.stderr.strip()[-300:]}")
    def refused():
        return "org.example.Flood" in run("journalctl", "-b", "--no-pager", "-o", "cat", "-g", "Rejected send message", check=False, timeout=30)
    wait("the system bus logs that it refused the signal unicast to the daemon", refused, 20, interval=0.5)


def sandboxed_signin(lab):
    """The click-through sign-in under the shipped sandbox: radios, AP side and NetworkManager come
    up as in the nm group; the installed service, restarted with the lab's configuration, signs
    in through wlan0 and NetworkManager's own check reaches FULL."""
    # The installed service stays down while the radios and NetworkManager come up: running, it
    # would provision the lab profiles' networks (Office has a password) as soon as their access
    # points appear, and NetworkManager would autoconnect wlan0 before the setup sees it
    # disconnected. It is restarted with the lab's configuration below.
    run("systemctl", "stop", UNIT, timeout=90)
    setup = os.path.join(os.environ["LAB_DIR"], "guest", "setup.sh")
    # A safety net: under TCG at a load average of 20 the access points alone took 4 minutes.
    p = subprocess.run(["bash", "-c", f'. {setup} && lab_setup || {{ echo "$LAB_SETUP_ERROR"; exit 1; }}'], capture_output=True, text=True,
                       timeout=900)
    with open(os.path.join(os.environ["LAB_OUT"], "setup.log"), "w") as f:
        f.write(p.stdout + p.stderr)
    if p.returncode != 0:
        raise Failed(f"the radios, AP side or NetworkManager did not come up: {p.stdout.strip().splitlines()[-1:]}")
    run("nmcli", "device", "set", "wlan0", "autoconnect", "no", check=False)
    run("systemctl", "restart", UNIT, timeout=90)
    wait("the installed daemon publishes wlan0", lambda: lab.bus.daemon_interface() is not None, 60)
    memory = unjoined_memory(main_pid())
    sign_in(lab, "CityFree", ("accepted",))
    if main_pid() == 0:
        raise Failed(f"{UNIT} is not running after the sign-in")
    return memory


def unjoined_memory(pid, settle=3.0):
    """The installed daemon's resident memory with real NetworkManager and no network joined, on
    Debian 12's kernel (the goal is ≤ 12 MiB idle). A figure, not an assertion: this is not
    a quiet idle (NetworkManager scans, the daemon provisions the lab's profiles), and
    footprint-benchmark measures the quiet one on the host, whose kernel maps more per fault."""
    time.sleep(settle)
    with open(f"/proc/{pid}/status") as f:
        status = dict(line.rstrip("\n").split(":\t", 1) for line in f if ":\t" in line)
    kib = {k: int(status.get(k, "0 kB").split()[0]) for k in ("VmRSS", "RssAnon", "RssFile", "RssShmem")}
    figure = (f"daemon RSS with nothing joined {kib['VmRSS'] / 1024:.2f} MiB (anonymous {kib['RssAnon'] / 1024:.2f}, "
              f"file-backed {(kib['RssFile'] + kib['RssShmem']) / 1024:.2f}) on kernel {os.uname().release}")
    note(figure)
    return figure


HOTEL = "HotelNet"
# The guest the hotel's portal (hotspot-portal-sim --venue hotel) knows.
HOTEL_ROOM, HOTEL_SURNAME = "412", "Martin"
STATE_DIR = "/var/lib/hotspot-helper"  # the lab's configuration (scenarios.write_config) and the unit's StateDirectory=


def remembered_signin(lab):
    """Signed in once by the user, remembered, silent afterwards; kept across a package upgrade.
    After sandboxed-signin (radios, AP side, NetworkManager and the installed service up): wlan0
    joins HotelNet, whose portal is a hotel's form (room number and surname, plain http) and which
    no profile knows; the daemon releases NetworkManager's hold (needs-user) and publishes the form;
    the installed `hotspotctl sign-in --remember` fills it as a user at the terminal would (plain
    http accepted, 412, Martin) and signs in. The remembered sign-in is a root-only file in the
    state directory and `hotspotctl remembered` lists it without its values. Then `dpkg -i` of the
    same .deb, its maintainer scripts free to restart the service as on a user's machine: the
    daemon is a new process, the remembered file is unchanged, and the next join signs in silently
    (NetworkManager's hold ends signed-in, never PORTAL while ACTIVATED). What the user typed
    never reaches the journal."""
    deb = os.environ.get("LAB_DEB", "")
    if not os.path.isfile(deb):
        raise Failed(f"no .deb to upgrade with (LAB_DEB={deb!r})")
    try:
        up = lab.bus.daemon_interface() is not None and active() == "active"
    except dbus.DBusException as e:
        up, why = False, e.get_dbus_message()
    else:
        why = "no wlan0 published"
    if not up:
        raise Failed(f"the installed daemon is not up with wlan0 ({why}): sandboxed-signin brings the radios, the AP side and the service up first")
    lab.leave()
    saved = os.path.join(STATE_DIR, "sign-ins", HOTEL.encode().hex() + ".json")
    if os.path.exists(saved):
        raise Failed(f"{saved} exists before anyone signed in")
    portal_reset(HOTEL)
    since = len(lab.daemon_log())
    start = now()
    lab.join(HOTEL)

    def form():
        if lab.state() != "presenting-ui":
            return None
        f = lab.bus.daemon("SignInForm")
        return f if [x.get("name") for x in f.get("fields", [])] == ["room", "surname"] else None
    published = wait("the daemon presenting the hotel's form (SignInForm room, surname)", form, 90, interval=0.2)
    held = wait("the daemon's log saying how NetworkManager's hold ended", lambda: lab.released(since), 30, interval=0.5)
    if held != ["needs-user"]:
        raise Failed(f"NetworkManager's hold ended {held}, expected needs-user")
    if published.get("action-host") != "portal.venue.test" or not published.get("plain-http"):
        raise Failed(f"the form says action-host {published.get('action-host')!r}, plain-http {published.get('plain-http')!r}")
    # A user at the terminal: yes to sending over plain http, then the room and the surname.
    p = subprocess.run(["/usr/bin/hotspotctl", "sign-in", "--remember", "wlan0"], input=f"y\n{HOTEL_ROOM}\n{HOTEL_SURNAME}\n",
                       capture_output=True, text=True, timeout=120)
    if p.returncode != 0 or "Signed in on wlan0." not in p.stdout:
        raise Failed(f"hotspotctl sign-in exited {p.returncode}: {(p.stdout + p.stderr).strip()[-400:]!r}")
    wait("the daemon signed in on HotelNet", lambda: lab.state() in SIGNED_IN, 60)
    wait("NetworkManager's own connectivity FULL on HotelNet", lambda: lab.bus.device_connectivity() == NM_FULL, 90, interval=0.2)
    by_user = now() - start
    address = lab.bus.ip4()
    if not [e for e in portal_events(HOTEL) if e["client"] == address and e["kind"] == "login-ok"]:
        raise Failed(f"the hotel's portal saw no login-ok from wlan0's address {address}")
    st = os.stat(saved) if os.path.exists(saved) else None
    if st is None or stat.S_IMODE(st.st_mode) != 0o600 or st.st_uid != 0:
        raise Failed(f"the remembered sign-in {saved} is {'missing' if st is None else oct(stat.S_IMODE(st.st_mode)) + ' uid ' + str(st.st_uid)}, "
                     "expected root's, mode 0600")
    listed = json.loads(run("/usr/bin/hotspotctl", "remembered", "--json"))
    if [(r.get("ssid"), r.get("host"), r.get("fields")) for r in listed] != [(HOTEL, "portal.venue.test", ["room", "surname"])]:
        raise Failed(f"hotspotctl remembered lists {listed}")
    if HOTEL_SURNAME in json.dumps(listed):
        raise Failed("hotspotctl remembered shows what the user typed")
    with open(saved, "rb") as f:
        remembered = f.read()
    lab.leave()

    # The package upgraded in place (the same .deb): its postinst restarts the running service
    # (try-restart), which the host's policy-rc.d, copied into this guest, would refuse; it is
    # set aside for the upgrade only. That restart is the daemon's restart too: a separate
    # `systemctl restart` and join before it would prove the same again for about a minute more.
    pid = main_pid()
    policy = "/usr/sbin/policy-rc.d"
    aside = policy + ".lab"
    if os.path.exists(policy):
        os.rename(policy, aside)
    try:
        started = now()
        out = run("dpkg", "-i", deb, timeout=300)
        upgrade = now() - started
    finally:
        if os.path.exists(aside):
            os.rename(aside, policy)
    with open(os.path.join(os.environ["LAB_OUT"], "dpkg-upgrade.log"), "w") as f:
        f.write(out)
    wait(f"{UNIT} restarted by the package's postinst", lambda: active() == "active" and main_pid() not in (0, pid), 60, interval=0.2)
    wait("the upgraded daemon publishes wlan0", lambda: lab.bus.daemon_interface() is not None, 60)
    try:
        with open(saved, "rb") as f:
            kept = f.read()
    except OSError as e:
        raise Failed(f"the remembered sign-in is gone after dpkg -i: {e}")
    if kept != remembered:
        raise Failed("the remembered sign-in file changed across dpkg -i")
    # The next join signs in with the remembered sign-in, asking nobody.
    sign_in(lab, HOTEL, ("login-ok",))
    after_upgrade = lab.last_sign_in
    lab.leave()
    if HOTEL_SURNAME in lab.daemon_log():
        raise Failed("the surname the user typed is in the daemon's journal")
    note(f"remembered-signin: by the user {by_user:.1f} s (join to NM FULL); dpkg -i {upgrade:.1f} s; "
         f"after the upgrade and the restart: {after_upgrade}")
    return (f"user's sign-in, join to NetworkManager FULL {by_user:.1f} s; silent after dpkg -i and its restart "
            f"(dpkg -i {upgrade:.0f} s; {after_upgrade.split(';')[0]})")


SCENARIOS = [dbus_activation, systemctl_start_hardening, polkit, polkit_dialog, sandboxed_signin, remembered_signin]
NAMES = {dbus_activation: "deb-dbus-activation", systemctl_start_hardening: "systemctl-start-hardening",
         polkit: "polkit-register-helper", polkit_dialog: "polkit-dialog-purpose", sandboxed_signin: "sandboxed-signin",
         remembered_signin: "remembered-signin"}

