/// "Did you mean": the known word closest to a mistyped one, as git, cargo and systemctl offer.
///
/// Closeness is the optimal-string-alignment distance (insertions, deletions, substitutions and
/// swaps of two neighbouring letters each count 1), so `stauts` is one edit from `status`. Only a
/// close match is offered (at most 2 edits, and fewer than half the word), and none when two
/// candidates are equally close, so a suggestion is never a guess between two.
public func suggestion(for word: String, among candidates: [String]) -> String? {
    let limit = min(2, max(1, (word.count - 1) / 2))
    let scored = candidates.map { (candidate: $0, distance: editDistance(word.lowercased(), $0)) }
        .filter { $0.distance <= limit }
    guard let best = scored.min(by: { $0.distance < $1.distance }),
        scored.filter({ $0.distance == best.distance }).count == 1
    else { return nil }
    return best.candidate
}

public func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a), b = Array(b)
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    // Three rows of the usual table: the one before last (for swaps), the last, the current.
    var before = [Int](repeating: 0, count: b.count + 1)
    var last = Array(0...b.count)
    var current = [Int](repeating: 0, count: b.count + 1)
    for i in 1...a.count {
        current[0] = i
        for j in 1...b.count {
            let cost = a[i - 1] == b[j - 1] ? 0 : 1
            current[j] = min(last[j] + 1, current[j - 1] + 1, last[j - 1] + cost)
            if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                current[j] = min(current[j], before[j - 2] + 1)
            }
        }
        (before, last, current) = (last, current, before)
    }
    return last[b.count]
}
