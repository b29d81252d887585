// SPDX-License-Identifier: Apache-2.0

/// The release of hotspot-helperd, hotspotctl and hotspot-helper-agent, written here once: the
/// daemon publishes it as the manager's `Version`, the programs print it for `--version`, the
/// Makefile reads it from this file for the packages (VERSION). The D-Bus contract marks each
/// addition "added in X": a daemon whose Version is X or later has it. The packaging files that
/// must spell the number in their own syntax (the Debian and RPM changelogs, the RPM spec, the
/// PKGBUILD, the man pages) are checked against it by PackagingVersionTests.
public enum ProductVersion {
    public static let current = "0.4.0"
}
