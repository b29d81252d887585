# SPDX-License-Identifier: Apache-2.0
"""The lab's "portals" group: real portals are slow and odd; the daemon signs in anyway and never
drops the user for it. Each scenario joins with real NetworkManager through wlan0 and checks:
signed in, the daemon's Connectivity and NetworkManager's own check full, wlan0 never
disconnected (its device state never falls back below IP_CONFIG once associated, whether
NetworkManager's pre-up hook holds the join or not). What each proves: docs/LAB.md.

    portal_scenarios.py portals     # run by guest/boot; reuses scenarios.py's daemon and main loop
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lab  # noqa: E402
import scenarios  # noqa: E402
from lab import OUT, Failed, note, portal_events, portal_reset, wait  # noqa: E402
from scenarios import ACTIVATED, IP_CONFIG, NM_FULL, SIGNED_IN, Timeline  # noqa: E402

# The group's access points (setup.sh's LAB_APS).
lab.SUBNETS.update({"SlowNet": "10.9.0", "NdsNet": "10.10.0", "FlapNet": "10.11.0", "SlowRouterNet": "10.12.0"})

# SlowNet and FlapNet have a click-through profile; NdsNet none: the built-in portal helper signs
# in on its own.
PROFILES = """\
[SlowNet]
ssid=SlowNet
display-name=Slow Cafe
sign-in=click-through

[FlapNet]
ssid=FlapNet
display-name=Flapping Cafe
sign-in=click-through
"""


def write_profiles():
    path = "/etc/hotspot-helper/profiles.d/portals.conf"
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as f:
        f.write(PROFILES)


def patient_sign_in(the_lab, ssid, kinds, helper, timeout=120):
    """Joins `ssid`; waits for the daemon signed in and full and NetworkManager's check FULL.
    Fails when wlan0 fell back from its activation after associating, when the daemon ever
    published Connectivity none, or when the portal saw no `kinds` from wlan0's address. Returns
    seconds from association (IP_CONFIG) to the daemon's full, and the portal's events."""
    scenarios.visible(ssid)
    portal_reset(ssid)
    tl = Timeline()
    try:
        the_lab.join(ssid)
        wait(f"the daemon authenticated on {ssid}", lambda: the_lab.state() in SIGNED_IN, timeout)
        wait(f"the daemon's Connectivity full on {ssid}", lambda: the_lab.connectivity() == "full", timeout)
        wait(f"NetworkManager's own connectivity FULL on {ssid}", lambda: the_lab.bus.device_connectivity() == NM_FULL, timeout)
        # The timeline samples on its own: it may not have seen the daemon's full yet.
        wait("the timeline to see the daemon's full", lambda: tl.first(lambda s: s[4] == "full"), 10)
    finally:
        tl.stop()
        with open(os.path.join(OUT, f"portal-events-{ssid}.json"), "a") as f:
            f.write(repr(portal_events(ssid)) + "\n")
    associated = tl.first(lambda s: IP_CONFIG <= s[1] <= ACTIVATED)
    full = tl.first(lambda s: s[4] == "full")
    if associated is None or full is None:
        raise Failed(f"the timeline missed a state (associated {associated}, daemon full {full})")
    dropped = [s for s in tl.samples if s[0] > associated and s[1] < IP_CONFIG]
    if dropped:
        raise Failed(f"wlan0 fell back to device state {dropped[0][1]} {dropped[0][0] - associated:.1f} s after associating: "
                     f"a slow gateway disconnected the user")
    none = [s for s in tl.samples if s[0] >= associated and s[4] == "none"]
    if none:
        raise Failed(f"the daemon published Connectivity none {none[0][0] - associated:.1f} s after associating (a refused or slow probe believed)")
    reason = str(the_lab.bus.daemon("Reason"))
    if "disconnected" in reason:
        raise Failed(f"Reason says: {reason}")
    chosen = str(the_lab.bus.daemon("Helper"))
    if chosen != helper:
        raise Failed(f"signed in by '{chosen}', expected '{helper}'")
    address = the_lab.bus.ip4()
    events = portal_events(ssid)
    if not [e for e in events if e["client"] == address and e["kind"] in kinds]:
        raise Failed(f"the portal saw no {'/'.join(kinds)} from wlan0's address {address}; it saw "
                     f"{sorted({(e['client'], e['kind']) for e in events})[:12]}")
    return full - associated, events


def slow_gateway(the_lab):
    """A gateway that resets a new client's connections for 3 s after its first, then answers its
    first 6 requests 4 s late (longer than a probe waits): the profile signs in, never dropped."""
    seconds, events = patient_sign_in(the_lab, "SlowNet", ("accepted",), "Known Networks")
    address = the_lab.bus.ip4()
    refused = [e for e in events if e["client"] == address and e["kind"] == "refused-connection"]
    slow = [e for e in events if e["client"] == address and e["kind"] == "slow-answer"]
    if not slow:
        raise Failed("the gateway answered nothing late: the scenario did not test patience")
    note(f"SlowNet: association to full {seconds:.2f} s ({len(refused)} connections reset, {len(slow)} answers late)")
    the_lab.leave()
    return f"association to full {seconds:.1f} s behind the slow gateway ({len(refused)} connections reset, {len(slow)} answers 4 s late)"


def opennds_like(the_lab):
    """An openNDS-like gateway: a 307 to its splash page on port 2050 with its state in a long
    query string, two GET forms ("Continue", then a page with another beside a log-out form);
    no profile: the built-in portal helper signs in alone."""
    seconds, events = patient_sign_in(the_lab, "NdsNet", ("login-ok",), "Portal")
    kinds = [e["kind"] for e in events]
    if "continue" not in kinds:
        raise Failed(f"the first GET form was never submitted: {sorted(set(kinds))}")
    if "login-failed" in kinds:
        raise Failed("a form was submitted as no browser would (login-failed)")
    the_lab.leave()
    return f"association to full {seconds:.1f} s through two GET forms on :2050"


def flapping(the_lab):
    """A portal that hangs every other 5 s (longer than a probe waits) for clients not signed in:
    Connectivity never turns none, the profile signs in, never dropped."""
    seconds, events = patient_sign_in(the_lab, "FlapNet", ("accepted",), "Known Networks")
    hangs = [e for e in events if e["kind"] == "flap-hang"]
    the_lab.leave()
    return f"association to full {seconds:.1f} s ({len(hangs)} requests hung by the flapping portal)"


SCENARIOS = [slow_gateway, opennds_like, flapping, scenarios.slow_router]
NAMES = {slow_gateway: "slow-gateway-signin", opennds_like: "opennds-like-get-forms", flapping: "flapping-portal"}


if __name__ == "__main__":
    write_profiles()
    scenarios.GROUPS["portals"] = SCENARIOS
    scenarios.NAMES.update(NAMES)
    scenarios.main()
