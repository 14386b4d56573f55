/// ISO 8601 text for `.date` values, without Foundation so every module prints dates alike.
///
/// Output is always UTC with milliseconds: `2024-05-01T12:00:00.000Z`. Input accepts a date
/// alone (`2024-05-01`, midnight UTC), or a date and time with optional seconds and
/// fraction, and `Z` or an offset (`+02:00`, `+0200`, `-05`). A time without a zone is UTC.
public enum ISO8601 {
    public static func format(_ seconds: Double) -> String {
        let millis = (seconds * 1000).rounded()
        var ms = Int64(millis)
        let days = ms >= 0 ? ms / 86_400_000 : -((-ms + 86_399_999) / 86_400_000)
        ms -= days * 86_400_000
        let (y, m, d) = civil(fromDays: days)
        let h = ms / 3_600_000
        let mi = (ms / 60_000) % 60
        let s = (ms / 1000) % 60
        let f = ms % 1000
        return "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))T\(pad(h, 2)):\(pad(mi, 2)):\(pad(s, 2)).\(pad(f, 3))Z"
    }

    /// Seconds since 1970 UTC, rounded to the millisecond; nil when `text` is not ISO 8601.
    public static func parse(_ text: String) -> Double? {
        var p = Scanner(Array(text.utf8))
        guard let y = p.digits(4), p.take(UInt8(ascii: "-")), let mo = p.digits(2), p.take(UInt8(ascii: "-")),
            let d = p.digits(2), (1...12).contains(mo), (1...daysIn(month: mo, year: y)).contains(d)
        else { return nil }
        var seconds = Double(days(fromCivil: y, mo, d)) * 86_400
        if p.atEnd { return seconds }
        guard p.take(UInt8(ascii: "T")) || p.take(UInt8(ascii: "t")) || p.take(UInt8(ascii: " ")),
            let h = p.digits(2), p.take(UInt8(ascii: ":")), let mi = p.digits(2), h < 24, mi < 60
        else { return nil }
        var time = Double(h * 3600 + mi * 60)
        if p.take(UInt8(ascii: ":")) {
            guard let s = p.digits(2), s < 60 else { return nil }
            time += Double(s)
            if p.take(UInt8(ascii: ".")) || p.take(UInt8(ascii: ",")) {
                var scale = 0.1
                var any = false
                while let c = p.peek, c >= 48, c <= 57 {
                    time += Double(c - 48) * scale
                    scale /= 10
                    p.i += 1
                    any = true
                }
                guard any else { return nil }
            }
        }
        seconds += time
        if p.take(UInt8(ascii: "Z")) || p.take(UInt8(ascii: "z")) {
        } else if let sign = p.peek, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
            p.i += 1
            guard let oh = p.digits(2), oh < 24 else { return nil }
            var om = 0
            if p.take(UInt8(ascii: ":")) {
                guard let m = p.digits(2) else { return nil }
                om = m
            } else if let m = p.digits(2) {
                om = m
            }
            guard om < 60 else { return nil }
            let offset = Double(oh * 3600 + om * 60)
            seconds += sign == UInt8(ascii: "+") ? -offset : offset
        }
        guard p.atEnd else { return nil }
        return (seconds * 1000).rounded() / 1000
    }

    private struct Scanner {
        let bytes: [UInt8]
        var i = 0
        init(_ bytes: [UInt8]) { self.bytes = bytes }
        var atEnd: Bool { i == bytes.count }
        var peek: UInt8? { i < bytes.count ? bytes[i] : nil }
        mutating func take(_ c: UInt8) -> Bool {
            if peek == c {
                i += 1
                return true
            }
            return false
        }
        mutating func digits(_ n: Int) -> Int? {
            guard i + n <= bytes.count else { return nil }
            var v = 0
            for k in i..<(i + n) {
                let c = bytes[k]
                guard c >= 48, c <= 57 else { return nil }
                v = v * 10 + Int(c - 48)
            }
            i += n
            return v
        }
    }

    private static func pad(_ v: Int64, _ width: Int) -> String {
        let s = String(v < 0 ? -v : v)
        return (v < 0 ? "-" : "") + String(repeating: "0", count: max(0, width - s.count)) + s
    }
    private static func pad(_ v: Int, _ width: Int) -> String { pad(Int64(v), width) }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    // Howard Hinnant's civil-calendar day counts (proleptic Gregorian).
    private static func days(fromCivil y0: Int, _ m: Int, _ d: Int) -> Int64 {
        let y = Int64(m <= 2 ? y0 - 1 : y0)
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = Int64(m > 2 ? m - 3 : m + 9)
        let doy = (153 * mp + 2) / 5 + Int64(d) - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    private static func civil(fromDays z0: Int64) -> (Int64, Int64, Int64) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }
}
