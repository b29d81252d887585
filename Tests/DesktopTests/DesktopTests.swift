// SPDX-License-Identifier: Apache-2.0
import Testing

/// Every desktop suite, one test at a time: they launch many short processes (hotspotctl,
/// make, dbus-daemon, python-dbusmock), and running them side by side with the rest of the
/// package's tests on two cores made Foundation's Process and libdispatch's fd handling race.
@Suite(.serialized) enum DesktopTests {}
