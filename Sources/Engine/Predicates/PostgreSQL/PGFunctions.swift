import Model

/// The functions PostgreSQL needs to evaluate predicates and orderings exactly as the
/// in-memory evaluator does. SQLite calls back into Swift; PostgreSQL cannot, so each piece
/// of Swift behaviour is either written in SQL or exported as data computed by Swift:
///
/// - `fetchd_fold(s, c, d)`: `TextFolding.fold`. Non-ASCII text goes through the table
///   `fetchd_fold_map`, filled from Swift's own Unicode data (lower-case mappings, canonical
///   decompositions without nonspacing marks), so the server's Unicode version never matters.
///   Both foldings work scalar by scalar, except canonical reordering of the few spacing marks
///   with a non-zero combining class: text where that could matter raises an error instead of
///   folding differently.
/// - `fetchd_like_pattern(p)`: an NSPredicate LIKE pattern as a PostgreSQL one (`PGPatterns.like`).
/// - `fetchd_localized_key(s)`: a byte-ordered sort key equal to `localizedStandardCompare`.
/// - `fetchd_exact(d)`: a double as the exact `numeric` it denotes (PostgreSQL's own cast
///   rounds to 15 digits), so integers and doubles compare exactly, as `ScalarOrder` does.
/// - `fetchd_fsum(x ORDER BY x)`: `@sum` of doubles added in ascending order (`Aggregates`).
///
/// Text comparisons use `COLLATE "C"` (byte order = Unicode scalar order).
/// Run `setupStatements` once per schema (in the `search_path`) before querying.
public enum PGFunctions {
    /// The statements creating every function and the fold table, in order.
    public static var setupStatements: [String] {
        [
            """
            CREATE TABLE IF NOT EXISTS fetchd_fold_map (
              cp integer PRIMARY KEY, c text, d text, cd text)
            """,
            "TRUNCATE fetchd_fold_map",
            foldMapInsert,
            """
            CREATE OR REPLACE FUNCTION fetchd_fold(s text, fold_case boolean, fold_marks boolean) RETURNS text
            LANGUAGE plpgsql STABLE PARALLEL SAFE AS $f$
            DECLARE out text;
            BEGIN
              IF s IS NULL OR NOT (fold_case OR fold_marks) THEN RETURN s; END IF;
              IF s ~ '^[\\x01-\\x7f]*$' THEN
                RETURN CASE WHEN fold_case THEN lower(s COLLATE "C") ELSE s END;
              END IF;
              SELECT string_agg(
                       coalesce(CASE WHEN fold_case AND fold_marks THEN m.cd WHEN fold_case THEN m.c ELSE m.d END, t.ch),
                       '' ORDER BY t.n)
                INTO out
                FROM regexp_split_to_table(s, '') WITH ORDINALITY AS t(ch, n)
                LEFT JOIN fetchd_fold_map AS m ON m.cp = ascii(t.ch);
              out := coalesce(out, '');
              IF fold_marks AND out ~ \(reorderHazardLiteral) THEN
                RAISE EXCEPTION 'fetchd_fold: text needs canonical reordering of combining marks'
                  USING ERRCODE = 'FD001';
              END IF;
              RETURN out;
            END $f$
            """,
            """
            CREATE OR REPLACE FUNCTION fetchd_localized_key(s text) RETURNS text
            LANGUAGE sql STABLE PARALLEL SAFE AS $f$
              SELECT CASE WHEN s IS NULL THEN NULL ELSE coalesce((
                SELECT string_agg(
                  CASE WHEN p.part[1] ~ '^[0-9]' THEN
                    -- A digit run, leading zeros dropped: its length (one digit below 9, else
                    -- '9' and ten digits), then its digits. Every form starts with a digit, so
                    -- against other characters it orders as any digit does.
                    CASE WHEN length(ltrim(p.part[1], '0')) < 9
                      THEN length(ltrim(p.part[1], '0'))::text
                      ELSE '9' || lpad(length(ltrim(p.part[1], '0'))::text, 10, '0') END
                    || ltrim(p.part[1], '0')
                  ELSE p.part[1] END, '' ORDER BY p.n)
                FROM regexp_matches(fetchd_fold(s, true, true) COLLATE "C", '[0-9]+|[^0-9]+', 'g')
                  WITH ORDINALITY AS p(part, n)), '') END
            $f$
            """,
            """
            CREATE OR REPLACE FUNCTION fetchd_like_pattern(p text) RETURNS text
            LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $f$
              -- `PGPatterns.like` for a pattern only known per row: escapes and wildcards,
              -- one token at a time (a trailing lone backslash is literal, as in LikePattern).
              SELECT coalesce(string_agg(CASE
                  WHEN t.tok[1] = '*' THEN '%'
                  WHEN t.tok[1] = '?' THEN '_'
                  WHEN right(t.tok[1], 1) IN ('%', '_', '\\') THEN '\\' || right(t.tok[1], 1)
                  ELSE right(t.tok[1], 1) END, '' ORDER BY t.n), '')
              FROM regexp_matches(p, '\\\\.|.', 'g') WITH ORDINALITY AS t(tok, n)
            $f$
            """,
            """
            CREATE OR REPLACE FUNCTION fetchd_exact(d double precision) RETURNS numeric
            LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $f$
              SELECT CASE
                WHEN d = 0 THEN 0::numeric
                WHEN d = 'Infinity'::float8 THEN 'Infinity'::numeric
                WHEN d = '-Infinity'::float8 THEN '-Infinity'::numeric
                WHEN d <> d THEN 'NaN'::numeric
                ELSE (SELECT CASE WHEN bits < 0 THEN -1 ELSE 1 END * CASE
                         WHEN e >= 0 THEN m::numeric * 2::numeric ^ e
                         ELSE m::numeric * 5::numeric ^ (-e) * ('1e' || e)::numeric END
                      FROM (SELECT bits,
                              CASE WHEN (bits >> 52) & 2047 = 0 THEN bits & 4503599627370495
                                ELSE (bits & 4503599627370495) | 4503599627370496 END AS m,
                              CASE WHEN (bits >> 52) & 2047 = 0 THEN -1074
                                ELSE ((bits >> 52) & 2047)::int - 1075 END AS e
                            FROM (SELECT ('x' || encode(float8send(d), 'hex'))::bit(64)::bigint AS bits) AS b) AS f)
              END
            $f$
            """,
            """
            CREATE OR REPLACE FUNCTION fetchd_fsum_step(total double precision, x double precision)
            RETURNS double precision LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS 'SELECT total + x'
            """,
            "DROP AGGREGATE IF EXISTS fetchd_fsum(double precision)",
            """
            CREATE AGGREGATE fetchd_fsum(double precision) (
              SFUNC = fetchd_fsum_step, STYPE = double precision, INITCOND = '0')
            """,
        ]
    }

    // MARK: The fold table

    /// Scalars whose fold differs from themselves under `[c]`, `[d]` or `[cd]`, with the three
    /// folds (nil where the scalar stays itself). Computed from the same Swift functions
    /// `TextFolding` uses, over every assigned scalar.
    static let foldMap: [(scalar: UInt32, lower: String?, bare: String?, both: String?)] = {
        var rows: [(UInt32, String?, String?, String?)] = []
        for v in UInt32(1)...0x10FFFF {
            guard let s = Unicode.Scalar(v) else { continue }
            switch s.properties.generalCategory {
            case .unassigned, .privateUse, .surrogate: continue
            default: break
            }
            let text = String(Character(s))
            func fold(_ c: Bool, _ d: Bool) -> String? {
                let f = TextFolding.fold(text, caseInsensitive: c, diacriticInsensitive: d)
                return f.unicodeScalars.elementsEqual(text.unicodeScalars) ? nil : f
            }
            let row = (v, fold(true, false), fold(false, true), fold(true, true))
            if row.1 != nil || row.2 != nil || row.3 != nil { rows.append(row) }
        }
        return rows
    }()

    private static var foldMapInsert: String {
        var out = "INSERT INTO fetchd_fold_map (cp, c, d, cd) VALUES "
        var first = true
        for row in foldMap {
            if !first { out += ",\n" }
            first = false
            out += "(\(row.scalar), \(literal(row.lower)), \(literal(row.bare)), \(literal(row.both)))"
        }
        return out
    }

    /// A standard SQL string literal (standard_conforming_strings: only quotes are doubled).
    static func literal(_ s: String?) -> String {
        guard let s else { return "NULL" }
        return SchemaNaming.stringLiteral(s)
    }

    /// Folding scalar by scalar equals folding the whole text unless canonical reordering
    /// would move a kept mark: only spacing marks with a non-zero combining class survive
    /// `[d]`, and reordering moves one only past a mark of a lower class. A regex (as a SQL
    /// literal) for "such a mark followed by one of a lower class", over Swift's data.
    static let reorderHazardLiteral: String = {
        var byClass: [UInt8: [UInt32]] = [:]
        for v in UInt32(0)...0x10FFFF {
            guard let s = Unicode.Scalar(v) else { continue }
            let p = s.properties
            let ccc = p.canonicalCombiningClass.rawValue
            if ccc != 0 && p.generalCategory != .nonspacingMark { byClass[ccc, default: []].append(v) }
        }
        let classes = byClass.keys.sorted()
        func set(_ scalars: [UInt32]) -> String { "[" + scalars.map(PGPatterns.escaped).joined() + "]" }
        // For each class boundary: a mark at or above it directly followed by one below it.
        let branches = classes.indices.dropFirst().map { i in
            set(classes[i...].flatMap { byClass[$0]! }) + set(classes[..<i].flatMap { byClass[$0]! })
        }
        return literal(branches.isEmpty ? "$^" : "(" + branches.joined(separator: "|") + ")")
    }()
}
