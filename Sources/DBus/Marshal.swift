// SPDX-License-Identifier: Apache-2.0
import CDBus
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

// Marshalling between `DBusValue` and libdbus message iterators. Everything here runs on the
// connection's thread (or in tests, on a message no other thread sees). Values are validated
// before the first append, so libdbus's abort-on-invalid-argument checks can never fire.

enum Marshal {
    /// Appends already-validated `values` to `message`.
    static func append(_ values: [DBusValue], to message: OpaquePointer) throws(DBusError) {
        var iter = DBusMessageIter()
        dbus_message_iter_init_append(message, &iter)
        for v in values {
            guard append(v, to: &iter) else { throw .invalidValue("out of memory while building a D-Bus message") }
        }
    }

    /// Validates `values` as a message body (each value and the whole signature).
    static func validateBody(_ values: [DBusValue]) throws(DBusError) {
        for v in values { try v.validate() }
        guard values.reduce(0, { $0 + $1.signatureLength }) <= 255 else {
            throw .invalidValue("message body signature is longer than 255 characters")
        }
    }

    private static func appendBasic<T>(_ iter: inout DBusMessageIter, _ code: UInt8, _ value: T) -> Bool {
        var v = value
        return withUnsafePointer(to: &v) { p in
            dbus_message_iter_append_basic(&iter, Int32(code), UnsafeRawPointer(p)) != 0
        }
    }

    private static func appendString(_ iter: inout DBusMessageIter, _ code: UInt8, _ s: String) -> Bool {
        s.withCString { cstr in
            var p: UnsafePointer<CChar>? = cstr
            return withUnsafePointer(to: &p) { pp in
                dbus_message_iter_append_basic(&iter, Int32(code), UnsafeRawPointer(pp)) != 0
            }
        }
    }

    private static func append(_ value: DBusValue, to iter: inout DBusMessageIter) -> Bool {
        switch value {
        case .byte(let v): return appendBasic(&iter, UInt8(ascii: "y"), v)
        case .bool(let v): return appendBasic(&iter, UInt8(ascii: "b"), dbus_bool_t(v ? 1 : 0))
        case .int16(let v): return appendBasic(&iter, UInt8(ascii: "n"), v)
        case .uint16(let v): return appendBasic(&iter, UInt8(ascii: "q"), v)
        case .int32(let v): return appendBasic(&iter, UInt8(ascii: "i"), v)
        case .uint32(let v): return appendBasic(&iter, UInt8(ascii: "u"), v)
        case .int64(let v): return appendBasic(&iter, UInt8(ascii: "x"), v)
        case .uint64(let v): return appendBasic(&iter, UInt8(ascii: "t"), v)
        case .double(let v): return appendBasic(&iter, UInt8(ascii: "d"), v)
        case .string(let s): return appendString(&iter, UInt8(ascii: "s"), s)
        case .objectPath(let p): return appendString(&iter, UInt8(ascii: "o"), p.rawValue)
        case .signature(let g): return appendString(&iter, UInt8(ascii: "g"), g.rawValue)
        case .unixFD(let fd): return appendBasic(&iter, UInt8(ascii: "h"), fd.rawValue)
        case .byteArray(let bytes):
            return appendBytes(&iter, bytes)
        case .array(.byte, let items):
            var bytes = [UInt8](); bytes.reserveCapacity(items.count)
            for case .byte(let b) in items { bytes.append(b) }
            return appendBytes(&iter, bytes)
        case .array(let element, let items):
            return container(&iter, UInt8(ascii: "a"), contained: { element.writeSignature(to: &$0) }) { sub in
                for item in items where !append(item, to: &sub) { return false }
                return true
            }
        case .dictionary(let k, let v, let entries):
            return container(&iter, UInt8(ascii: "a"), contained: {
                $0.append(UInt8(ascii: "{")); k.writeSignature(to: &$0); v.writeSignature(to: &$0); $0.append(UInt8(ascii: "}"))
            }) { sub in
                for entry in entries {
                    let ok = container(&sub, UInt8(ascii: "e"), contained: nil) { e in
                        append(entry.key, to: &e) && append(entry.value, to: &e)
                    }
                    if !ok { return false }
                }
                return true
            }
        case .structure(let fields):
            return container(&iter, UInt8(ascii: "r"), contained: nil) { sub in
                for f in fields where !append(f, to: &sub) { return false }
                return true
            }
        case .variant(let inner):
            return container(&iter, UInt8(ascii: "v"), contained: { inner.writeSignature(to: &$0) }) { sub in append(inner, to: &sub) }
        }
    }

    private static func appendBytes(_ iter: inout DBusMessageIter, _ bytes: [UInt8]) -> Bool {
        container(&iter, UInt8(ascii: "a"), contained: { $0.append(UInt8(ascii: "y")) }) { sub in
            bytes.withUnsafeBufferPointer { buf in
                var base = buf.baseAddress ?? UnsafePointer(bitPattern: 1)!
                return withUnsafePointer(to: &base) { pp in
                    dbus_message_iter_append_fixed_array(&sub, Int32(UInt8(ascii: "y")), UnsafeRawPointer(pp), Int32(buf.count)) != 0
                }
            }
        }
    }

    /// Opens a container of type `code`; `contained` writes the contained signature (arrays and
    /// variants) into a buffer on the stack (a body's signature is at most 255 bytes), so no
    /// `String` is built for it.
    private static func container(_ iter: inout DBusMessageIter, _ code: UInt8, contained: ((inout SignatureBuffer) -> Void)?,
                                  _ body: (inout DBusMessageIter) -> Bool) -> Bool {
        var sub = DBusMessageIter()
        let opened: Bool
        if let contained {
            opened = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 256) { storage -> Bool in
                var signature = SignatureBuffer(UnsafeMutableBufferPointer(rebasing: storage[..<255]))
                contained(&signature)
                storage[signature.count] = 0
                return storage.withMemoryRebound(to: CChar.self) { dbus_message_iter_open_container(&iter, Int32(code), $0.baseAddress, &sub) } != 0
            }
        } else {
            opened = dbus_message_iter_open_container(&iter, Int32(code), nil, &sub) != 0
        }
        guard opened else { return false }
        guard body(&sub) else {
            dbus_message_iter_abandon_container_if_open(&iter, &sub)
            return false
        }
        return dbus_message_iter_close_container(&iter, &sub) != 0
    }

    // MARK: decoding

    /// Decodes the whole body of `message`, within `limits`: every size is checked before the
    /// values it announces are built.
    static func decodeBody(_ message: OpaquePointer, limits: DecodingLimits = .standard) throws(DBusError) -> [DBusValue] {
        var iter = DBusMessageIter()
        guard dbus_message_iter_init(message, &iter) != 0 else { return [] }
        var budget = DecodingBudget(limits)
        var values: [DBusValue] = []
        repeat {
            values.append(try decode(&iter, depth: 0, &budget))
        } while dbus_message_iter_next(&iter) != 0
        return values
    }

    private static func basic<T>(_ iter: inout DBusMessageIter, _ initial: T) -> T {
        var v = initial
        withUnsafeMutablePointer(to: &v) { dbus_message_iter_get_basic(&iter, UnsafeMutableRawPointer($0)) }
        return v
    }

    private static func cString(_ iter: inout DBusMessageIter, _ budget: DecodingBudget) throws(DBusError) -> String {
        var p: UnsafePointer<CChar>? = nil
        withUnsafeMutablePointer(to: &p) { dbus_message_iter_get_basic(&iter, UnsafeMutableRawPointer($0)) }
        guard let p else { return "" }
        try budget.checkString(strlen(p))
        return String(cString: p)
    }

    private static func iterSignature(_ iter: inout DBusMessageIter) throws(DBusError) -> DBusType {
        guard let raw = dbus_message_iter_get_signature(&iter) else {
            throw .invalidValue("out of memory while reading a D-Bus message")
        }
        defer { dbus_free(raw) }
        let text = String(cString: raw)
        if let known = typeCache.withLock({ $0[text] }) { return known }
        let type = try DBusType(text)
        typeCache.withLock { cache in if cache.count < 256 { cache[text] = type } }
        return type
    }

    /// The types of the container signatures seen in received messages (`a{sv}`, `ao`…), so each
    /// is parsed once rather than for every array read. Bounded: a peer sending ever new
    /// signatures only makes them parsed each time.
    private static let typeCache = Mutex<[String: DBusType]>([:])

    static func decode(_ iter: inout DBusMessageIter, depth: Int, _ budget: inout DecodingBudget) throws(DBusError) -> DBusValue {
        try budget.take(1)
        let code = dbus_message_iter_get_arg_type(&iter)
        switch UInt8(truncatingIfNeeded: code) {
        case UInt8(ascii: "y"): return .byte(basic(&iter, UInt8(0)))
        case UInt8(ascii: "b"): return .bool(basic(&iter, dbus_bool_t(0)) != 0)
        case UInt8(ascii: "n"): return .int16(basic(&iter, Int16(0)))
        case UInt8(ascii: "q"): return .uint16(basic(&iter, UInt16(0)))
        case UInt8(ascii: "i"): return .int32(basic(&iter, Int32(0)))
        case UInt8(ascii: "u"): return .uint32(basic(&iter, UInt32(0)))
        case UInt8(ascii: "x"): return .int64(basic(&iter, Int64(0)))
        case UInt8(ascii: "t"): return .uint64(basic(&iter, UInt64(0)))
        case UInt8(ascii: "d"): return .double(basic(&iter, Double(0)))
        case UInt8(ascii: "s"): return .string(try cString(&iter, budget))
        // libdbus validated the body's paths when the message was read.
        case UInt8(ascii: "o"): return .objectPath(ObjectPath(validatedByLibdbus: try cString(&iter, budget)))
        case UInt8(ascii: "g"): return .signature(try Signature(try cString(&iter, budget)))
        case UInt8(ascii: "h"):
            // libdbus duplicates the descriptor for us: we own it.
            return .unixFD(FileDescriptor(basic(&iter, Int32(-1)), owned: true))
        case UInt8(ascii: "v"):
            try budget.checkDepth(depth + 1)
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(&iter, &sub)
            return .variant(try decode(&sub, depth: depth + 1, &budget))
        case UInt8(ascii: "r"):
            try budget.checkDepth(depth + 1)
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(&iter, &sub)
            var fields: [DBusValue] = []
            while dbus_message_iter_get_arg_type(&sub) != 0 {
                fields.append(try decode(&sub, depth: depth + 1, &budget))
                dbus_message_iter_next(&sub)
            }
            return .structure(fields)
        case UInt8(ascii: "a"):
            try budget.checkDepth(depth + 1)
            let type = try iterSignature(&iter)
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(&iter, &sub)
            if case .array(.byte) = type {
                // One buffer, sized before it is copied: never one value per byte.
                var ptr: UnsafePointer<UInt8>? = nil
                var n: Int32 = 0
                withUnsafeMutablePointer(to: &ptr) { dbus_message_iter_get_fixed_array(&sub, UnsafeMutableRawPointer($0), &n) }
                try budget.checkBytes(Int(n))
                return .byteArray(ptr.map { Array(UnsafeBufferPointer(start: $0, count: Int(n))) } ?? [])
            }
            // Checked item by item: counting first (dbus_message_iter_get_element_count) walks
            // the whole array once more. Every item also takes from the values budget.
            switch type {
            case .array(let element):
                var items: [DBusValue] = []
                while dbus_message_iter_get_arg_type(&sub) != 0 {
                    try budget.checkItems(items.count + 1)
                    items.append(try decode(&sub, depth: depth + 1, &budget))
                    dbus_message_iter_next(&sub)
                }
                return .array(element: element, items)
            case .dictionary(let k, let v):
                try budget.checkDepth(depth + 2)
                var entries: [DictEntry] = []
                while dbus_message_iter_get_arg_type(&sub) != 0 {
                    try budget.checkItems(entries.count + 1)
                    var e = DBusMessageIter()
                    dbus_message_iter_recurse(&sub, &e)
                    let key = try decode(&e, depth: depth + 2, &budget)
                    dbus_message_iter_next(&e)
                    let value = try decode(&e, depth: depth + 2, &budget)
                    entries.append(DictEntry(key, value))
                    dbus_message_iter_next(&sub)
                }
                return .dictionary(key: k, value: v, entries)
            default:
                throw .invalidValue("array iterator with non-array signature \(type.signature)")
            }
        default:
            throw .invalidValue("unknown D-Bus type code \(code) in a received message")
        }
    }
}
