// SPDX-License-Identifier: Apache-2.0
import FlyingFox
import FlyingSocks
import Foundation

extension PortalSimulator {
    func handle(_ request: HTTPRequest) async -> HTTPResponse {
        var r = await Req(request)
        r.client = client(of: r)
        if configuration.trustedProxies.contains(r.client), let forwarded = request.headers[HTTPHeader("X-Forwarded-For")] {
            r.client = String(forwarded.split(separator: ",").last.map { $0.filter { $0 != " " } } ?? r.client)
        }
        let c = configuration
        if r.path == "/__sim/events" {
            return HTTPResponse(statusCode: .ok, headers: [.contentType: "application/json"], body: eventsJSON())
        }
        if r.path == "/__sim/reset" {
            reset()
            return HTTPResponse(statusCode: .noContent)
        }
        // What a test in-process does with `VenueSwitch.change()`, for a simulator run as a program.
        if r.path == "/__sim/venue-change" {
            c.venueSwitch.change()
            return HTTPResponse(statusCode: .noContent)
        }
        if c.blackholeHosts.contains(r.host) {
            record(r, "blackhole")
            try? await Task.sleep(for: .seconds(3600))
            return HTTPResponse(statusCode: .gatewayTimeout)
        }
        if c.mode == .slow { try? await Task.sleep(for: c.slowDelay) }
        if c.slowFirstRequests > 0, isAmongFirstRequests(r.client) {
            record(r, "slow-answer", "\(c.slowDelay)")
            try? await Task.sleep(for: c.slowDelay)
        }
        if c.flapSeconds > 0, !isSignedIn(r.client), isFlappedAway {
            record(r, "flap-hang")
            try? await Task.sleep(for: c.flapHang)
        }
        switch c.mode {
        case .open:
            return online(r)
        case .clickThrough, .slow, .evasive:
            if c.mode == .evasive && c.evasiveHosts.contains(r.host) { return online(r) }
            return clickThrough(r)
        case .form:
            return form(r)
        case .wispr, .broken:
            return wispr(r)
        case .capport:
            return capport(r)
        case .hostile:
            return hostile(r)
        case .getForms:
            return getForms(r)
        case .venue:
            return venue(r, cookie: request.headers[HTTPHeader("Cookie")])
        }
    }

    // MARK: get-forms (an openNDS-like gateway)

    func getForms(_ r: Req) -> HTTPResponse {
        let c = configuration
        // The server hands paths over without their trailing slash.
        let path = r.path.count > 1 && r.path.hasSuffix("/") ? String(r.path.dropLast()) : r.path
        switch path {
        case "/granted":
            return html(200, "<html><head><meta http-equiv=\"refresh\" content=\"0; url=/welcome\"></head><body>Granted</body></html>")
        case "/welcome":
            return html(200, "<html><body>You are online. Enjoy.</body></html>")
        case "/splash":
            guard let fas = r.query["fas"], fas.count >= 64 else { record(r, "refused", "no state"); return html(400, "missing state") }
            record(r, "portal-page")
            return html(200, """
                <html><head><title>Welcome</title></head><body><h1>Free Wi-Fi</h1>
                <form action="/opennds_preauth/" method="get"><input type="hidden" name="fas" value="\(fas)">
                <input type="hidden" name="landing" value="1"><input type="submit" name="continue" value="Continue"></form></body></html>
                """)
        case "/opennds_preauth":
            guard (r.query["fas"]?.count ?? 0) >= 64, r.query["continue"] == "Continue" else {
                record(r, "refused", "first form: \(r.query.keys.sorted().joined(separator: ","))")
                return html(400, "the first form was not submitted as a browser would")
            }
            record(r, "continue")
            let token = newToken(for: r.client)
            if c.detailsForm {
                return html(200, """
                    <html><body><p>Tell us who you are</p><form action="/opennds_auth/" method="post">
                    <input type="hidden" name="tok" value="\(token)"><label>Name <input type="text" name="name" required></label>
                    <label>E-mail <input type="email" name="email" required></label>
                    <input type="submit" name="go" value="Connect"></form></body></html>
                    """)
            }
            return html(200, """
                <html><body><p>Please read and accept.</p><form action="/opennds_auth/?from=preauth" method="get">
                <input type="hidden" name="tok" value="\(token)"><button type="submit" name="agree" value="yes">Continue</button></form>
                <form action="/opennds_deny/" method="get"><input type="hidden" name="tok" value="\(token)"><button type="submit" name="logout" value="1">No thanks, log out</button></form>
                </body></html>
                """)
        case "/opennds_auth":
            let fields = r.method == "POST" ? r.form : r.query
            let ok = c.detailsForm ? !(fields["name"] ?? "").isEmpty && (fields["email"] ?? "").contains("@") && fields["go"] == "Connect"
                                   : fields["agree"] == "yes"
            guard ok, let token = fields["tok"], takeToken(token) == r.client else {
                record(r, "login-failed", "fields: \(fields.keys.sorted().joined(separator: ","))")
                return html(403, "<html><body>Not accepted.</body></html>")
            }
            signIn(r.client)
            record(r, "login-ok", "fields: \(fields.keys.sorted().joined(separator: ","))")
            return html(302, "", headers: [.location: "/granted"])
        default:
            break
        }
        if isSignedIn(r.client) { return online(r) }
        record(r, "probe-portal")
        let splash = c.splashPort.map { "http://\(r.host):\($0)" } ?? base(r)
        // The gateway's state, as openNDS hands it to its splash page: long, opaque, in the query.
        let state = String(repeating: String(r.client.utf8.reduce(UInt32(2166136261)) { ($0 ^ UInt32($1)) &* 16777619 }, radix: 16), count: 16)
        let location = "\(splash)/splash?fas=\(state)&redir=\(percent("http://\(r.hostWithPort)\(r.path)"))"
        return HTTPResponse(statusCode: HTTPStatusCode(307, phrase: "Temporary Redirect"),
                            headers: [.location: location, .contentType: "text/html", HTTPHeader("Cache-Control"): "no-store"],
                            body: Data("<html><body>Redirecting</body></html>".utf8))
    }

    /// Whether a flapping portal is in its hanging half now.
    var isFlappedAway: Bool {
        let elapsed = ContinuousClock.now - startedAt
        // Fractional seconds: a phase that is not a whole number of seconds drifts across checks
        // made a whole number of seconds apart, instead of meeting each in the same half.
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let phase = Int(seconds / configuration.flapSeconds)
        return phase % 2 == 1
    }

    // MARK: online answers

    /// The answer the real endpoint gives for `r`'s path, with the NetworkManager and ConnMan headers.
    func online(_ r: Req) -> HTTPResponse {
        record(r, "probe-online")
        var headers: HTTPHeaders = [HTTPHeader("X-NetworkManager-Status"): "online", HTTPHeader("X-ConnMan-Status"): "online"]
        let p = r.path
        func text(_ s: String) -> HTTPResponse {
            headers[.contentType] = "text/plain"
            return HTTPResponse(statusCode: .ok, headers: headers, body: Data(s.utf8))
        }
        if p.hasSuffix("generate_204") || p.hasSuffix("gen_204") || p == "/204" { return HTTPResponse(statusCode: .noContent, headers: headers) }
        if p.hasSuffix("hotspot-detect.html") || p.hasSuffix("success.html") {
            headers[.contentType] = "text/html"
            return HTTPResponse(statusCode: .ok, headers: headers, body: Data("<HTML><HEAD><TITLE>Success</TITLE></HEAD><BODY>Success</BODY></HTML>\n".utf8))
        }
        if p.hasSuffix("connecttest.txt") { return text("Microsoft Connect Test") }
        if p.hasSuffix("ncsi.txt") { return text("Microsoft NCSI") }
        if p.hasSuffix("success.txt") { return text("success\n") }
        if p.hasSuffix("canonical.html") {
            return text(#"<meta http-equiv="refresh" content="0;url=https://support.mozilla.org/kb/captive-portal"/>"#)
        }
        if p.hasSuffix(".txt") || p == "/nm" { return text("NetworkManager is online") }
        if p.hasPrefix("/portal") || p.hasPrefix("/login") { return html(200, "<html><body>You are online.</body></html>") }
        return HTTPResponse(statusCode: .noContent, headers: headers)
    }

    func html(_ status: Int, _ body: String, headers extra: HTTPHeaders = [:]) -> HTTPResponse {
        var headers = extra
        headers[.contentType] = "text/html; charset=utf-8"
        headers[HTTPHeader("Cache-Control")] = "no-store"
        return HTTPResponse(statusCode: HTTPStatusCode(status, phrase: status == 302 ? "Found" : "OK"), headers: headers, body: Data(body.utf8))
    }

    func redirect(_ location: String, body: String = "") -> HTTPResponse {
        html(302, body, headers: [.location: location])
    }

    func base(_ r: Req) -> String { "http://\(r.hostWithPort)" }

    func percent(_ s: String) -> String {
        s.addingPercentEncoding(withAllowedCharacters: CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")) ?? ""
    }

    // MARK: click-through

    func clickThrough(_ r: Req) -> HTTPResponse {
        if r.path == "/portal/accept" && r.method == "POST" {
            if r.form["accept"] == "yes" {
                signIn(r.client)
                record(r, "accepted", "fields: \(r.form.keys.sorted().joined(separator: ","))")
                return html(200, "<html><body>Thank you. You are online.</body></html>")
            }
            record(r, "refused", "terms not accepted")
            return html(200, termsPage(error: "Please accept the terms."))
        }
        if isSignedIn(r.client) { return online(r) }
        if r.path == "/portal" {
            record(r, "portal-page")
            return html(200, termsPage(error: nil))
        }
        record(r, "probe-portal")
        return redirect("\(base(r))/portal?orig=\(percent("http://\(r.hostWithPort)\(r.path)"))")
    }

    func termsPage(error: String?) -> String {
        """
        <html><head><title>Welcome to Simulated Wi-Fi</title></head><body>
        \(error.map { "<p class=error>\($0)</p>" } ?? "")
        <form method="post" action="/portal/accept">
        <label><input type="checkbox" name="accept" value="yes"> I accept the terms of use</label>
        <input type="submit" value="Connect"></form></body></html>
        """
    }

    // MARK: form

    func form(_ r: Req) -> HTTPResponse {
        if r.path == "/login" && r.method == "POST" {
            let fields = "fields: \(r.form.keys.sorted().joined(separator: ","))"
            if r.form["username"] == configuration.username && r.form["password"] == configuration.password {
                signIn(r.client)
                record(r, "login-ok", fields)
                return html(200, "<html><body>Welcome. You are online.</body></html>")
            }
            record(r, "login-failed", fields)
            return html(403, loginPage(error: "Wrong user name or password."))
        }
        if isSignedIn(r.client) { return online(r) }
        if r.path == "/login" {
            record(r, "portal-page")
            return html(200, loginPage(error: nil))
        }
        record(r, "probe-portal")
        return redirect("\(base(r))/login")
    }

    func loginPage(error: String?) -> String {
        """
        <html><head><title>Sign in</title></head><body>
        \(error.map { "<p class=error>\($0)</p>" } ?? "")
        <form method="post" action="/login"><input name="username"><input name="password" type="password">
        <input type="submit" value="Sign in"></form></body></html>
        """
    }

    // MARK: WISPr

    func wisprEnvelope(_ inner: String) -> String {
        let v2 = configuration.wisprVersion >= 2
        let schema = v2 ? "http://www.wballiance.net/wispr_2_0.xsd" : "http://www.acmewisp.com/WISPAccessGatewayParam.xsd"
        if configuration.mode == .broken {
            // Wi2's unquoted attribute and broken closing tag, a line-wrapped closing tag; bare XML.
            let wrapped = inner.replacingOccurrences(of: "</ResponseCode>", with: "<\n/ResponseCode>")
            return """
            <?xml version="1.0" encoding="UTF-8"?>
            <WISPAccessGatewayParam xmlns:xsi=http://www.w3.org/2001/XMLSchema-instance xsi:noNamespaceSchemaLocation=\(schema)>
            \(wrapped)
            -->ISPAccessGatewayParam>
            """
        }
        return """
        <html><head><title>Sign in</title></head><body><p>Please sign in.</p>
        <!--
        <?xml version="1.0" encoding="UTF-8"?>
        <WISPAccessGatewayParam xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:noNamespaceSchemaLocation="\(schema)">
        \(inner)
        </WISPAccessGatewayParam>
        -->
        </body></html>
        """
    }

    func wisprVersionFields() -> String {
        configuration.wisprVersion >= 2 ? "<VersionHigh>2.0</VersionHigh><VersionLow>1.0</VersionLow>" : ""
    }

    func wisprReply(_ r: Req, element: String, type: Int, code: Int, extra: String = "") -> HTTPResponse {
        record(r, code == 50 ? "login-ok" : code == 201 ? "login-pending" : type == 130 ? "logoff" : "login-failed", "WISPr \(type)/\(code)")
        return html(200, wisprEnvelope("<\(element)><MessageType>\(type)</MessageType><ResponseCode>\(code)</ResponseCode>\(extra)</\(element)>"))
    }

    func wispr(_ r: Req) -> HTTPResponse {
        let b = base(r)
        let logoff = "<LogoffURL>\(b)/wispr/logoff</LogoffURL>"
        switch (r.method, r.path) {
        case ("POST", "/wispr/login"):
            let user = r.form["UserName"] ?? ""
            let fields = "fields: \(r.form.keys.sorted().joined(separator: ","))"
            record(r, "login-attempt", fields)
            switch user {
            case "radius-error": return wisprReply(r, element: "AuthenticationReply", type: 120, code: 102, extra: "<ReplyMessage>RADIUS timeout</ReplyMessage>")
            case "no-radius": return wisprReply(r, element: "AuthenticationReply", type: 120, code: 105, extra: "<ReplyMessage>No route for realm</ReplyMessage>")
            case "gateway-error": return wisprReply(r, element: "AuthenticationReply", type: 120, code: 255)
            default: break
            }
            guard user == configuration.username && r.form["Password"] == configuration.password else {
                return wisprReply(r, element: "AuthenticationReply", type: 120, code: 100, extra: "<ReplyMessage>Invalid Username/Password</ReplyMessage>")
            }
            if configuration.pending {
                let token = newToken(for: r.client)
                return wisprReply(r, element: "AuthenticationReply", type: 120, code: 201,
                                  extra: "<LoginResultsURL>\(b)/wispr/results?id=\(token)&amp;res=poll</LoginResultsURL><Delay>1</Delay>")
            }
            signIn(r.client)
            return wisprReply(r, element: "AuthenticationReply", type: 120, code: 50, extra: "\(logoff)<MaxSessionTime>3600</MaxSessionTime>")
        case ("GET", "/wispr/results"):
            guard let token = r.query["id"], let client = takeToken(token) else {
                return wisprReply(r, element: "AuthenticationPollReply", type: 140, code: 100, extra: "<ReplyMessage>Unknown login</ReplyMessage>")
            }
            signIn(client)
            return wisprReply(r, element: "AuthenticationPollReply", type: 140, code: 50, extra: logoff)
        case ("GET", "/wispr/logoff"):
            signOut(r.client)
            return wisprReply(r, element: "LogoffReply", type: 130, code: 150)
        case ("GET", "/wispr/abort"):
            return wisprReply(r, element: "AbortLoginReply", type: 150, code: 151)
        default:
            break
        }
        if isSignedIn(r.client) { return online(r) }
        record(r, "probe-portal")
        let message = """
        <Redirect><AccessProcedure>1.0</AccessProcedure><AccessLocation>sim-1</AccessLocation>\
        <LocationName>Simulated_Hotspot</LocationName>\
        <LoginURL>\(b)/wispr/login?res=wispr&amp;uamip=10.1.0.1&amp;uamport=3990</LoginURL>\
        <AbortLoginURL>\(b)/wispr/abort</AbortLoginURL><MessageType>100</MessageType><ResponseCode>0</ResponseCode>\
        \(wisprVersionFields())</Redirect>
        """
        if configuration.mode == .broken {
            return html(200, wisprEnvelope(message))
        }
        return redirect("\(b)/wispr/login-page", body: wisprEnvelope(message))
    }

    // MARK: RFC 8908

    func userPortalURL(_ r: Req) -> String { (configuration.httpsBase ?? "https://\(r.hostWithPort)") + "/portal" }

    func capport(_ r: Req) -> HTTPResponse {
        switch (r.method, r.path) {
        case ("GET", "/api/captive"):
            let signedIn = isSignedIn(r.client)
            record(r, "capport-api", signedIn ? "captive=false" : "captive=true")
            var doc = #"{"captive": \#(!signedIn), "user-portal-url": "\#(userPortalURL(r))", "venue-info-url": "https://venue.example/info", "x-unknown-key": [1, 2]"#
            if signedIn, let left = secondsRemaining(r.client) {
                doc += #", "seconds-remaining": \#(left), "bytes-remaining": 1048576, "can-extend-session": true"#
            }
            doc += "}"
            return HTTPResponse(statusCode: .ok, headers: [.contentType: "application/captive+json", HTTPHeader("Cache-Control"): "private"],
                                body: Data(doc.utf8))
        case ("POST", "/portal/accept"), ("POST", "/portal/extend"):
            signIn(r.client, seconds: configuration.sessionSeconds)
            record(r, r.path == "/portal/extend" ? "extend" : "accepted", "session \(configuration.sessionSeconds) s")
            return html(200, "<html><body>You are online for \(configuration.sessionSeconds) seconds.</body></html>")
        default:
            break
        }
        if isSignedIn(r.client) {
            // A signed-in client visiting the user portal may extend its session there.
            if r.path == "/portal" {
                record(r, "portal-page", "extend")
                return html(200, #"<html><body>You are online.<form method="post" action="/portal/extend"><input type="submit" value="Extend my session"></form></body></html>"#)
            }
            return online(r)
        }
        if r.path == "/portal" {
            record(r, "portal-page")
            return html(200, termsPage(error: nil))
        }
        record(r, "probe-portal")
        return redirect(userPortalURL(r))
    }

    // MARK: hostile

    /// The `huge-form` page: about 64 KiB, one label around 9,300 inputs.
    static let hugeFormPage = "<html><body><form method=post action=/accept><label>I accept the terms "
        + String(repeating: "<input>", count: 9_300) + "</label><button name=go value=1>Go</button></form></body></html>"

    func hostile(_ r: Req) -> HTTPResponse {
        record(r, "hostile", configuration.hostile.rawValue)
        switch configuration.hostile {
        case .hugeBody:
            return HTTPResponse(statusCode: .ok, headers: [.contentType: "text/html"],
                                body: HTTPBodySequence(from: GeneratedBytes(count: configuration.hugeBodyBytes, chunk: 64 * 1024, delay: nil),
                                                       count: configuration.hugeBodyBytes))
        case .redirectLoop:
            let n = Int(r.path.split(separator: "/").last ?? "") ?? 0
            return redirect("\(base(r))/loop/\(n + 1)")
        case .slowLoris:
            return HTTPResponse(statusCode: .ok, headers: [.contentType: "text/html"],
                                body: HTTPBodySequence(from: GeneratedBytes(count: 600, chunk: 1, delay: .seconds(1))))
        case .malformedXML:
            return html(200, """
            <html><!-- <WISPAccessGatewayParam xmlns:xsi=><Redirect><MessageType>1&&00</Mess<<ageType>
            <ResponseCode>abc</ResponseCode><LoginURL></LoginURL><Delay>-5</Delay>< <<<< ]]> <![CDATA[ \u{0}
            """)
        case .hugeForm:
            return html(200, Self.hugeFormPage)
        case .malformedJSON:
            if r.path == "/api/captive" {
                return HTTPResponse(statusCode: .ok, headers: [.contentType: "application/captive+json"], body: Data("{SomeInvalidText".utf8))
            }
            return clickThrough(r)
        }
    }
}

/// A body generated on the fly (so a 100 MB body costs no memory), optionally trickled.
struct GeneratedBytes: AsyncBufferedSequence, Sendable {
    typealias Element = UInt8
    let count: Int
    let chunk: Int
    let delay: Duration?

    func makeAsyncIterator() -> Iterator { Iterator(left: count, chunk: chunk, delay: delay) }

    struct Iterator: AsyncBufferedIteratorProtocol {
        var left: Int
        let chunk: Int
        let delay: Duration?

        mutating func next() async throws -> UInt8? {
            try await nextBuffer(suggested: 1)?.first
        }

        mutating func nextBuffer(suggested count: Int) async throws -> [UInt8]? {
            guard left > 0 else { return nil }
            if let delay { try await Task.sleep(for: delay) }
            let n = Swift.min(left, chunk, Swift.max(1, count))
            left -= n
            return [UInt8](repeating: 0x41, count: n)
        }
    }
}
