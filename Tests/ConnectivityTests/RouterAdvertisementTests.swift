// SPDX-License-Identifier: Apache-2.0
import HotspotTesting
import Connectivity
import Foundation
import Glibc
import Testing

/// RFC 8910 §2.3: the captive-portal option of IPv6 Router Advertisements, as the kernel hands
/// it to userspace (RTM_NEWNDUSEROPT on RTNLGRP_ND_USEROPT).
@Suite struct RouterAdvertisementOptionTests {
    /// One rtnetlink message as the kernel builds it: nlmsghdr, nduseroptmsg, the ND options.
    static func message(options: [UInt8], interfaceIndex: Int32 = 7, icmpType: UInt8 = 134, type: UInt16 = 68,
                        optionsLength: Int? = nil) -> [UInt8] {
        func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xff), UInt8((v >> 8) & 0xff)] }
        func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8((v >> (8 * $0)) & 0xff) } }
        let body = [UInt8(AF_INET6), 0] + le16(optionsLength ?? options.count) + le32(UInt32(bitPattern: interfaceIndex))
            + [icmpType, 0, 0, 0, 0, 0, 0, 0] + options
        let length = 16 + body.count
        let padded = body + [UInt8](repeating: 0, count: (4 - length % 4) % 4)
        return le32(UInt32(length)) + le16(Int(type)) + [0, 0] + le32(0) + le32(0) + padded
    }

    /// Option 37: the URI padded with NULs to a multiple of 8 bytes.
    static func captivePortal(_ uri: String) -> [UInt8] {
        let value = Array(uri.utf8)
        let total = (value.count + 2 + 7) / 8 * 8
        return [37, UInt8(total / 8)] + value + [UInt8](repeating: 0, count: total - 2 - value.count)
    }

    /// An RDNSS option (type 25) the parser must step over.
    static let rdnss: [UInt8] = [25, 3, 0, 0, 0, 0, 0x0e, 0x10] + [UInt8](repeating: 0xfd, count: 16)

    @Test func theURIIsReadFromAmongOtherOptionsAndItsPaddingDropped() {
        let heard = RouterAdvertisementOption.parse(Self.message(options: Self.rdnss + Self.captivePortal("https://portal.example/api")))
        #expect(heard.count == 1)
        #expect(heard.first?.interfaceIndex == 7)
        #expect((try? heard.first?.answer.get()) == .api("https://portal.example/api"))
    }

    @Test func twoMessagesInOneReadAreBothRead() {
        let buffer = Self.message(options: Self.captivePortal("https://a.example/"), interfaceIndex: 3)
            + Self.message(options: Self.captivePortal("urn:ietf:params:capport:unrestricted"), interfaceIndex: 4)
        let heard = RouterAdvertisementOption.parse(buffer)
        #expect(heard.map(\.interfaceIndex) == [3, 4])
        #expect((try? heard[1].answer.get()) == .unrestricted)
    }

    @Test func aPlainHTTPURIIsHeardButRefused() {
        let heard = RouterAdvertisementOption.parse(Self.message(options: Self.captivePortal("http://portal.example/api")))
        guard case .failure(let problem)? = heard.first?.answer else { Issue.record("\(heard)"); return }
        #expect(problem.description.contains("not https"), "\(problem)")
    }

    @Test func otherMessagesAndLengthsThatDoNotFitAreSkipped() {
        let option = Self.captivePortal("https://portal.example/api")
        #expect(RouterAdvertisementOption.parse(Self.message(options: option, icmpType: 135)).isEmpty, "not an RA")
        #expect(RouterAdvertisementOption.parse(Self.message(options: option, type: 24)).isEmpty, "not RTM_NEWNDUSEROPT")
        #expect(RouterAdvertisementOption.parse(Self.message(options: option, optionsLength: 4096)).isEmpty, "options past the message")
        var lying = option
        lying[1] = 200  // an option longer than the area
        #expect(RouterAdvertisementOption.parse(Self.message(options: lying)).isEmpty)
        var zero = option
        zero[1] = 0  // a zero-length option would loop forever
        #expect(RouterAdvertisementOption.parse(Self.message(options: zero)).isEmpty)
        let whole = Self.message(options: option)
        for cut in [0, 3, 15, 17, 31, whole.count - 1] { _ = RouterAdvertisementOption.parse(Array(whole.prefix(cut))) }
    }
}

/// The whole way through a real kernel: two network namespaces the test makes and a veth between
/// them. A router in one sends a Router Advertisement with the captive-portal option from a raw
/// ICMPv6 socket (the test is root); in the other, the kernel accepts the RA and hands the option
/// to ``RouterAdvertisementWatch``, opened on a thread that joined that namespace — no raw
/// socket and no capability on the listening side.
@Suite(.serialized, .enabled(if: NamespaceLab.canRun, "needs root and iproute2 (ip netns); skipped"))
struct RouterAdvertisementNamespaceTests {
    static let sender = """
        import socket, sys, time
        uri = sys.argv[2].encode()
        value = uri + b"\\0" * ((8 - (len(uri) + 2) % 8) % 8)
        option = bytes([37, (len(value) + 2) // 8]) + value
        # RA: type 134, code 0, checksum (the kernel's), hop limit 64, flags 0, router lifetime 0
        # (not a default router), reachable time, retransmission timer.
        ra = bytes([134, 0, 0, 0, 64, 0, 0, 0]) + bytes(8) + option
        s = socket.socket(socket.AF_INET6, socket.SOCK_RAW, socket.IPPROTO_ICMPV6)
        s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_MULTICAST_HOPS, 255)
        s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_MULTICAST_IF, socket.if_nametoindex(sys.argv[1]))
        # The link-local source address appears once the veth has carrier: try for a while.
        for attempt in range(100):
            try:
                s.sendto(ra, ("ff02::1", 0, 0, socket.if_nametoindex(sys.argv[1])))
                break
            except OSError as e:
                if attempt == 99:
                    sys.exit(f"cannot send the RA: {e}")
                time.sleep(0.1)
        print("sent", flush=True)
        """

    @Test func theCaptivePortalOptionOfARealRouterAdvertisementIsHeardWithoutARawSocket() async throws {
        let suffix = String(getpid() % 10000)
        let host = "hhra\(suffix)h", router = "hhra\(suffix)r"
        defer {
            for ns in [host, router] { _ = try? Process.run(URL(fileURLWithPath: "/usr/sbin/ip"), arguments: ["netns", "del", ns]).waitUntilExit() }
        }
        for ns in [host, router] { try await NamespaceLab.ip("netns", "add", ns) }
        try await NamespaceLab.ip("link", "add", "ra0", "netns", host, "type", "veth", "peer", "name", "ra1", "netns", router)
        for (ns, dev) in [(host, "ra0"), (router, "ra1")] {
            // No duplicate address detection: the router's link-local address is usable at once.
            try await NamespaceLab.ip("netns", "exec", ns, "sysctl", "-q", "-w", "net.ipv6.conf.\(dev).accept_dad=0")
            try await NamespaceLab.ip("-n", ns, "link", "set", dev, "up")
        }
        let heard = Changes()
        let watch = try await NamespaceLab.inNamespace(host) { try RouterAdvertisementWatch(onHeard: { heard.bump() }) }
        defer { watch.stop() }
        let index = try await NamespaceLab.inNamespace(host) { Int32(if_nametoindex("ra0")) }
        #expect(watch.captivePortal(interfaceIndex: index) == nil)

        let send = try await ManagedProcess.run("/usr/sbin/ip", ["netns", "exec", router, "/usr/bin/python3", "-c", Self.sender, "ra1",
                                                                 "https://portal.lab.test/api"], timeout: .seconds(20))
        #expect(send.status == 0, "\(send.stderr)")
        _ = await heard.holds(within: .seconds(10)) { watch.captivePortal(interfaceIndex: index) != nil }
        #expect((try? watch.captivePortal(interfaceIndex: index)?.get()) == .api("https://portal.lab.test/api"))

        // A later RA replaces it; leaving the network forgets it.
        let again = try await ManagedProcess.run("/usr/sbin/ip", ["netns", "exec", router, "/usr/bin/python3", "-c", Self.sender, "ra1",
                                                                  "http://plain.lab.test/"], timeout: .seconds(20))
        #expect(again.status == 0, "\(again.stderr)")
        _ = await heard.holds(within: .seconds(10)) { (try? watch.captivePortal(interfaceIndex: index)?.get()) == nil }
        guard case .failure(let problem)? = watch.captivePortal(interfaceIndex: index) else {
            Issue.record("the second RA was not heard: \(String(describing: watch.captivePortal(interfaceIndex: index)))")
            return
        }
        #expect(problem.description.contains("not https"))
    }
}
