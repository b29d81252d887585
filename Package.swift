// swift-tools-version: 6.1
//
// Hotspot Helper for Linux: NEHotspotHelper's model for NetworkManager desktops, over D-Bus.
// Module direction: C shims → DBus → (HotspotCore is pure and depends on nothing) → adapters →
// executables. See docs/ARCHITECTURE.md.
import PackageDescription

let strict: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "hotspot-helper",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "DBus", targets: ["DBus"]),
        .library(name: "HotspotCore", targets: ["HotspotCore"]),
        .executable(name: "dbus-benchmark", targets: ["dbus-benchmark"]),
    ],
    targets: [
        // C shims: one per system library, each naming the Debian package that provides it.
        .systemLibrary(name: "CDBus", pkgConfig: "dbus-1", providers: [.apt(["libdbus-1-dev"])]),
        .systemLibrary(name: "CGLib", pkgConfig: "glib-2.0", providers: [.apt(["libglib2.0-dev"])]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),

        // The typed D-Bus layer: the only module that touches libdbus.
        .target(name: "DBus", dependencies: ["CDBus"], swiftSettings: strict),

        // The hotspot state machine, arbitration, cache and timers: pure, no I/O.
        .target(name: "HotspotCore", swiftSettings: strict),

        // Test support for the project's own tests: private buses, dbusmock, subprocesses.
        .target(name: "BusTestKit", dependencies: ["DBus"], swiftSettings: strict),

        .executableTarget(name: "dbus-benchmark", dependencies: ["DBus", "CDBus", "BusTestKit"], swiftSettings: strict),

        .testTarget(name: "DBusTests", dependencies: ["DBus", "CDBus", "BusTestKit"], swiftSettings: strict),
        .testTarget(name: "HotspotCoreTests", dependencies: ["HotspotCore"], swiftSettings: strict),
    ]
)
