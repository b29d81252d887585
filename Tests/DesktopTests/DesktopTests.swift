// SPDX-License-Identifier: Apache-2.0
import Testing

/// Every desktop suite, one test at a time: they launch many short processes (hotspotctl,
/// make, dbus-daemon, python-dbusmock), and running them side by side with the rest of the
/// package's tests on two cores made Foundation's Process and libdispatch's fd handling race.
@Suite(.serialized) enum DesktopTests {}

/// The tests of what `make deb` built (the release binary, the .deb and the .rpm) and of the
/// packages installed in Debian roots (GNOME Shell 48 and 50, Plasma 6.3), one at a time: a
/// chain of their own beside DesktopTests, since they wait on apt, chroots and a Shell or
/// Plasma running headless more than they launch processes, and in DesktopTests' chain they
/// made it the longest path through the Swift tests.
@Suite(.serialized) enum PackageTests {}
