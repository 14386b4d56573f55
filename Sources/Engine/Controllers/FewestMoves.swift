/// The longest increasing subsequence of `values` that comes first in index order among
/// all the longest ones (compare the chosen index lists lexicographically). Changed rows
/// that keep their place are the LIS of their old positions taken in new order; choosing
/// the earliest makes the row later in new order the one that moves (protocol.md §10.4).
/// O(m log m). `values` must be distinct.
func earliestLongestIncreasing(_ values: [Int]) -> [Int] {
    let m = values.count
    guard m > 0 else { return [] }
    // lengthFrom[i]: the longest increasing run starting at i, by patience sorting from the
    // right on negated values.
    var lengthFrom = [Int](repeating: 0, count: m)
    var tails: [Int] = []
    for i in stride(from: m - 1, through: 0, by: -1) {
        let x = -values[i]
        var lo = 0
        var hi = tails.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if tails[mid] < x { lo = mid + 1 } else { hi = mid }
        }
        if lo == tails.count { tails.append(x) } else { tails[lo] = x }
        lengthFrom[i] = lo + 1
    }
    let best = tails.count
    var levels = [[Int]](repeating: [], count: best + 1)
    for i in 0..<m { levels[lengthFrom[i]].append(i) }
    // Within one level values fall as indices rise, so the first index after the current
    // one is the only candidate that can continue the run.
    var chosen = [levels[best][0]]
    for length in stride(from: best - 1, through: 1, by: -1) {
        let cur = chosen[chosen.count - 1]
        let level = levels[length]
        var lo = 0
        var hi = level.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if level[mid] <= cur { lo = mid + 1 } else { hi = mid }
        }
        chosen.append(level[lo])
    }
    return chosen
}
