// SPDX-License-Identifier: Apache-2.0
import BuiltInHelpers
import Connectivity
import Foundation
import Synchronization

/// The html-form target's second half: a whole sign-in through pages the fuzzer writes (forms
/// that lead to forms, GET and POST, redirects, meta refresh), in memory. Whatever the pages say,
/// the sign-in ends, within a bounded number of requests, and the profile's secret goes to no
/// host but its login host and never over plain http (the profile does not allow it).
enum FormChainFuzz {
    static let secret = "fz-secret-4711"
    static let loginHost = "gw.test"

    /// Pages answered in turn; after the last, 404.
    final class Pages: HTTPTransport {
        let pages: [(status: Int, location: String?, body: [UInt8])]
        let log = Mutex<[HTTPRequestSpec]>([])
        init(_ pages: [(status: Int, location: String?, body: [UInt8])]) { self.pages = pages }

        func start(_ request: HTTPRequestSpec, options: TransferOptions,
                   completion: @escaping @Sendable (Result<HTTPAnswer, TransferError>) -> Void) -> any TransferHandle {
            let n = log.withLock { $0.append(request); return $0.count - 1 }
            guard n < pages.count else {
                completion(.success(HTTPAnswer(status: 404, url: request.url)))
                return Done()
            }
            let p = pages[n]
            let headers = p.location.map { [HTTPField("Location", $0)] } ?? []
            completion(.success(HTTPAnswer(status: p.status, headers: headers, body: Data(p.body), url: request.url)))
            return Done()
        }
        struct Done: TransferHandle { func cancel() {} }
    }

    /// An executor with one thread of its own, for ``run(_:)``'s sign-in.
    final class OwnThread: TaskExecutor, @unchecked Sendable {  // its queue is guarded by `condition`
        static let shared = OwnThread()
        private let condition = NSCondition()
        private var jobs: [UnownedJob] = []

        private init() {
            Thread.detachNewThread { [self] in
                while true {
                    condition.lock()
                    while jobs.isEmpty { condition.wait() }
                    let job = jobs.removeFirst()
                    condition.unlock()
                    job.runSynchronously(on: asUnownedTaskExecutor())
                }
            }
        }

        func enqueue(_ job: consuming ExecutorJob) {
            let job = UnownedJob(job)
            condition.lock()
            jobs.append(job)
            condition.signal()
            condition.unlock()
        }
    }

    struct Environment: PortalEnvironment {
        let transport: any HTTPTransport
        let online: Bool
        func transferOptions(for interface: String) async -> TransferOptions { TransferOptions(timeout: .seconds(1)) }
        func verdict(for interface: String, fresh: Bool) async -> ProbeVerdict { ProbeVerdict(state: online ? .online : .portal, reason: .expected) }
        var wisprProbeURL: String { "http://probe.test/" }
    }

    static func run(_ bytes: [UInt8]) {
        var input = FuzzInput(bytes)
        let mode = input.int(0...2)
        let online = input.int(0...7) == 0
        var pages: [(status: Int, location: String?, body: [UInt8])] = []
        for _ in 0..<input.int(1...7) {
            let status = input.pick([200, 200, 200, 302, 303, 307, 404, 500])
            let location = (300..<400).contains(status)
                ? input.pick(["/next", "http://gw.test/form", "https://gw.test/login?a=1", "http://stranger.test/x", "//gw.test:2050/p?q=" + String(repeating: "f", count: 300), input.string(max: 40)])
                : nil
            pages.append((status, location, input.bytes(max: 1500)))
        }
        if !input.isExhausted { pages.append((200, nil, input.rest())) }
        let transport = Pages(pages)
        let signIn = PortalSignIn(environment: Environment(transport: transport, online: online), longestRefreshWait: .zero)
        let verdict = ProbeVerdict(state: .portal, reason: .redirect(status: 302), signInURL: "http://gw.test/splash")
        let done = DispatchSemaphore(value: 0)
        // On a thread of its own: the caller may be one of the concurrency pool's few threads (a
        // test), and blocking it while the sign-in waited for a pool thread would starve the pool.
        Task(executorPreference: OwnThread.shared) {
            switch mode {
            case 0:
                _ = await signIn.signIn(.clickThrough, interface: "wlan0", verdict: verdict)
            case 1:
                let method = SignInMethod.form(url: nil, fields: [FormField(name: "user", value: "fz"), FormField(name: "pass", value: secret)],
                                               loginHosts: try? LoginHosts(parsing: loginHost))
                _ = await signIn.signIn(method, interface: "wlan0", verdict: verdict)
            default:
                _ = await signIn.acceptTerms(at: "http://gw.test/splash", interface: "wlan0", requireClickThrough: true)
            }
            done.signal()
        }
        done.wait()
        let requests = transport.log.withLock { $0 }
        // A fetch and its hops (6), then at most maxFormSteps submissions, each with its hops.
        precondition(requests.count <= 6 + 4 * 7, "the sign-in made \(requests.count) requests")
        for r in requests {
            let body = r.body.map { String(decoding: $0, as: UTF8.self) } ?? ""
            guard r.url.contains(secret) || body.contains(secret) else { continue }
            precondition(r.url.lowercased().hasPrefix("https://"), "the secret went over plain http without the profile's opt-in")
            precondition(LoginHosts.host(of: r.url) == loginHost, "the secret went to \(LoginHosts.host(of: r.url) ?? r.url)")
        }
    }
}
