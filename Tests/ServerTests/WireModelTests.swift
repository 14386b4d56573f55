import JSON
import Model
import Testing

@testable import Server

@Suite struct WireModelTests {
    /// protocol.md §5's `Model` example, plus an optional date with a default.
    static let contacts = """
        {"entities": [
          {"name": "Contact",
           "attributes": {"name": {"type": "string"}, "phone": {"type": "string", "optional": true},
                          "age": {"type": "integer", "default": 0, "indexed": true},
                          "born": {"type": "date", "optional": true, "default": "2000-01-01"}},
           "relationships": {"group": {"destination": "Group", "toMany": false, "inverse": "members", "deleteRule": "nullify"}}},
          {"name": "Group", "attributes": {"title": {"type": "string"}},
           "relationships": {"members": {"destination": "Contact", "toMany": true, "inverse": "group", "deleteRule": "cascade"}}}
        ]}
        """

    private func failure(_ text: String) throws -> (String, String)? {
        do {
            _ = try WireModel.decode(try JSON.parse(Array(text.utf8)))
            return nil
        } catch let e as EngineError {
            #expect(e.kind == .invalidModel)
            guard case .string(let p)? = e.detail("path"), case .string(let r)? = e.detail("reason") else {
                return ("?", "?")
            }
            return (p, r)
        }
    }

    @Test func decodesTheProtocolModelExample() throws {
        let model = try WireModel.decode(try JSON.parse(Array(Self.contacts.utf8)))
        let contact = try #require(model.entity("Contact"))
        #expect(contact.attributes.map(\.name) == ["name", "phone", "age", "born"])
        #expect(
            contact.attribute("age") == Attribute(name: "age", type: .integer, defaultValue: .integer(0), indexed: true)
        )
        #expect(contact.attribute("born")?.defaultValue == .date(946_684_800))
        #expect(
            contact.relationship("group")
                == Relationship(name: "group", destination: "Group", toMany: false, inverse: "members"))
        #expect(model.entity("Group")?.relationship("members")?.deleteRule == .cascade)
    }

    @Test func namesThePathOfEachProblem() throws {
        #expect(
            try failure(#"{"entities": [{"name": "A", "attributes": {"x": {"type": "text"}}}]}"#)?.0
                == "entities[0].attributes.x.type")
        #expect(
            try failure(#"{"entities": [{"name": "A", "attributes": {"x": {"type": "integer", "default": "zero"}}}]}"#)?
                .0
                == "entities[0].attributes.x.default")
        #expect(
            try failure(
                #"{"entities": [{"name": "A", "relationships": {"b": {"destination": "B", "inverse": "a"}}}]}"#)?.0
                == "entities[0].relationships.b.destination")
        #expect(
            try failure(#"{"entities": [{"name": "A", "relationships": {"b": {"destination": "A"}}}]}"#)?.0
                == "entities[0].relationships.b.inverse")
        #expect(
            try failure(
                #"{"entities": [{"name": "A", "relationships": {"b": {"destination": "A", "inverse": "b", "deleteRule": "explode"}}}]}"#
            )?.0
                == "entities[0].relationships.b.deleteRule")
        #expect(try failure(#"{"entities": [{"name": "A", "colour": "red"}]}"#)?.0 == "entities[0].colour")
        #expect(
            try failure(#"{"entities": [{"name": "A", "attributes": {"id": {"type": "string"}}}]}"#)?.1
                == "reserved name id")
        #expect(try failure(#"{"entities": {}}"#)?.0 == "entities")
        #expect(try failure(#"[]"#)?.0 == "model")
        let inverse = try failure(
            """
            {"entities": [{"name": "A", "relationships": {"b": {"destination": "B", "inverse": "x"}}},
                          {"name": "B", "relationships": {"x": {"destination": "A", "inverse": "other"}, "other": {"destination": "A", "inverse": "x"}}}]}
            """)
        #expect(inverse?.0 == "entities[0].relationships.b.inverse")
        #expect(inverse?.1.contains("does not point back") == true)
    }
}
