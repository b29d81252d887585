// HotspotCore: the hotspot state machine, helper arbitration, network cache and timers.
// Pure: no I/O, no D-Bus, no wall clock.
