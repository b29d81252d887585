// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Glibc
import HotspotClient
import ProgramSupport

/// `hotspotctl sign-in`: the portal's form (the interface's SignInForm) asked on the terminal,
/// for servers and desktops without the GNOME Shell extension or the session agent's dialog.
struct SignInCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sign-in",
        abstract: "Sign in to a hotspot's portal page from the terminal: asks for each field the page has.",
        discussion: """
        When a join needs you (hotspotctl status says presenting-ui) and the daemon could read the \
        portal's page, this asks for what the page asks (a password without echo; terms as y/N; a \
        choice as a numbered list), sends it through the daemon, and says how it went. A rejected \
        sign-in shows the portal's message and asks again. With --remember (the default) the daemon \
        signs in with the same details the next time you join this network; `hotspotctl remembered` \
        lists what it remembers, `hotspotctl forget SSID` forgets it. --json prints the form (field \
        names, kinds and labels; never a value) and asks nothing.

        Needs the polkit action org.freedesktop.NetworkManager.HotspotHelper.sign-in (the active \
        local user has it).
        """)

    @OptionGroup var options: CommonOptions

    @Flag(inversion: .prefixedNo, help: "Remember the details for this network, so the next join signs in by itself.")
    var remember = true

    @Argument(help: "The interface (default: the only one, or the one waiting for a sign-in).")
    var interface: String?

    struct FieldDocument: Encodable {
        var name: String
        var kind: String
        var label: String
        var required: Bool
        var options: [[String]]?
        var terms: String?
        var termsURL: String?
        enum CodingKeys: String, CodingKey { case name, kind, label, required, options, terms, termsURL = "terms-url" }
    }

    struct FormDocument: Encodable {
        var interface: String
        var kind: String
        var reason: String
        var portalURL: String
        var actionHost: String
        var actionScheme: String
        var plainHTTP: Bool
        var message: String
        var remembered: Bool
        var fields: [FieldDocument]
        enum CodingKeys: String, CodingKey {
            case interface, kind, reason, message, remembered, fields
            case portalURL = "portal-url", actionHost = "action-host", actionScheme = "action-scheme", plainHTTP = "plain-http"
        }

        init(interface: String, form: SignInForm) {
            self.interface = interface
            kind = form.kind.isEmpty ? "none" : form.kind
            reason = form.reason
            portalURL = form.portalURL
            actionHost = form.actionHost
            actionScheme = form.actionScheme
            plainHTTP = form.plainHTTP
            message = form.message
            remembered = form.remembered
            fields = form.fields.map {
                FieldDocument(name: $0.name, kind: $0.kind, label: $0.label, required: $0.required,
                              options: $0.kind == "select" ? $0.options.map { [$0.value, $0.label] } : nil,
                              terms: $0.kind == "checkbox" ? $0.terms : nil, termsURL: $0.kind == "checkbox" ? $0.termsURL : nil)
            }
        }
    }

    func run() async throws {
        let client = try options.client()
        let (name, path, initial) = try await request {
            let i = try await client.resolveInterface(interface, preferring: { $0.state == "presenting-ui" })
            return (i.name, i.path, try await client.signInForm(at: i.path))
        }
        if options.json {
            print(Output.json(FormDocument(interface: name, form: initial)))
            return
        }
        var form = initial
        var terminal = Terminal()
        while true {
            switch form.kind {
            case "form":
                break
            case "browser":
                throw ClientFailure.failed("the sign-in page on \(name) needs a browser: \(Output.dash(form.reason))."
                    + (form.portalURL.isEmpty ? "" : " Open \(form.portalURL) in a browser on this network."))
            default:
                throw ClientFailure.failed("no sign-in is waiting on \(name): join the network first (hotspotctl status shows what the daemon is doing)")
            }
            guard !form.fields.isEmpty else {
                throw ClientFailure.failed("the sign-in page on \(name) has no field to fill: open \(Output.dash(form.portalURL)) in a browser")
            }
            print("The sign-in page on \(name) asks for \(form.fields.count == 1 ? "one detail" : "\(form.fields.count) details"); "
                + "they go to \(Output.dash(form.actionHost)).")
            if form.remembered { print("The details remembered for this network were not accepted.") }
            if !form.message.isEmpty { print("The portal says: \(form.message)") }
            var allowPlainHTTP = false
            if form.plainHTTP {
                print("This page sends what you type unencrypted (plain http): others on this network can read it.")
                guard try terminal.yesNo("Send it anyway?") else {
                    throw ClientFailure.failed("not signed in: you chose not to send the details unencrypted. Open \(Output.dash(form.portalURL)) in a browser instead.")
                }
                allowPlainHTTP = true
            }
            var values: [String: SignInValue] = [:]
            for field in form.fields { values[field.name] = try terminal.ask(field) }
            print("Signing in…")
            let (result, message) = try await request {
                try await client.signIn(at: path, values: values, remember: remember, allowPlainHTTP: allowPlainHTTP)
            }
            switch result {
            case "signed-in":
                print("Signed in on \(name).")
                if remember { print("The details are remembered for this network: the next join signs in by itself (hotspotctl remembered lists them).") }
                return
            case "rejected":
                print("The portal did not accept these details\(message.isEmpty ? "." : ": \(message)") Try again (Ctrl+C stops).")
            case "form-changed":
                print("The sign-in page has changed: asking again.")
            case "needs-browser":
                throw ClientFailure.failed("the sign-in page on \(name) needs a browser: \(Output.dash(message))")
            default:
                throw ClientFailure.failed("the daemon answered \(result): \(Output.dash(message))")
            }
            form = try await request { try await client.signInForm(at: path) }
        }
    }
}

/// Questions on the terminal: answers from standard input, a password without echo (the
/// terminal's ECHO flag cleared while it is read and set back after, whatever ends the read:
/// Ctrl+C interrupts it, the command then ends through the same path).
struct Terminal {
    /// One line of standard input, or a failure at its end (nobody is there to answer).
    mutating func line(_ prompt: String, secret: Bool = false) throws -> String {
        // Echo goes off before the prompt shows, so nothing typed after it is echoed.
        var saved = termios()
        let hide = secret && isatty(STDIN_FILENO) == 1 && tcgetattr(STDIN_FILENO, &saved) == 0
        if hide {
            var quiet = saved
            quiet.c_lflag &= ~tcflag_t(ECHO)
            _ = tcsetattr(STDIN_FILENO, TCSANOW, &quiet)
        }
        defer {
            if hide {
                _ = tcsetattr(STDIN_FILENO, TCSANOW, &saved)
                print("")
            }
        }
        print(prompt, terminator: "")
        fflush(nil)
        let answer = readLine(strippingNewline: true)
        if Task.isCancelled { throw CancellationError() }
        guard let answer else {
            throw ClientFailure.failed("not signed in: standard input ended before every field was answered")
        }
        return answer
    }

    mutating func yesNo(_ question: String) throws -> Bool {
        while true {
            switch try line("\(question) [y/N] ").trimmingSpaces.lowercased() {
            case "y", "yes": return true
            case "", "n", "no": return false
            default: print("Answer y or n.")
            }
        }
    }

    /// Asks for one field until the answer is one the page takes.
    mutating func ask(_ field: SignInForm.Field) throws -> SignInValue {
        let label = field.label.isEmpty ? field.name : field.label
        switch field.kind {
        case "checkbox":
            let terms = field.terms.isEmpty ? label : field.terms
            print(terms + (field.termsURL.isEmpty ? "" : " (\(field.termsURL))"))
            while true {
                let yes = try yesNo(field.required ? "Accept? (required)" : "Tick it?")
                if yes || !field.required { return .checked(yes) }
                print("The page needs this ticked to sign in.")
            }
        case "select":
            print("\(label):")
            for (k, option) in field.options.enumerated() { print("  \(k + 1). \(option.label)") }
            let preset = field.options.firstIndex { $0.value == field.value } ?? 0
            while true {
                let answer = try line("Choose 1-\(field.options.count) [\(preset + 1)]: ").trimmingSpaces
                if answer.isEmpty, !field.options.isEmpty { return .text(field.options[preset].value) }
                if let n = Int(answer), (1...field.options.count).contains(n) { return .text(field.options[n - 1].value) }
                print("Type a number from 1 to \(field.options.count).")
            }
        default:
            let secret = field.kind == "password"
            let preset = secret ? "" : field.value
            while true {
                let answer = try line("\(label)\(preset.isEmpty ? "" : " [\(preset)]")\(field.required ? "" : " (optional)"): ", secret: secret)
                let value = answer.isEmpty ? preset : answer
                if !value.isEmpty || !field.required { return .text(value) }
                print("The page needs this to sign in.")
            }
        }
    }
}

/// `hotspotctl remembered`: the networks whose sign-in the daemon remembers.
struct RememberedCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remembered",
        abstract: "List the networks whose portal sign-in the daemon remembers (the field names, never what was typed).",
        discussion: """
        A sign-in is remembered when you sign in with --remember (hotspotctl sign-in, the desktop's \
        dialog): the next join of that network signs in with it by itself. `hotspotctl forget SSID` \
        forgets it with everything else the daemon learnt about the network. Needs the polkit action \
        org.freedesktop.NetworkManager.HotspotHelper.read-scan-list (network names are location data).
        """)

    @OptionGroup var options: CommonOptions

    struct Document: Encodable {
        var ssid: String
        var host: String
        var fields: [String]
        var saved: UInt64
    }

    func run() async throws {
        let client = try options.client()
        let list = try await request { try await client.rememberedSignIns() }
        let documents = list.map { Document(ssid: SSIDText.display($0.ssid), host: $0.host, fields: $0.fields, saved: $0.saved) }
        if options.json {
            print(Output.json(documents))
            return
        }
        guard !documents.isEmpty else {
            print("No sign-in is remembered.")
            return
        }
        print(Output.table(["SSID", "HOST", "FIELDS", "SAVED"],
                           documents.map { [$0.ssid, Output.dash($0.host), Output.dash($0.fields.joined(separator: ", ")), Output.localTime($0.saved)] }))
    }
}

extension String {
    /// Without the spaces and tabs around it.
    var trimmingSpaces: String {
        let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        return String(drop(while: blank).reversed().drop(while: blank).reversed())
    }
}
