// swift-tools-version: 6.1
// SPDX-License-Identifier: Apache-2.0
//
// Hotspot Helper for Linux: NEHotspotHelper's model for NetworkManager desktops, over D-Bus.
// Module direction: C shims → DBus → (HotspotCore is pure and depends on nothing) → adapters
// (NetworkManager, Connectivity) → HotspotDaemon → executables. See docs/ARCHITECTURE.md.
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
        .library(name: "HotspotHelperKit", targets: ["HotspotHelperKit"]),
        .executable(name: "hotspot-helperd", targets: ["hotspot-helperd"]),
        .executable(name: "hotspot-example-helper", targets: ["hotspot-example-helper"]),
        .executable(name: "hotspot-portal-sim", targets: ["hotspot-portal-sim"]),
        .executable(name: "dbus-benchmark", targets: ["dbus-benchmark"]),
        .executable(name: "codec-benchmark", targets: ["codec-benchmark"]),
        .executable(name: "slow-gateway-benchmark", targets: ["slow-gateway-benchmark"]),
        // Desktop and distribution: the command line and the session agent.
        .executable(name: "hotspotctl", targets: ["hotspotctl"]),
        .executable(name: "hotspot-helper-agent", targets: ["hotspot-helper-agent"]),
        // What the package ships: one binary behind the three names above.
        .executable(name: "hotspot-helper", targets: ["hotspot-helper"]),
        // Load, soak and the benchmark report.
        .executable(name: "hotspot-stress", targets: ["hotspot-stress"]),
        .executable(name: "bench-report", targets: ["bench-report"]),
    ],
    // CustomGlobalExecutor (on by default): the programs run their tasks on ProgramSupport's
    // pool, which sleeps when idle, instead of libdispatch's, which wakes every second. It is
    // installed through a toolchain interface that is not yet stable, so it is also limited to the
    // Swift versions it was written for; `swift build --disable-default-traits` builds the
    // platform's executor instead (CI tests both; docs/ARCHITECTURE.md says what it costs).
    traits: [
        .trait(name: "CustomGlobalExecutor", description: "ProgramSupport's global executor: no idle wake-ups"),
        .default(enabledTraits: ["CustomGlobalExecutor"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swhitty/FlyingFox", from: "0.27.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    ],
    targets: [
        // C shims: one per system library, each naming the Debian package that provides it.
        .systemLibrary(name: "CDBus", pkgConfig: "dbus-1", providers: [.apt(["libdbus-1-dev"])]),
        .systemLibrary(name: "CGLib", pkgConfig: "glib-2.0", providers: [.apt(["libglib2.0-dev"])]),
        // Headers only (no pkgConfig, whose -lcurl would make the binary need libcurl to start):
        // CLazyLibraries loads libcurl when first used.
        .systemLibrary(name: "CCurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        // Headers only as well: CLazyLibraries loads libxml2 when first used and gives its include path.
        .systemLibrary(name: "CXML2", providers: [.apt(["libxml2-dev"])]),
        .systemLibrary(name: "CAres", pkgConfig: "libcares", providers: [.apt(["libc-ares-dev"])]),

        // The typed D-Bus layer: the only module that touches libdbus.
        .target(name: "DBus", dependencies: ["CDBus"], swiftSettings: strict),

        // The hotspot state machine, arbitration, cache and timers: pure, no I/O.
        .target(name: "HotspotCore", swiftSettings: strict),

        // Small Foundation-free tools the adapters share, with no hotspot vocabulary: reading a
        // file the root daemon trusts, a detached thread for blocking work, and the text helpers HTTP
        // and XML parsing need.
        .target(name: "SystemSupport", swiftSettings: strict),

        // NetworkManager over D-Bus: devices, access points, joins, actions, secret agent.
        .target(name: "NetworkManager", dependencies: ["DBus"], swiftSettings: strict),

        // Captive-portal detection, WISPr and RFC 8908 clients on libcurl.
        // libcurl, loaded when first used (an idle daemon does not map it).
        .target(name: "CLazyLibraries", dependencies: ["CCurl", "CXML2"]),
        .target(name: "Connectivity", dependencies: ["CCurl", "CLazyLibraries", "CAres", "HotspotCore", "SystemSupport"], swiftSettings: strict),

        // The simulated hotspot: a captive-portal HTTP server with many modes.
        .target(name: "PortalSimulator", dependencies: [.product(name: "FlyingFox", package: "FlyingFox")], path: "Tools/PortalSimulator", swiftSettings: strict),

        // The D-Bus contract shared by the daemon and helpers: names, and the wire form of
        // commands and responses (dbus/org.freedesktop.NetworkManager.HotspotHelper.xml).
        .target(name: "HotspotProtocol", dependencies: ["DBus", "HotspotCore"], swiftSettings: strict),

        // The built-in helpers (profiles, portal), registered by the daemon like any other helper.
        .target(name: "BuiltInHelpers", dependencies: ["HotspotHelperKit", "HotspotCore", "Connectivity", "SystemSupport", "CXML2", "CLazyLibraries"], swiftSettings: strict),

        // The daemon: wiring core and adapters, the D-Bus API, helpers, persistence, configuration.
        .target(name: "HotspotDaemon", dependencies: [
            "DBus", "HotspotCore", "HotspotProtocol", "NetworkManager", "Connectivity", "BuiltInHelpers", "HotspotHelperKit", "SystemSupport",
            .product(name: "Logging", package: "swift-log"), .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "UnixSignals", package: "swift-service-lifecycle"),
        ], swiftSettings: strict),

        // The library for helper authors, shaped like NEHotspotHelper.
        .target(name: "HotspotHelperKit", dependencies: ["DBus", "HotspotCore", "HotspotProtocol"], swiftSettings: strict),

        // The test kit for Tests, Benchmarks and Tools: private buses, dbusmock, the daemon and the
        // portal simulator as subprocesses, network namespaces, waits. In no product, and no shipped
        // target depends on it. Its seeded generator is a module apart, with no dependencies, for
        // the core's tests and the fuzz driver, which do not link the daemon.
        .target(name: "HotspotTestingRandom", swiftSettings: strict),
        .target(name: "HotspotTesting", dependencies: [
            "DBus", "CDBus", "HotspotCore", "HotspotHelperKit", "Connectivity", "HotspotDaemon", "HotspotTestingRandom",
            .product(name: "Logging", package: "swift-log"),
        ], swiftSettings: strict),

        .executableTarget(name: "hotspot-example-helper", dependencies: [
            "HotspotHelperKit", .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ], path: "Examples/hotspot-example-helper", swiftSettings: strict),
        .executableTarget(name: "hotspot-portal-sim", dependencies: [
            "PortalSimulator", "Connectivity", "BenchKit", .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ], path: "Tools/hotspot-portal-sim", swiftSettings: strict),
        .executableTarget(name: "hotspot-demo", dependencies: [
            "HotspotTesting", "DBus", "HotspotProtocol", "Connectivity", .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ], path: "Tools/hotspot-demo", swiftSettings: strict),
        // Fuzz targets for everything the daemon parses, and their driver.
        .target(name: "FuzzTargets", dependencies: ["DBus", "HotspotCore", "HotspotProtocol", "HotspotDaemon", "NetworkManager", "Connectivity",
                                                   "BuiltInHelpers", "HotspotTestingRandom"],
                path: "Fuzz/FuzzTargets", swiftSettings: strict),
        .target(name: "CLibFuzzer", path: "Fuzz/CLibFuzzer"),
        .executableTarget(name: "hotspot-fuzz", dependencies: ["FuzzTargets", "CLibFuzzer"], path: "Fuzz/hotspot-fuzz", swiftSettings: strict),
        .executableTarget(name: "daemon-benchmark", dependencies: [
            "BenchKit", "HotspotTesting", "DBus", "HotspotProtocol", "HotspotHelperKit", "HotspotCore", "ProgramSupport",
        ], path: "Benchmarks/daemon-benchmark", swiftSettings: strict),
        .executableTarget(name: "profiles-benchmark", dependencies: ["BenchKit", "BuiltInHelpers", "HotspotCore", "HotspotTesting"], path: "Benchmarks/profiles-benchmark", swiftSettings: strict),
        .executableTarget(name: "dbus-benchmark", dependencies: ["BenchKit", "DBus", "CDBus", "HotspotTesting", "ProgramSupport"], path: "Benchmarks/dbus-benchmark",
                          swiftSettings: strict),
        .executableTarget(name: "slow-gateway-benchmark", dependencies: ["HotspotTesting", "PortalSimulator"], path: "Benchmarks/slow-gateway-benchmark",
                          swiftSettings: strict),
        .executableTarget(name: "codec-benchmark", dependencies: ["BenchKit", "DBus", "CDBus", "HotspotCore", "HotspotProtocol"], path: "Benchmarks/codec-benchmark", swiftSettings: strict),

        // Desktop and distribution: a client of the daemon's D-Bus API shared by
        // hotspotctl and the session agent, the two executables, and their tests (which also
        // check the installed tree, the units and the bus policy).
        .target(name: "HotspotClient", dependencies: ["DBus", "HotspotCore", "HotspotProtocol"], swiftSettings: strict),
        // Each program is a library (its command and the code only it uses) and a one-line
        // executable; the multi-call binary links all three, so the Swift runtime ships once.
        // ProgramSupport: the ServiceGroup every program runs in, and writing to stderr.
        // CExecutor: the threads behind ProgramSupport's global executor (no idle wake-ups).
        .target(name: "CExecutor"),
        .target(name: "ProgramSupport", dependencies: [
            "CExecutor",
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            .product(name: "Logging", package: "swift-log"), .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ], swiftSettings: strict + [.define("HOTSPOT_CUSTOM_GLOBAL_EXECUTOR", .when(traits: ["CustomGlobalExecutor"]))]),
        .target(name: "HotspotCtlCommand", dependencies: [
            "HotspotClient", "DBus", "HotspotCore", "HotspotProtocol", "ProgramSupport", .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ], swiftSettings: strict),
        .target(name: "HotspotAgentCommand", dependencies: [
            "HotspotClient", "DBus", "HotspotProtocol", "ProgramSupport", .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ], swiftSettings: strict),
        .target(name: "HotspotDaemonCommand", dependencies: [
            "HotspotDaemon", "HotspotProtocol", "ProgramSupport", .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Logging", package: "swift-log"),
        ], swiftSettings: strict),
        .executableTarget(name: "hotspotctl", dependencies: ["HotspotCtlCommand", "ProgramSupport"], swiftSettings: strict),
        .executableTarget(name: "hotspot-helper-agent", dependencies: ["HotspotAgentCommand", "ProgramSupport"], swiftSettings: strict),
        .executableTarget(name: "hotspot-helperd", dependencies: ["HotspotDaemonCommand", "ProgramSupport"], swiftSettings: strict),
        .executableTarget(name: "hotspot-helper", dependencies: ["HotspotCtlCommand", "HotspotAgentCommand", "HotspotDaemonCommand", "ProgramSupport"],
                          swiftSettings: strict),
        .testTarget(name: "DesktopTests", dependencies: [
            "HotspotClient", "HotspotCtlCommand", "HotspotDaemonCommand", "HotspotHelperKit", "HotspotProtocol", "HotspotCore", "DBus", "HotspotTesting",
        ], swiftSettings: strict),

        // Load, soak and the benchmark report: figures in one machine-readable form and
        // /proc readings (BenchKit), the storm, many-helpers and soak runs (hotspot-stress), and the
        // report that runs every benchmark and merges their figures into one table (bench-report).
        .target(name: "BenchKit", path: "Benchmarks/BenchKit", swiftSettings: strict),
        .executableTarget(name: "hotspot-stress", dependencies: [
            "BenchKit", "HotspotTesting", "DBus", "HotspotProtocol", "HotspotHelperKit", "Connectivity",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ], path: "Benchmarks/hotspot-stress", swiftSettings: strict),
        .executableTarget(name: "bench-report", dependencies: ["BenchKit"], path: "Benchmarks/bench-report", swiftSettings: strict),
        // The package's footprint: .deb and installed size, the packaged daemon's memory,
        // idle wake-ups and start time.
        .executableTarget(name: "footprint-benchmark", dependencies: [
            "BenchKit", "HotspotTesting", "DBus", "HotspotProtocol", "HotspotHelperKit",
        ], path: "Benchmarks/footprint-benchmark", swiftSettings: strict),

        .testTarget(name: "DBusTests", dependencies: ["DBus", "CDBus", "HotspotTesting", "HotspotTestingRandom"], swiftSettings: strict),
        // CGLib: KeyFile is held to GLib's GKeyFile (KeyFileAgreementTests); GLib is not in the product.
        .testTarget(name: "HotspotCoreTests", dependencies: ["HotspotCore", "CGLib", "HotspotTestingRandom"], swiftSettings: strict),
        .testTarget(name: "NetworkManagerTests", dependencies: ["NetworkManager", "DBus", "HotspotTesting"], swiftSettings: strict),
        .testTarget(name: "ConnectivityTests", dependencies: ["Connectivity", "PortalSimulator", "HotspotTesting", "SystemSupport"], swiftSettings: strict),
        .testTarget(name: "FuzzTests", dependencies: ["FuzzTargets", "HotspotTesting"], swiftSettings: strict),
        // Built-in helpers and connectivity through the daemon: profiles, sign-in, portal simulator end to end.
        .testTarget(name: "BuiltInHelperTests", dependencies: [
            "BuiltInHelpers", "HotspotDaemon", "HotspotHelperKit", "HotspotProtocol", "HotspotCore", "Connectivity", "PortalSimulator",
            "DBus", "HotspotTesting",
        ], swiftSettings: strict),
        .testTarget(name: "DaemonTests", dependencies: ["HotspotDaemon", "HotspotHelperKit", "HotspotProtocol", "HotspotCore", "DBus", "HotspotTesting", "SystemSupport"],
                    swiftSettings: strict),
    ]
)
