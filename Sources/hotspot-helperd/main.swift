// SPDX-License-Identifier: Apache-2.0
// hotspot-helperd as a program of its own (the tests, the demo, `swift run`); the package ships
// it as a name of the multi-call binary (Sources/hotspot-helper).
import HotspotDaemonCommand
import ProgramSupport

GlobalExecutor.install()
await HotspotHelperDaemon.main(arguments: Array(CommandLine.arguments.dropFirst()))
