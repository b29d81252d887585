// SPDX-License-Identifier: Apache-2.0
import HotspotCore
import ServiceLifecycle

/// The sign-in forms the built-in helpers leave for the user, as a service: each change reaches
/// the engine, which publishes `SignInForm`.
final class SignInFormService: Service {
    let changes: AsyncStream<String>
    let engine: Engine

    init(changes: AsyncStream<String>, engine: Engine) {
        self.changes = changes
        self.engine = engine
    }

    func run() async throws {
        let (changes, engine) = (self.changes, self.engine)
        await cancelWhenGracefulShutdown {
            for await name in changes { await engine.refreshSignInForm(InterfaceID(name)) }
        }
    }
}
