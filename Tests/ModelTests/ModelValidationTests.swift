import Model
import Testing

@Suite struct ModelValidationTests {
    static func contactsModel() -> ObjectModel {
        ObjectModel(entities: [
            Entity(
                name: "Contact",
                attributes: [
                    Attribute(name: "name", type: .string),
                    Attribute(name: "age", type: .integer, defaultValue: .integer(0)),
                ],
                relationships: [Relationship(name: "group", destination: "Group", toMany: false, inverse: "members")]),
            Entity(
                name: "Group", attributes: [Attribute(name: "title", type: .string)],
                relationships: [Relationship(name: "members", destination: "Contact", toMany: true, inverse: "group")]),
        ])
    }

    private func failure(_ model: ObjectModel) -> (path: String, reason: String)? { validationFailure(model) }

    @Test func acceptsAConsistentModel() throws {
        try Self.contactsModel().validate()
    }

    @Test func rejectsRelationshipToUnknownEntity() {
        var m = Self.contactsModel()
        m.entities[0].relationships[0].destination = "Team"
        m = ObjectModel(entities: m.entities)
        #expect(failure(m)?.path == "entities[0].relationships.group.destination")
    }

    @Test func rejectsInverseThatDoesNotPointBack() {
        var entities = Self.contactsModel().entities
        entities[1].relationships.append(
            Relationship(name: "owner", destination: "Contact", toMany: false, inverse: "group"))
        let f = failure(ObjectModel(entities: entities))
        #expect(f?.path == "entities[1].relationships.owner.inverse")
        #expect(f?.reason.contains("does not point back") == true)
    }

    @Test func rejectsMissingInverse() {
        var entities = Self.contactsModel().entities
        entities[0].relationships[0].inverse = "people"
        #expect(failure(ObjectModel(entities: entities))?.path == "entities[0].relationships.group.inverse")
    }

    @Test func rejectsReservedAndInvalidNames() {
        var entities = Self.contactsModel().entities
        entities[0].attributes.append(Attribute(name: "id", type: .string))
        #expect(failure(ObjectModel(entities: entities))?.path == "entities[0].attributes.id")

        entities = Self.contactsModel().entities
        entities[0].attributes.append(Attribute(name: "_version", type: .integer))
        #expect(failure(ObjectModel(entities: entities))?.reason.contains("invalid name") == true)

        entities = Self.contactsModel().entities
        entities.append(Entity(name: "sqlite_master", attributes: []))
        #expect(failure(ObjectModel(entities: entities))?.path == "entities[2].name")

        entities = Self.contactsModel().entities
        entities.append(Entity(name: "Bad/Name", attributes: []))
        #expect(failure(ObjectModel(entities: entities))?.path == "entities[2].name")
    }

    @Test func rejectsNamesThatDifferOnlyByCase() {
        var entities = Self.contactsModel().entities
        entities.append(Entity(name: "contact", attributes: []))
        #expect(failure(ObjectModel(entities: entities))?.path == "entities[2].name")

        entities = Self.contactsModel().entities
        entities[0].attributes.append(Attribute(name: "Name", type: .string))
        #expect(failure(ObjectModel(entities: entities))?.reason == "duplicate key")
    }

    @Test func rejectsDefaultOfWrongType() {
        var entities = Self.contactsModel().entities
        entities[0].attributes[1].defaultValue = .string("zero")
        #expect(failure(ObjectModel(entities: entities))?.path == "entities[0].attributes.age.default")
    }

    @Test func typeChecksValuesAgainstTheEntity() throws {
        let contact = Self.contactsModel().entity("Contact")!
        try contact.check("name", .string("Ana"))
        try contact.check("name", .null)
        try contact.check("group", .object(ObjectID(entity: "Group", number: 1)))
        #expect(throws: EngineError.self) { try contact.check("name", .integer(1)) }
        #expect(throws: EngineError.self) {
            try contact.check("group", .object(ObjectID(entity: "Contact", number: 1)))
        }
        #expect(throws: EngineError.self) { try contact.check("group", .objects([])) }
        do {
            try contact.check("nickname", .string("x"))
            Issue.record("accepted an unknown key")
        } catch {
            #expect(error.kind == .unknownKey)
            #expect(error.detail("key") == .string("nickname"))
        }
        do {
            try contact.check("age", .double(1.5))
            Issue.record("accepted a double")
        } catch {
            #expect(error.kind == .typeMismatch)
            #expect(error.detail("entity") == .string("Contact"))
        }
    }
}

/// The `invalidModel` error's path and reason, nil when the model is valid.
func validationFailure(_ model: ObjectModel) -> (path: String, reason: String)? {
    do {
        try model.validate()
        return nil
    } catch {
        guard error.kind == .invalidModel, case .string(let p)? = error.detail("path"),
            case .string(let r)? = error.detail("reason")
        else { return ("?", "\(error)") }
        return (p, r)
    }
}
