// SPDX-License-Identifier: Apache-2.0
/// One entry of the `Helpers` property.
struct HelperSummary: Sendable, Equatable {
    var identifier: String
    var displayName: String
    var purpose: String
    var responsive: Bool
    var route: CommandRoute
}
