// SPDX-License-Identifier: Apache-2.0
import FlyingFox
import Foundation
import Synchronization

/// The venue forms of `PortalMode.venue`: sign-in pages a person fills in, each labelling its
/// fields another way, as real portals do. Probes are redirected to /venue; the form posts to
/// /venue/login (on another host for `otherHost`, and after `VenueSwitch.change()` for
/// `movingHost`); probes are redirected to the portal's own host, `portal.venue.test`; a wrong answer returns the page (HTTP 200) with the portal's error in
/// `<p class="error" role="alert">`. Every page carries a hidden `token` that only its latest
/// fetch by the client accepts, so a sign-in must read the page again before posting; the hotel's
/// pages also set a session cookie the form must come back with.
public enum VenueForm: String, Sendable, Hashable, CaseIterable, Codable {
    /// Room number (`<label for>`) and surname (a wrapping `<label>`): accepts 412 / Martin, and
    /// after `VenueSwitch.change()` 415 / Martin (412 is refused as checked out).
    case hotel
    /// One voucher code, labelled by its placeholder: accepts WIFI-2026. With `httpsBase` (a TLS
    /// front) the form posts there.
    case voucher
    /// An e-mail address (aria-label) and a required terms checkbox with a link: accepts any
    /// address with an @ and the box ticked.
    case cafe
    /// Full name (the table cell before it), e-mail (the words before it) and a badge select
    /// (`<label for>`): accepts any name, an address with an @ and a badge other than ""; a staff
    /// badge only with an address at venue.example (the refusal names the badge chosen).
    case conference
    /// The hotel's form, whose fields are named room_number / last_name after `VenueSwitch.change()`.
    case changingFields = "changing-fields"
    /// The voucher form, posting to another host (`login.venue-other.test`).
    case otherHost = "other-host"
    /// The voucher form, posting to another host after `VenueSwitch.change()`.
    case movingHost = "moving-host"
    /// A page that signs in only with scripts (no form).
    case scripted
    /// A hostile form: a label with markup and bidirectional overrides, a 1 MiB placeholder, a
    /// password over plain http (accepts code WIFI-2026 and any password).
    case hostileLabels = "hostile-labels"
    /// A hostile form of 10,000 fields.
    case manyFields = "many-fields"
}

/// A switch a test flips while the simulator runs: the venue's form changes (field names or host).
public final class VenueSwitch: Sendable, Hashable {
    private let changed = Mutex(false)
    public init() {}
    public func change() { changed.withLock { $0 = true } }
    public var isChanged: Bool { changed.withLock { $0 } }
    public static func == (a: VenueSwitch, b: VenueSwitch) -> Bool { a === b }
    public func hash(into h: inout Hasher) { h.combine(ObjectIdentifier(self)) }
}

extension PortalSimulator {
    /// The page fetches `client` made (its latest page's token).
    func venueVisits(_ client: String) -> Int { events().filter { $0.client == client && $0.kind == "portal-page" }.count }

    func venue(_ r: Req, cookie: String?) -> HTTPResponse {
        let c = configuration
        if r.path == "/venue/login" && r.method == "POST" {
            let fields = "fields: \(r.form.keys.sorted().joined(separator: ","))"
            guard r.form["token"] == "\(venueVisits(r.client))" else {
                record(r, "login-failed", fields + "; stale token")
                return html(200, venuePage(r, error: "Your session has expired; please try again."))
            }
            // The hotel's portal keeps its session in a cookie set with the page.
            if c.venue == .hotel || c.venue == .changingFields,
               !(cookie ?? "").split(separator: ";").contains(where: { $0.trimmingCharacters(in: .whitespaces) == "venue_session=\(venueVisits(r.client))" }) {
                record(r, "login-failed", fields + "; no session cookie")
                return html(200, venuePage(r, error: "Your browser must accept cookies."))
            }
            if let error = venueCheck(r.form, c) {
                record(r, "login-failed", fields)
                return html(200, venuePage(r, error: error))
            }
            signIn(r.client)
            record(r, "login-ok", fields)
            return html(200, "<html><body>Welcome. You are online.</body></html>")
        }
        if isSignedIn(r.client) { return online(r) }
        if r.path == "/venue" {
            record(r, "portal-page")
            return html(200, venuePage(r, error: nil), headers: [HTTPHeader("Set-Cookie"): "venue_session=\(venueVisits(r.client)); Path=/; HttpOnly"])
        }
        record(r, "probe-portal")
        // A venue's portal lives on a host of its own, whichever probe it intercepted.
        return redirect("http://\(Self.venueHost)\(port(of: r))/venue")
    }

    /// The venue portal's own host.
    static let venueHost = "portal.venue.test"

    /// The port the request named in its Host header, as ":PORT" for a URL; "" when it named none
    /// (port 80, as every probe of a real network).
    func port(of r: Req) -> String {
        let parts = r.hostWithPort.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let port = UInt16(parts[1]) else { return "" }
        return ":\(port)"
    }

    /// Why the answer is wrong (the portal's words), or nil when it signs in.
    func venueCheck(_ f: [String: String], _ c: PortalSimulatorConfiguration) -> String? {
        switch c.venue {
        case .hotel:
            // After `VenueSwitch.change()` the guest has moved: 412 is checked out, 415 is theirs.
            if c.venueSwitch.isChanged && f["room"] == "412" { return "This room has been checked out." }
            return f["room"] == (c.venueSwitch.isChanged ? "415" : "412") && f["surname"]?.lowercased() == "martin"
                ? nil : "Room number and surname do not match a guest."
        case .changingFields:
            let (room, surname) = c.venueSwitch.isChanged ? ("room_number", "last_name") : ("room", "surname")
            return f[room] == "412" && f[surname]?.lowercased() == "martin" ? nil : "Room number and surname do not match a guest."
        case .voucher, .otherHost, .movingHost:
            // As real portals do, the refusal repeats what was typed.
            return f["code"] == "WIFI-2026" ? nil : "The voucher code \(f["code"] ?? "") is not valid."
        case .cafe:
            guard f["email"]?.contains("@") == true else { return "Please enter your e-mail address." }
            return f["terms"] == "agreed" ? nil : "Please accept the terms of use."
        case .conference:
            guard !(f["fullname"] ?? "").isEmpty, f["email"]?.contains("@") == true else { return "Please enter your name and e-mail address." }
            guard ["attendee", "speaker", "staff"].contains(f["badge"] ?? "") else { return "Please choose your badge." }
            return f["badge"] == "staff" && f["email"]?.hasSuffix("@venue.example") != true
                ? "A \(f["badge"] ?? "") badge needs your venue.example e-mail address." : nil
        case .scripted, .manyFields:
            return "Please enable JavaScript."
        case .hostileLabels:
            return f["code"] == "WIFI-2026" ? nil : "This voucher code is not valid."
        }
    }

    func venuePage(_ r: Req, error: String?) -> String {
        let c = configuration
        let token = venueVisits(r.client)
        let notice = error.map { "<p class=\"error\" role=\"alert\">\($0)</p>" } ?? ""
        let other = "http://login.venue-other.test\(port(of: r))/venue/login"
        let action: String
        switch c.venue {
        case .voucher where c.httpsBase != nil: action = (c.httpsBase ?? "") + "/venue/login"  // behind TLS
        case .otherHost: action = other
        case .movingHost: action = c.venueSwitch.isChanged ? other : "/venue/login"
        default: action = "/venue/login"
        }
        let hidden = "<input type=\"hidden\" name=\"token\" value=\"\(token)\">"
        let inner: String
        switch c.venue {
        case .hotel, .changingFields:
            let (room, surname) = c.venue == .changingFields && c.venueSwitch.isChanged ? ("room_number", "last_name") : ("room", "surname")
            inner = """
            <label for="room">Room number</label> <input id="room" name="\(room)" type="number" required>
            <label>Surname <input name="\(surname)" required></label>
            """
        case .voucher, .otherHost, .movingHost:
            inner = "<input name=\"code\" placeholder=\"Voucher code\" required>"
        case .cafe:
            inner = """
            <input type="email" name="email" aria-label="E-mail address" required>
            <input type="checkbox" name="terms" value="agreed" required> I accept the <a href="/terms">terms of use</a>
            """
        case .conference:
            inner = """
            <table><tr><td>Full name</td><td><input name="fullname" required></td></tr></table>
            <p>E-mail <input type="email" name="email"></p>
            <label for="badge">Badge</label>
            <select id="badge" name="badge"><option value="">Choose…</option><option value="attendee">Attendee</option>
            <option value="speaker">Speaker</option><option value="staff">Staff</option></select>
            """
        case .hostileLabels:
            inner = """
            <label for="code"><b>Voucher</b> \u{202E}edoc<script>alert(1)</script><img src=x onerror=alert(2)></label>
            <input id="code" name="code" required>
            <input type="password" name="pin" placeholder="\(String(repeating: "P", count: 1 << 20))">
            """
        case .manyFields:
            inner = (0..<10_000).map { "<input name=\"f\($0)\">" }.joined()
        case .scripted:
            return """
            <html><head><title>Sign in</title><script src="/app.js"></script></head><body>
            \(notice)<div id="app">Loading…</div><button onclick="signIn()">Sign in</button></body></html>
            """
        }
        return """
        <html><head><title>Guest Wi-Fi</title></head><body>
        \(notice)
        <form method="post" action="\(action)">\(hidden)
        \(inner)
        <input type="submit" value="Connect"></form></body></html>
        """
    }
}
