// SPDX-License-Identifier: Apache-2.0

/// The first element of `stream` that satisfies `predicate`, or nil when none came within
/// `timeout` (the stream's iteration is cancelled then). Woken by the element, not by polling:
/// the timeout only bounds a wait that fails.
public func firstElement<Elements: AsyncSequence & Sendable>(of stream: Elements, within timeout: Duration,
                                                           where predicate: @escaping @Sendable (Elements.Element) -> Bool) async -> Elements.Element?
    where Elements.Element: Sendable, Elements.Failure == Never {
    let search = Task { () -> Elements.Element? in
        for await element in stream where predicate(element) { return element }
        return nil
    }
    let timer = Task {
        try? await Task.sleep(for: timeout)
        search.cancel()
    }
    defer { timer.cancel() }
    return await search.value
}
