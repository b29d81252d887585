// SPDX-License-Identifier: Apache-2.0
// hotspot-helper: the one binary the package ships, behind three names (one Swift
// runtime, not three). /usr/libexec/hotspot-helperd, /usr/bin/hotspotctl and
// /usr/bin/hotspot-helper-agent are links to it; it runs the program named by argv[0], or by its
// first argument (`hotspot-helper hotspotctl status`), as busybox does.
import Glibc
import HotspotAgentCommand
import HotspotCtlCommand
import HotspotDaemonCommand
import ProgramSupport

let programs = ["hotspot-helperd", "hotspotctl", "hotspot-helper-agent"]

func run(_ name: Substring, _ arguments: [String]) async -> Bool {
    switch name {
    case "hotspot-helperd": await HotspotHelperDaemon.main(arguments: arguments)
    case "hotspotctl": await HotspotCtl.main(arguments: arguments)
    case "hotspot-helper-agent": await AgentCommand.main(arguments: arguments)
    default: return false
    }
    return true
}

GlobalExecutor.install()  // before any task: no libdispatch pool, no idle wake-ups
let argv = CommandLine.arguments
let invokedAs = argv.first?.split(separator: "/").last ?? ""
if await run(invokedAs, Array(argv.dropFirst())) { exit(0) }
if argv.count > 1, await run(Substring(argv[1]), Array(argv.dropFirst(2))) { exit(0) }
StandardError.writeLine("""
    hotspot-helper: run as one of \(programs.joined(separator: ", ")) (a link to this binary), \
    or name the program: hotspot-helper PROGRAM [ARGUMENTS]
    """)
exit(2)
