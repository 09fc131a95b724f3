import Testing
@testable import SnapCore
import TestSupport

@Suite("Pointer x to index (ordinal layout, defaults)")
struct OrdinalMappingTests {
    let snapper = Snapper()

    /// The seed table from the design: exact, including the tie at 51.
    @Test(
        "seed table",
        arguments: [
            (-10.0, 0), (12.0, 0), (51.0, 1), (90.0, 1), (168.0, 2), (324.0, 4), (350.0, 4)
        ])
    func seed(x: Double, expected: Int) throws {
        #expect(try snapper.index(at: x) == expected)
    }

    /// Every midpoint between two ticks is a tie and goes to the higher index (away from zero).
    @Test("ties go away from zero", arguments: 0..<4)
    func ties(lower: Int) throws {
        let midpoint = (try snapper.position(of: lower) + snapper.position(of: lower + 1)) / 2
        #expect(try snapper.index(at: midpoint) == lower + 1)
        #expect(try snapper.index(at: midpoint.nextDown) == lower)
    }

    @Test(
        "beyond the ends clamps, never discards",
        arguments: [-1e300, -336.0, 0.0, 11.999, 324.001, 336.0, 1e300])
    func clamps(x: Double) throws {
        let index = try snapper.index(at: x)
        #expect(index == (x < 168 ? 0 : 4))
    }

    @Test(
        "non-finite x is a typed error, never index 0",
        arguments: [Double.nan, .infinity, -.infinity, .signalingNaN])
    func nonFinite(x: Double) {
        #expect(throws: SnapError.nonFinite(what: .pointerPosition)) { try snapper.index(at: x) }
    }

    @Test("index -> position -> index round trips for every index")
    func roundTrip() throws {
        for index in 0..<5 {
            #expect(try snapper.index(at: snapper.position(of: index)) == index)
        }
        #expect(try snapper.position(of: 0) == 12)
        #expect(try snapper.position(of: 4) == 324)
        #expect(try snapper.position(of: 1) == 90)
    }

    @Test("position of an index beyond the list is an error")
    func positionOutOfRange() {
        #expect(throws: SnapError.indexOutOfRange(index: 5, count: 5)) { try snapper.position(of: 5) }
        #expect(throws: SnapError.indexOutOfRange(index: -1, count: 5)) { try snapper.position(of: -1) }
    }

    @Test("monotonic: moving right never selects a smaller index")
    func monotonic() throws {
        var previous = 0
        var x = -50.0
        var seen = Set<Int>()
        while x <= 400 {
            let index = try snapper.index(at: x)
            #expect(index >= previous, "x = \(x)")
            previous = index
            seen.insert(index)
            x += 0.0625
        }
        #expect(seen == [0, 1, 2, 3, 4])
    }
}

@Suite("Other size sets and geometries")
struct SizeSetMappingTests {
    @Test(
        "a single size always maps to index 0 and sits mid-track",
        arguments: [-1e9, 0, 12, 168, 336, 1e9])
    func single(x: Double) throws {
        let snapper = Snapper(sizes: try SizeSet([42]))
        #expect(try snapper.index(at: x) == 0)
        #expect(try snapper.position(of: 0) == 168)
    }

    @Test(
        "two sizes split at the middle, the middle going up",
        arguments: [
            (12.0, 0), (167.9, 0), (168.0, 1), (324.0, 1), (-5.0, 0), (400.0, 1)
        ])
    func two(x: Double, expected: Int) throws {
        let snapper = Snapper(sizes: try SizeSet([10, 90]))
        #expect(try snapper.index(at: x) == expected)
    }

    @Test(
        "ordinal spaces uneven sizes equally",
        arguments: [
            (12.0, 0), (64.0, 1), (116.0, 1), (168.0, 2), (220.0, 2), (272.0, 3), (324.0, 3)
        ])
    func ordinalUneven(x: Double, expected: Int) throws {
        let snapper = Snapper(sizes: try SizeSet([20, 30, 60, 100]), layout: .ordinal)
        #expect(try snapper.index(at: x) == expected)
    }

    /// Numeric layout with 20, 30, 60, 100 on the default track: positions 12, 51, 168, 324.
    @Test(
        "numeric places sizes by value; ties go to the larger",
        arguments: [
            (12.0, 0), (31.4, 0), (31.5, 1), (51.0, 1), (109.4, 1), (109.5, 2), (168.0, 2),
            (245.9, 2), (246.0, 3), (324.0, 3), (-10.0, 0), (999.0, 3)
        ])
    func numeric(x: Double, expected: Int) throws {
        let snapper = Snapper(sizes: try SizeSet([20, 30, 60, 100]), layout: .numeric)
        #expect(try snapper.index(at: x) == expected)
    }

    @Test("numeric positions round trip", arguments: [Layout.ordinal, .numeric])
    func numericRoundTrip(layout: Layout) throws {
        let snapper = Snapper(sizes: try SizeSet([20, 30, 60, 100, 101, 400]), layout: layout)
        for index in 0..<6 {
            #expect(try snapper.index(at: snapper.position(of: index)) == index)
        }
    }

    @Test("numeric is monotonic too")
    func numericMonotonic() throws {
        let snapper = Snapper(sizes: try SizeSet([1, 2, 3, 50, 51, 1000]), layout: .numeric)
        var previous = 0
        for step in 0...4000 {
            let index = try snapper.index(at: Double(step) * 0.1 - 20)
            #expect(index >= previous)
            previous = index
        }
        #expect(previous == 5)
    }

    @Test("a narrow geometry still snaps", arguments: [(0.0, 0), (1.0, 0), (1.5, 1), (2.0, 1), (9.0, 1)])
    func narrow(x: Double, expected: Int) throws {
        let snapper = Snapper(sizes: try SizeSet([1, 2]), track: try Track(width: 3, inset: 1))
        #expect(try snapper.index(at: x) == expected)
    }
}

@Suite("Extreme geometry")
struct ExtremeGeometryTests {
    /// Found by the property test: offset * intervals overflowed to infinity on a huge track.
    @Test(
        "a track near the largest Double still maps and draws finitely",
        arguments: [Layout.ordinal, .numeric])
    func huge(layout: Layout) throws {
        let snapper = Snapper(
            sizes: try SizeSet([Int.min, -1, 0, 1, Int.max]),
            track: try Track(width: .greatestFiniteMagnitude, inset: 0), layout: layout)
        #expect(try snapper.index(at: .greatestFiniteMagnitude) == 4)
        #expect(try snapper.index(at: 0) == 0)
        for index in 0..<5 { #expect(try snapper.position(of: index).isFinite) }
    }
}

@Suite("index(at:) against its definition")
struct OrdinalDefinitionTests {
    /// The ordinal mapping as the spec states it, with Swift's trapping conversion: index(at:)
    /// converts without the traps (`uncheckedInt`) and clamps in integers, and must give the same index.
    static func definition(_ snapper: Snapper, _ x: Double) -> Int {
        let intervals = snapper.sizes.count - 1
        if intervals == 0 { return 0 }
        let usable = snapper.track.width - 2 * snapper.track.inset
        let offset = min(max(x - snapper.track.inset, 0), usable)
        let product = offset * Double(intervals)
        let position = (product.isFinite ? product / usable : offset / usable * Double(intervals))
            .rounded(.toNearestOrAwayFromZero)
        return Int(min(max(position, 0), Double(intervals)))
    }

    @Test(
        "random tracks, counts and positions, ties and ends included",
        arguments: [1, 2, 3, 5, 8, 100, 4097])
    func matchesDefinition(count: Int) throws {
        var generator = SeededRandom.replayable("index(at:) against its definition, \(count) sizes")
        let sizes = try SizeSet(Array(0..<count))
        let tracks = [
            try Track(), try Track(width: 3, inset: 1), try Track(width: 1e-300, inset: 0),
            try Track(width: .greatestFiniteMagnitude, inset: 0), try Track(width: 1e6, inset: 123.25)
        ]
        for track in tracks {
            let snapper = Snapper(sizes: sizes, track: track)
            var xs: [Double] = [
                -.greatestFiniteMagnitude, -1, 0, -0.0, track.inset, track.width - track.inset,
                track.width,
                .greatestFiniteMagnitude, .leastNonzeroMagnitude
            ]
            for index in 0..<min(count, 64) {
                let tick = try snapper.position(of: index)
                xs += [tick, tick.nextUp, tick.nextDown]
                if index > 0 {
                    let midpoint = (tick + (try snapper.position(of: index - 1))) / 2
                    xs += [midpoint, midpoint.nextUp, midpoint.nextDown]
                }
            }
            for _ in 0..<2000 {
                let x = track.inset + Double.random(in: -0.5...1.5, using: &generator) * track.usable
                if x.isFinite { xs.append(x) }
            }
            for x in xs where x.isFinite {  // a midpoint on the largest track can overflow
                #expect(
                    try snapper.index(at: x) == Self.definition(snapper, x),
                    "x = \(x), count \(count), track \(track), seed \(generator.seed)")
            }
        }
    }
}

@Suite("Geometry and size-list validation")
struct ValidationTests {
    @Test(
        "invalid tracks are refused",
        arguments: [
            (24.0, 12.0), (10.0, 12.0), (0.0, 0.0), (Double.nan, 12.0), (336.0, .nan),
            (.infinity, 12.0), (336.0, -1.0), (-336.0, 12.0)
        ])
    func invalidTrack(width: Double, inset: Double) {
        #expect(throws: SnapError.self) { try Track(width: width, inset: inset) }
    }

    @Test("default track is 336 wide with 312 usable")
    func defaults() {
        #expect(Track.standard.width == 336)
        #expect(Track.standard.inset == 12)
        #expect(Track.standard.usable == 312)
    }

    @Test("size lists must be non-empty and strictly increasing")
    func sizes() throws {
        #expect(throws: SnapError.emptySizes) { try SizeSet([]) }
        #expect(throws: SnapError.unsortedSizes(position: 2)) { try SizeSet([20, 40, 40]) }
        #expect(throws: SnapError.unsortedSizes(position: 1)) { try SizeSet([60, 20]) }
        #expect(try SizeSet([-5, 0, 7]).sizes == [-5, 0, 7])
    }

    @Test(
        "clamp moves an index into the list and says whether it had to",
        arguments: [
            (-3, 0, true), (0, 0, false), (2, 2, false), (4, 4, false), (5, 4, true), (Int.max, 4, true),
            (Int.min, 0, true)
        ])
    func clamp(index: Int, expected: Int, clamped: Bool) {
        let result = SizeSet.standard.clamp(index)
        #expect(result.index == expected && result.clamped == clamped)
    }
}

@Suite("Values to sizes and index values")
struct CoreValueTests {
    @Test(
        "nearest allowed size; ties to the larger; ends clamp",
        arguments: [
            (57, 2), (50, 2), (49, 1), (30, 1), (29, 0), (-1000, 0), (20, 0), (100, 4), (1000, 4),
            (90, 4), (89, 3),
            (Int.max, 4), (Int.min, 0)
        ])
    func nearest(value: Int, expected: Int) {
        #expect(SizeSet.standard.index(nearestTo: value) == expected)
    }

    @Test("decimal values, including non-finite ones")
    func decimals() throws {
        #expect(try SizeSet.standard.index(nearestTo: 57.3) == 2)
        #expect(try SizeSet.standard.index(nearestTo: 49.999) == 1)
        #expect(throws: SnapError.self) { try SizeSet.standard.index(nearestTo: Double.nan) }
        #expect(throws: SnapError.self) { try SizeSet.standard.index(nearestTo: -Double.infinity) }
    }

    @Test(
        "an index value rounds ties away from zero and clamps",
        arguments: [
            (3.6, 4), (3.5, 4), (3.49, 3), (0.5, 1), (0.49, 0), (-0.5, 0), (-7.0, 0), (9.0, 4),
            (1e300, 4), (2.0, 2)
        ])
    func indexValue(value: Double, expected: Int) throws {
        #expect(try Snapper().index(roundingIndexValue: value) == expected)
    }

}
