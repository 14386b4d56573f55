import CJansson

/// Why a text is not JSON fetchd accepts. `reason` is what the wire's `data.reason` says.
public struct JSONParseError: Error, Equatable, Sendable, CustomStringConvertible {
    public var reason: String
    /// 1-based line and column, and 0-based byte position, of the problem (as jansson reports them).
    public var line: Int
    public var column: Int
    public var position: Int

    /// jansson refused the text only for a U+0000 in an object key (valid JSON).
    var nulInKey = false

    public init(reason: String, line: Int = 0, column: Int = 0, position: Int = 0) {
        self.reason = reason
        self.line = line
        self.column = column
        self.position = position
    }

    public var description: String { "\(reason) (line \(line), column \(column))" }
}

extension JSON {
    /// Parses one JSON text of any type (`JSON_DECODE_ANY`), so a caller can tell "not JSON"
    /// from "JSON, but not what I wanted". Strings may contain U+0000 (`JSON_ALLOW_NUL`); the
    /// writer escapes it back as `\u0000`. jansson caps nesting at 2048 levels, which keeps
    /// both its parser and our conversion below off the end of the stack. The text is read
    /// straight into `JSON` where `JSONDirectParser` is sure of it, by jansson otherwise.
    public static func parse(_ bytes: UnsafeRawBufferPointer) throws(JSONParseError) -> JSON {
        if let value = JSONDirectParser.parse(bytes) { return value }
        do {
            return try parseWithJansson(bytes)
        } catch  where error.nulInKey {
            // Valid JSON that jansson's objects cannot hold: a key with U+0000. Read it here,
            // so the message is answered with its id (an unknown key, a bad name) instead of
            // as a parse error nobody waits for.
            if let value = JSONDirectParser.parse(bytes, nulKeys: true) { return value }
            throw error
        }
    }

    /// What `JSONDirectParser` reads straight from the bytes, or nil where it leaves the text
    /// to jansson (exposed so tests can hold the two parsers against each other).
    public static func parseDirectly(_ bytes: UnsafeRawBufferPointer) -> JSON? { JSONDirectParser.parse(bytes) }

    /// jansson's reading of the text: the reference for what fetchd accepts, and the source
    /// of every parse error's reason and position.
    public static func parseWithJansson(_ bytes: UnsafeRawBufferPointer) throws(JSONParseError) -> JSON {
        var error = json_error_t()
        let flags = Int(JSON_DECODE_ANY | JSON_ALLOW_NUL)
        let base = bytes.baseAddress?.assumingMemoryBound(to: CChar.self)
        // jansson wants a non-null pointer even for an empty buffer.
        guard
            let root = withUnsafePointer(
                to: CChar(0),
                { empty in
                    json_loadb(base ?? empty, bytes.count, flags, &error)
                })
        else {
            throw JSONParseError(jansson: &error)
        }
        defer { json_decref(root) }
        return JSON(jansson: root)
    }

    public static func parse(_ bytes: [UInt8]) throws(JSONParseError) -> JSON {
        let result: Result<JSON, JSONParseError> = bytes.withUnsafeBytes { raw in
            do throws(JSONParseError) { return .success(try parse(raw)) } catch { return .failure(error) }
        }
        return try result.get()
    }

    public static func parse(_ text: String) throws(JSONParseError) -> JSON {
        try parse(Array(text.utf8))
    }

    /// Converts a jansson tree. Recursion is bounded by jansson's parse depth limit (2048).
    init(jansson value: UnsafeMutablePointer<json_t>) {
        switch cjansson_typeof(value) {
        case JSON_OBJECT:
            var object = JSONObject()
            object.reserveCapacity(json_object_size(value))
            var iterator = json_object_iter(value)
            while let it = iterator {
                let key = String(cString: json_object_iter_key(it))
                object.appendUnique(key, JSON(jansson: json_object_iter_value(it)))
                iterator = json_object_iter_next(value, it)
            }
            self = .object(object)
        case JSON_ARRAY:
            let count = json_array_size(value)
            var items: [JSON] = []
            items.reserveCapacity(count)
            for i in 0..<count { items.append(JSON(jansson: json_array_get(value, i))) }
            self = .array(items)
        case JSON_STRING:
            let length = json_string_length(value)
            let chars = UnsafeRawPointer(json_string_value(value)!)
            // jansson has already validated the UTF-8.
            self = .string(String(decoding: UnsafeRawBufferPointer(start: chars, count: length), as: UTF8.self))
        case JSON_INTEGER:
            self = .integer(Int64(json_integer_value(value)))
        case JSON_REAL:
            self = .double(json_real_value(value))
        case JSON_TRUE:
            self = .bool(true)
        case JSON_FALSE:
            self = .bool(false)
        default:
            self = .null
        }
    }
}

extension JSONParseError {
    init(jansson error: inout json_error_t) {
        let text = withUnsafeBytes(of: &error.text) { raw in
            String(cString: raw.baseAddress!.assumingMemoryBound(to: CChar.self))
        }
        let reason: String
        switch json_error_code(&error) {
        case json_error_numeric_overflow where text.contains("integer"):
            reason = "integer outside the 64-bit range (fetchd integers are int64): \(text)"
        case json_error_stack_overflow:
            reason = "nesting too deep (the limit is 2048 levels)"
        default:
            reason = text
        }
        self.init(reason: reason, line: Int(error.line), column: Int(error.column), position: Int(error.position))
        nulInKey = json_error_code(&error) == json_error_null_byte_in_key
    }
}
