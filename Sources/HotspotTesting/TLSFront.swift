// SPDX-License-Identifier: Apache-2.0
import Foundation

/// A test CA, a server certificate for the test names, and socat terminating TLS in front of a
/// loopback port. Needs openssl and socat (scripts/install-deps.sh).
public final class TLSFront: Sendable {
    public let directory: URL
    public let port: UInt16
    public let process: ManagedProcess
    /// The test CA's certificate, for clients that must trust the front.
    public var caFile: String { directory.appendingPathComponent("ca.pem").path }

    public static var available: Bool {
        FileManager.default.isExecutableFile(atPath: "/usr/bin/socat") && FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl")
    }

    private init(directory: URL, port: UInt16, process: ManagedProcess) {
        self.directory = directory
        self.port = port
        self.process = process
    }

    /// Makes a CA and a server certificate (names: capport.test, *.probe.test, www.google.com,
    /// 127.0.0.1) and starts socat on a free loopback port, forwarding to `target`.
    public static func start(forwardingTo target: UInt16) async throws -> TLSFront {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        func path(_ n: String) -> String { dir.appendingPathComponent(n).path }
        try "subjectAltName=DNS:capport.test,DNS:*.probe.test,DNS:www.google.com,IP:127.0.0.1\n"
            .write(toFile: path("ext.cnf"), atomically: false, encoding: .utf8)
        let ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        for args in [
            ["req", "-x509"] + ec + ["-keyout", path("ca.key"), "-out", path("ca.pem"), "-days", "2", "-subj", "/CN=Hotspot Test CA"],
            ["req"] + ec + ["-keyout", path("srv.key"), "-out", path("srv.csr"), "-subj", "/CN=capport.test"],
            ["x509", "-req", "-in", path("srv.csr"), "-CA", path("ca.pem"), "-CAkey", path("ca.key"), "-CAcreateserial",
             "-out", path("srv.pem"), "-days", "2", "-extfile", path("ext.cnf")],
        ] {
            let r = try await ManagedProcess.run("/usr/bin/openssl", args)
            guard r.status == 0 else { throw TLSFrontError(message: "openssl \(args[0]) failed: \(r.stderr)") }
        }
        let combined = try String(contentsOfFile: path("srv.pem"), encoding: .utf8) + String(contentsOfFile: path("srv.key"), encoding: .utf8)
        try combined.write(toFile: path("server.pem"), atomically: false, encoding: .utf8)
        for _ in 0..<20 {
            let port = UInt16.random(in: 20000...60000)
            // -d -d: socat says "listening on" once the socket listens (or exits: the port was taken).
            let p = try ManagedProcess.launch("/usr/bin/socat", [
                "-d", "-d",
                "OPENSSL-LISTEN:\(port),bind=127.0.0.1,reuseaddr,fork,cert=\(path("server.pem")),verify=0",
                "TCP:127.0.0.1:\(target)",
            ])
            if await p.waitForOutput(containing: " listening on ", timeout: SafetyNet.wait) {
                return TLSFront(directory: dir, port: port, process: p)
            }
            p.stop()
        }
        throw TLSFrontError(message: "socat did not start")
    }

    public func stop() {
        process.stop(grace: 0.5)
        try? FileManager.default.removeItem(at: directory)
    }
}

public struct TLSFrontError: Error, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}
