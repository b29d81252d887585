// SPDX-License-Identifier: Apache-2.0
// hotspotctl as a program of its own (the tests and `swift run`); the package ships it as a name
// of the multi-call binary (Sources/hotspot-helper).
import HotspotCtlCommand
import ProgramSupport

GlobalExecutor.install()
await HotspotCtl.main(arguments: Array(CommandLine.arguments.dropFirst()))
