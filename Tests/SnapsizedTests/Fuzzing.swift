import Foundation
import Testing
import DBusKit
import SizeSelectorContract
import SnapCore
import TestSupport

/// One fuzz call: what is sent, and what the model does with it if the daemon accepts it.
struct FuzzCall {
    var path = objectPath
    var interface: String = interfaceName
    var member: String
    var arguments: [DBusValue] = []
    /// The transition to replay on success; nil for calls that never change the selection.
    var replay: ((inout Selection, PreviewOwner) throws(SnapError) -> Void)?
}

enum Fuzz {
    static let xs: [Double] = [
        .nan, .infinity, -.infinity, 1e308, -1e308, 0, 12, 51, 90, 168, 250, 324, 336, -10,
        .leastNonzeroMagnitude,
        .greatestFiniteMagnitude, -0.0, 129.0, 207.0
    ]

    /// A mix of valid calls and malformed ones.
    static func call(_ random: inout SeededRandom) -> FuzzCall {
        let x = xs.randomElement(using: &random)!
        let choice = Int.random(in: 0..<26, using: &random)
        switch choice {
        case 0: return FuzzCall(member: "Increment") { s, _ throws(SnapError) in _ = try s.step(by: 1) }
        case 1: return FuzzCall(member: "Decrement") { s, _ throws(SnapError) in _ = try s.step(by: -1) }
        case 2:
            let steps = [Int32.max, Int32.min, 0, 1, -1, 3, -4, 1000].randomElement(using: &random)!
            return FuzzCall(member: "StepBy", arguments: [.int32(steps)]) { s, _ throws(SnapError) in
                _ = try s.step(by: Int(steps))
            }
        case 3:
            let index = [0, 1, 4, 5, UInt32.max, 2, 3].randomElement(using: &random)!
            return FuzzCall(member: "SetIndex", arguments: [.uint32(index)]) { s, _ throws(SnapError) in
                _ = try s.set(index: Int(index))
            }
        case 4:
            let size = [Int32.min, -5, 0, 30, 57, 70, 100, 1000, Int32.max].randomElement(
                using: &random)!
            return FuzzCall(member: "SetSize", arguments: [.int32(size)]) { s, _ throws(SnapError) in
                _ = try s.set(size: Int(size))
            }
        case 5, 6:
            return FuzzCall(member: "Preview", arguments: [.double(x)]) { s, o throws(SnapError) in
                _ = try s.preview(x: x, by: o)
            }
        case 7:
            return FuzzCall(member: "Commit", arguments: [.double(x)]) { s, o throws(SnapError) in
                _ = try s.commit(x: x, by: o)
            }
        case 8:
            return FuzzCall(member: "Cancel") { s, o throws(SnapError) in _ = try s.cancel(by: o) }
        // Wrong signatures and types.
        case 9: return FuzzCall(member: "SetIndex", arguments: [.int32(-1)])
        case 10: return FuzzCall(member: "SetIndex", arguments: [.string("two")])
        case 11: return FuzzCall(member: "Preview", arguments: [.int32(90)])
        case 12: return FuzzCall(member: "Preview", arguments: [.double(x), .double(x)])
        case 13: return FuzzCall(member: "Increment", arguments: [.boolean(true)])
        case 14: return FuzzCall(member: "Commit", arguments: [])
        case 15: return FuzzCall(member: "StepBy", arguments: [.int64(Int64.max)])
        case 16:
            return FuzzCall(member: "SetSize", arguments: [.array(elementSignature: "i", [.int32(1)])])
        // Unknown members, interfaces, properties, paths.
        case 17:
            return FuzzCall(
                member: ["Frobnicate", "increment", "SetIndexes"].randomElement(using: &random)!)
        case 18: return FuzzCall(interface: "org.snapsize.Nope1", member: "Increment")
        case 19: return FuzzCall(path: objectPath.appending("child")!, member: "Increment")
        case 20: return FuzzCall(path: ObjectPath(rawValue: "/")!, member: "Increment")
        case 21:
            return FuzzCall(
                interface: "org.freedesktop.DBus.Properties", member: "Get",
                arguments: [
                    .string(interfaceName),
                    .string(["Nope", "selectedindex", "", "Sizes"].randomElement(using: &random)!)
                ])
        case 22:
            return FuzzCall(
                interface: "org.freedesktop.DBus.Properties", member: "Set",
                arguments: [.string(interfaceName), .string("SelectedIndex"), .variant(.uint32(1))])
        case 23:
            return FuzzCall(
                interface: "org.freedesktop.DBus.Properties", member: "Set",
                arguments: [.string(interfaceName), .string("Label"), .variant(.int32(1))])
        case 24:
            return FuzzCall(
                interface: "org.freedesktop.DBus.Properties", member: "GetAll",
                arguments: [
                    .string(["org.snapsize.Nope", interfaceName, ""].randomElement(using: &random)!)
                ])
        default:
            return FuzzCall(
                interface: "org.freedesktop.DBus.Introspectable", member: "Introspect",
                arguments: random.next() % 2 == 0 ? [] : [.string("x")])
        }
    }
}

@Suite("Reliability: fuzzing the D-Bus surface", .serialized)
struct FuzzTests {
    @Test(
        "mixed valid and malformed calls: the daemon survives, every call is answered, state equals the replay"
    )
    func fuzz() throws {
        let count = stressing ? 50_000 : 10_000
        var random = SeededRandom.replayable("fuzz")
        let seed = random.seed
        let fixture = try DaemonFixture()
        let client = try fixture.client()
        let owner = PreviewOwner(client.connection.uniqueName)
        var model = try Selection(committed: 2)
        var accepted = 0, refused = 0
        var errorNames: [String: Int] = [:]
        for number in 0..<count {
            let call = Fuzz.call(&random)
            do {
                _ = try client.connection.call(
                    destination: busName, path: call.path, interface: call.interface,
                    member: call.member, arguments: call.arguments, timeoutMilliseconds: 5000)
                accepted += 1
                if let replay = call.replay {
                    do {
                        try replay(&model, owner)
                    } catch {
                        Issue.record(
                            "call \(number) \(call.member)\(call.arguments) was accepted but SnapCore refuses it: \(error) (seed \(seed))"
                        )
                    }
                }
            } catch {
                refused += 1
                errorNames[error.name.rawValue, default: 0] += 1
                // No call may go unanswered (NoReply) or kill the daemon (Disconnected/ServiceUnknown).
                #expect(
                    ![ErrorName.noReply, .timeout, .disconnected, .serviceUnknown].contains(error.name),
                    "call \(number) \(call.member): \(error) (seed \(seed))")
                if let replay = call.replay {
                    var copy = model
                    do {
                        try replay(&copy, owner)
                        Issue.record(
                            "call \(number) \(call.member)\(call.arguments) was refused (\(error)) but SnapCore accepts it (seed \(seed))"
                        )
                    } catch {}
                }
            }
            if fixture.daemon?.isRunning != true {
                Issue.record(
                    "the daemon died at call \(number) (seed \(seed)); stderr: \(fixture.daemon?.stderr ?? "")"
                )
                break
            }
        }
        #expect(try client.property("SelectedIndex") == .uint32(UInt32(model.committed)))
        #expect(try client.property("ShownIndex") == .uint32(UInt32(model.shown)))
        #expect(try client.property("Previewing") == .boolean(model.isPreviewing))
        #expect(accepted > count / 5 && refused > count / 5, "accepted \(accepted), refused \(refused)")
        // Only named errors, all of them documented ones.
        let documented: Set<String> = [
            ErrorName.previewActive.rawValue, ErrorName.outOfRange.rawValue,
            "org.freedesktop.DBus.Error.InvalidArgs", "org.freedesktop.DBus.Error.UnknownMethod",
            "org.freedesktop.DBus.Error.UnknownInterface", "org.freedesktop.DBus.Error.UnknownProperty",
            "org.freedesktop.DBus.Error.UnknownObject", "org.freedesktop.DBus.Error.PropertyReadOnly"
        ]
        #expect(Set(errorNames.keys).isSubset(of: documented), "errors: \(errorNames)")
        print(
            "fuzz: \(count) calls (seed \(seed)): \(accepted) accepted, \(refused) refused: \(errorNames.sorted { $0.key < $1.key })"
        )
    }
}
