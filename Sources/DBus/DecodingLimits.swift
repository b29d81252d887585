// SPDX-License-Identifier: Apache-2.0
/// How much of a received message this layer decodes. libdbus has validated
/// the message and holds its bytes; these limits stop a peer from making the process build a
/// huge tree of Swift values from it: sizes are checked before anything is decoded, and a message
/// over a limit is refused with an error naming the limit.
public struct DecodingLimits: Sendable, Equatable {
    /// The longest `ay` accepted, in bytes.
    public var maximumByteArray: Int
    /// The most items in any other array or dictionary.
    public var maximumArrayItems: Int
    /// The longest string, object path or signature, in bytes.
    public var maximumString: Int
    /// The most values in one message, counting every item of every container.
    public var maximumValues: Int
    /// The deepest nesting of containers (the specification allows 64).
    public var maximumDepth: Int

    public init(maximumByteArray: Int = 1 << 20, maximumArrayItems: Int = 65_536, maximumString: Int = 1 << 20,
                maximumValues: Int = 262_144, maximumDepth: Int = 32) {
        self.maximumByteArray = maximumByteArray
        self.maximumArrayItems = maximumArrayItems
        self.maximumString = maximumString
        self.maximumValues = maximumValues
        self.maximumDepth = maximumDepth
    }

    /// Generous for every message this project exchanges, small enough that no message can
    /// cost more than a few tens of MiB to decode.
    public static let standard = DecodingLimits()
}

/// What is left of the limits while one message is decoded.
struct DecodingBudget {
    let limits: DecodingLimits
    var valuesLeft: Int

    init(_ limits: DecodingLimits) {
        self.limits = limits
        self.valuesLeft = limits.maximumValues
    }

    mutating func take(_ n: Int) throws(DBusError) {
        guard n <= valuesLeft else {
            throw .invalidValue("a received message holds more than \(limits.maximumValues) values, the most this connection decodes (DecodingLimits.maximumValues)")
        }
        valuesLeft -= n
    }

    func checkDepth(_ depth: Int) throws(DBusError) {
        guard depth <= limits.maximumDepth else {
            throw .invalidValue("a received message nests containers deeper than \(limits.maximumDepth) levels (DecodingLimits.maximumDepth)")
        }
    }

    func checkString(_ length: Int) throws(DBusError) {
        guard length <= limits.maximumString else {
            throw .invalidValue("a received string of \(length) bytes is longer than the \(limits.maximumString) this connection accepts (DecodingLimits.maximumString)")
        }
    }

    func checkBytes(_ count: Int) throws(DBusError) {
        guard count <= limits.maximumByteArray else {
            throw .invalidValue("a received byte array of \(count) bytes is larger than the \(limits.maximumByteArray) this connection accepts (DecodingLimits.maximumByteArray)")
        }
    }

    func checkItems(_ count: Int) throws(DBusError) {
        guard count <= limits.maximumArrayItems else {
            throw .invalidValue("a received array has more than the \(limits.maximumArrayItems) items this connection accepts (DecodingLimits.maximumArrayItems)")
        }
    }
}
