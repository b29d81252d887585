// SPDX-License-Identifier: Apache-2.0
/// Why a configuration cannot be used: every problem found, one a line.
public struct ConfigurationError: Error, Sendable, CustomStringConvertible {
    public var message: String
    /// The problems, in line order (empty when the file could not be read at all: see ``message``).
    public var problems: [ConfigurationProblem]
    public init(_ message: String) { self.message = message; problems = [] }
    public init(problems: [ConfigurationProblem]) {
        self.problems = problems
        message = problems.map(\.description).joined(separator: "\n")
    }
    public var description: String { message }
}

/// One thing wrong with a configuration file, where it is and how to fix it. Never quotes a
/// value (a line may hold a secret): it names the file, the line, the group and the key.
public struct ConfigurationProblem: Sendable, Equatable, CustomStringConvertible {
    public enum Severity: Sendable, Equatable { case error, warning }
    public var path: String
    /// From 1; nil for the file as a whole.
    public var line: Int?
    public var message: String
    /// An error stops the daemon from starting; a warning does not.
    public var severity: Severity

    public init(path: String, line: Int?, message: String, severity: Severity) {
        self.path = path
        self.line = line
        self.message = message
        self.severity = severity
    }

    /// `FILE:LINE: message`, as compilers write it (editors jump to it); a warning says so.
    public var description: String {
        "\(path)\(line.map { ":\($0)" } ?? ""): \(severity == .warning ? "warning: " : "")\(message)"
    }
}
