import Testing
@testable import HotspotCore
