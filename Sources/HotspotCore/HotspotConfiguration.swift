// SPDX-License-Identifier: Apache-2.0
/// Every timing the core uses. The defaults are Apple's where Apple gives one.
public struct HotspotConfiguration: Hashable, Sendable {
    /// Time in authenticated before maintain goes to the chosen helper (Apple: 300 s).
    public var maintainInterval: Duration
    /// How long a helper has to answer evaluate, authenticate, maintain and logoff (Apple: 45 s).
    /// Present-ui has no deadline.
    public var commandDeadline: Duration
    /// Filter-scan-list goes out at most once per this interval per interface.
    public var filterScanListInterval: Duration
    /// How long a helper has to answer filter-scan-list. Filtering needs no network traffic, so it
    /// is short; a helper that misses it keeps its previous claims.
    public var filterScanListDeadline: Duration
    /// Consecutive missed deadlines after which a helper is marked unresponsive.
    public var unresponsiveThreshold: Int
    /// The evaluate deadline given to a helper marked unresponsive.
    public var unresponsiveEvaluateDeadline: Duration
    /// How many times an authenticate answered temporary-failure (or not answered) is sent again
    /// before the interface is disconnected. A gateway that needs a few seconds to let a new
    /// client through must not throw the user off.
    public var authenticateRetries: Int
    /// The wait before the first repeat; it doubles for each further one.
    public var authenticateRetryDelay: Duration
    /// No repeat starts later than this after the first temporary failure of a sign-in.
    public var authenticateRetryWindow: Duration
    /// Whether the daemon checks connectivity and reports when a join has its verdict
    /// (``HotspotEvent/connectivitySettled(_:)``): until then a network no helper claimed is not
    /// called signed in (it stays evaluating). False: no helper's claim means authenticated at once.
    public var awaitsConnectivityVerdict = false

    /// Creates a configuration; every parameter has the product's default.
    public init(
        maintainInterval: Duration = .seconds(300),
        commandDeadline: Duration = .seconds(45),
        filterScanListInterval: Duration = .seconds(5),
        filterScanListDeadline: Duration = .seconds(10),
        unresponsiveThreshold: Int = 3,
        unresponsiveEvaluateDeadline: Duration = .seconds(2),
        authenticateRetries: Int = 4,
        authenticateRetryDelay: Duration = .seconds(2),
        authenticateRetryWindow: Duration = .seconds(60)
    ) {
        self.maintainInterval = maintainInterval
        self.commandDeadline = commandDeadline
        self.filterScanListInterval = filterScanListInterval
        self.filterScanListDeadline = filterScanListDeadline
        self.unresponsiveThreshold = max(1, unresponsiveThreshold)
        self.unresponsiveEvaluateDeadline = unresponsiveEvaluateDeadline
        self.authenticateRetries = max(0, authenticateRetries)
        self.authenticateRetryDelay = authenticateRetryDelay
        self.authenticateRetryWindow = authenticateRetryWindow
    }
}
