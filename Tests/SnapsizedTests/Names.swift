import Foundation
import SizeSelectorContract

/// Short names for the contract in these tests (spelled once, in SizeSelectorContract).
let busName = SelectorBus.name.rawValue
let objectPath = SelectorBus.path
let interfaceName = SelectorBus.interface.rawValue
