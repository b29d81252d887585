// SPDX-License-Identifier: Apache-2.0
// hotspot-helper-agent as a program of its own (the tests and `swift run`); the package ships it
// as a name of the multi-call binary (Sources/hotspot-helper).
import HotspotAgentCommand
import ProgramSupport

GlobalExecutor.install()
await AgentCommand.main(arguments: Array(CommandLine.arguments.dropFirst()))
