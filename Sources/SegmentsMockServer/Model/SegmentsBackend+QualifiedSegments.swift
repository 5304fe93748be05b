import RealtimeSegments

/// The qualified-segments side of the backend (SPEC §9): user ids, declared audiences and the
/// per-customer audience snapshot the GraphQL endpoint answers from. See ``ProjectStore`` for the
/// user → customer and audience mapping.
extension SegmentsBackend {
    /// Gives a customer the qualified-segments user id `userId`, so that
    /// `customer(<key>: userId)` finds it.
    ///
    /// The customer is the one owning `cookie` when given (created if unknown), else the one that
    /// already has the id, else a new customer; the id moves to it from any other customer, as a
    /// link-ids call would (but this is not counted in ``linkCalls``).
    ///
    /// - Parameters:
    ///   - userId: The user id value.
    ///   - key: `fs_user_id` or `vuid`; by default the one the SDK would use for `userId`
    ///     (`QualifiedUserKey.key(for:)`: `vuid_…` ids are visitor ids).
    ///   - cookie: The cookie of the customer to give the id to.
    ///   - projectToken: The project (the first one when `nil`).
    /// - Returns: `false`, changing nothing, when the project is not served.
    @discardableResult
    public func identifyQualifiedUser(
        _ userId: String, key: QualifiedUserKey? = nil, cookie: String? = nil, projectToken: String? = nil
    ) -> Bool {
        withState { state in
            let token = projectToken ?? state.defaultProjectToken
            guard state.projects[token] != nil else { return false }
            var ids = [(key ?? QualifiedUserKey.key(for: userId)).rawValue: userId]
            if let cookie { ids[ProjectStore.cookieIdName] = cookie }
            _ = state.projects[token]!.resolve(ids, nextKey: &state.nextCustomerKey)
            return true
        }
    }

    /// Declares the audiences (segment ids) the project knows besides its rules' segments, in the
    /// order a query without `subset` lists them. A declared audience the user is not in is
    /// answered `not_qualified`; replaces the previous declaration.
    ///
    /// - Returns: `false` when the project (the first one when `nil`) is not served.
    @discardableResult
    public func setAudiences(_ audiences: [String], projectToken: String? = nil) -> Bool {
        withState { state in
            let token = projectToken ?? state.defaultProjectToken
            guard state.projects[token] != nil else { return false }
            state.projects[token]!.declaredAudiences = audiences
            return true
        }
    }

    /// The declared audiences of the project (the first one when `nil`).
    public func declaredAudiences(projectToken: String? = nil) -> [String] {
        withState { state in state.projects[projectToken ?? state.defaultProjectToken]?.declaredAudiences ?? [] }
    }

    /// The project whose API key is `apiKey` (the first such project), or `nil`: the
    /// qualified-segments endpoint names no project, its `x-api-key` does.
    func project(apiKey: String) -> MockProject? {
        withState { state in
            for token in state.projectTokens where state.projects[token]?.project.apiKey == apiKey {
                return state.projects[token]?.project
            }
            return nil
        }
    }

    /// The audience snapshot of the user `userValue` (keyed by `userKey`) in the project, or `nil`
    /// when no customer of the project has that id.
    func audiences(userKey: QualifiedUserKey, userValue: String, projectToken: String) -> CustomerAudiences? {
        withState { state in
            state.projects[projectToken]?.audiences(userKey: userKey, userValue: userValue, rules: state.rules)
        }
    }
}
