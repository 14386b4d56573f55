import Model
import TestSupport
import Testing

@testable import Server

/// `DifferenceValues.idOrder`: the positions of a controller's ids in ascending id order,
/// by a slot per number when the numbers are dense and by a sort otherwise; both must give
/// the order a plain sort gives.
@Suite struct DifferenceIDOrderTests {
    static func sorted(_ ids: [ObjectID]) -> [Int] {
        ids.indices.sorted { (ids[$0].number, $0) < (ids[$1].number, $1) }
    }

    static func ids(_ numbers: [Int64], entity: String = "Item") -> [ObjectID] {
        numbers.map { ObjectID(entity: entity, number: $0) }
    }

    @Test(arguments: [
        shuffled([Int64](1...2000), seed: 7), // dense: one slot each
        shuffled((0..<2000).map { Int64($0) * 1000 + 5 }, seed: 8), // sparse: sorted
        [3, 9, 4, 3, 7, 9, 1], // a number twice: the sort keeps both, first position first
        [50, 49, 48],
    ])
    func ordersAsASortDoes(numbers: [Int64]) throws {
        let ids = Self.ids(numbers)
        #expect(try #require(DifferenceValues.idOrder(ids)) == Self.sorted(ids))
    }

    @Test func refusesMixedEntitiesAndNegativeNumbers() {
        #expect(DifferenceValues.idOrder(Self.ids([1, 2]) + Self.ids([3], entity: "Group")) == nil)
        #expect(DifferenceValues.idOrder(Self.ids([1, -2])) == nil)
    }
}

private func shuffled(_ numbers: [Int64], seed: UInt64) -> [Int64] {
    var random = SplitMix64(seed: seed)
    return numbers.shuffled(using: &random)
}
