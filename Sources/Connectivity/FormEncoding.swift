// SPDX-License-Identifier: Apache-2.0
/// `application/x-www-form-urlencoded` encoding (WHATWG URL, "urlencoded serializer"): bytes
/// outside `A-Z a-z 0-9 * - . _` are percent-encoded, a space becomes `+`. Used by the WISPr client
/// and the built-in helpers' form posts. Pure.
public enum FormEncoding {
    /// One name or value, encoded.
    public static func encode(_ s: String) -> String {
        var out = ""
        out.reserveCapacity(s.utf8.count)
        let hex = Array("0123456789ABCDEF".utf8)
        for b in s.utf8 {
            switch b {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "*"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"):
                out.unicodeScalars.append(Unicode.Scalar(b))
            case UInt8(ascii: " "):
                out += "+"
            default:
                out += "%"
                out.unicodeScalars.append(Unicode.Scalar(hex[Int(b >> 4)]))
                out.unicodeScalars.append(Unicode.Scalar(hex[Int(b & 0xF)]))
            }
        }
        return out
    }

    /// Pairs joined as a form body: `a=1&b=2`.
    public static func body(_ pairs: [(String, String)]) -> String {
        pairs.map { encode($0.0) + "=" + encode($0.1) }.joined(separator: "&")
    }
}
