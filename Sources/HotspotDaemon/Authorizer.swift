import DBus
import HotspotProtocol

/// Decides whether a caller may perform an action: root always may; everyone else asks polkit
/// (org.freedesktop.PolicyKit1 on the system bus). With no polkit on the bus, only root may.
public struct Authorizer: Sendable {
    public enum Answer: String, Sendable { case yes, no, challenge }

    let connection: Connection
    static let polkit: BusName = "org.freedesktop.PolicyKit1"
    static let authorityPath: ObjectPath = "/org/freedesktop/PolicyKit1/Authority"
    static let authority: InterfaceName = "org.freedesktop.PolicyKit1.Authority"

    public init(connection: Connection) { self.connection = connection }

    /// Asks without prompting (for CheckPermission).
    public func check(_ action: HotspotContract.Action, sender: String) async -> Answer {
        await ask(action, sender: sender, interactive: false).answer
    }

    /// Throws NotAuthorized, naming the action, unless the caller may perform it. polkit may
    /// prompt the user through their authentication agent.
    public func require(_ action: HotspotContract.Action, sender: String) async throws {
        let (answer, why) = await ask(action, sender: sender, interactive: true)
        guard answer == .yes else {
            throw HotspotError(.notAuthorized, "not authorized to \(action.purpose) (polkit action \(action.id)): \(why)")
        }
    }

    private func ask(_ action: HotspotContract.Action, sender: String, interactive: Bool) async -> (answer: Answer, why: String) {
        if let creds = try? await connection.credentials(of: sender), creds.uid == 0 { return (.yes, "root") }
        let subject: DBusValue = .structure([.string("system-bus-name"), .varDict(["name": .string(sender)])])
        do {
            let reply = try await connection.call(
                destination: Self.polkit, path: Self.authorityPath, interface: Self.authority, member: "CheckAuthorization",
                body: [subject, .string(action.id), .dictionary(key: .string, value: .string, []), .uint32(interactive ? 1 : 0), .string("")],
                timeout: interactive ? .seconds(120) : .seconds(10))
            guard let fields = reply.first?.structFields, fields.count >= 2, let authorized = fields[0].bool, let challenge = fields[1].bool else {
                return (.no, "polkit gave an unexpected answer")
            }
            if authorized { return (.yes, "") }
            return challenge ? (.challenge, "authentication is required and none was given") : (.no, "polkit denied it")
        } catch let error as DBusError where [DBusErrorName.serviceUnknown, DBusErrorName.nameHasNoOwner].contains(error.name) {
            return (.no, "polkit is not running, so only root may do this")
        } catch {
            return (.no, "polkit could not be asked: \(error)")
        }
    }
}
