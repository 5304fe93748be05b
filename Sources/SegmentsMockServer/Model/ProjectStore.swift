/// The customers of one project and the indexes that find them by id.
///
/// Resolution rule (how a `customer_ids` dictionary finds its customer): the first hard id (by
/// id name) that belongs to a customer wins; else the cookie's customer; else a new customer.
/// Then every id of the dictionary is moved to that customer: an id can belong to one customer
/// only, so a cookie or hard id owned by another customer leaves it (that customer keeps its
/// events), and a hard id name the customer already had gets the new value.
///
/// Not thread-safe: a value owned by ``BackendState``.
struct ProjectStore: Sendable {
    /// A hard (non-cookie) id: name and value.
    struct ExternalId: Hashable, Sendable {
        var name: String
        var value: String
    }

    /// The customer id name of the anonymous id.
    static let cookieIdName = "cookie"

    let project: MockProject
    var customers: [UInt64: CustomerRecord] = [:]
    var byCookie: [String: UInt64] = [:]
    var byExternalId: [ExternalId: UInt64] = [:]
    /// The project's declared qualified-segments audiences (segment ids), in server order; see
    /// ``audiences(of:rules:)``.
    var declaredAudiences: [String] = []

    init(project: MockProject) { self.project = project }

    /// The key of the customer with `cookie`, if any. O(1): the harness resolves cookies on its hot path.
    func key(forCookie cookie: String) -> UInt64? { byCookie[cookie] }

    /// The key of the customer with the hard id `name` = `value`, if any.
    func key(forExternalId name: String, value: String) -> UInt64? {
        byExternalId[ExternalId(name: name, value: value)]
    }

    /// Finds or creates the customer of `customerIds` and links every id in it to that customer.
    /// A new customer gets the key `nextKey`, which is then incremented.
    mutating func resolve(_ customerIds: [String: String], nextKey: inout UInt64) -> UInt64 {
        let cookie = customerIds[Self.cookieIdName]
        let externalIds = customerIds.filter { $0.key != Self.cookieIdName }.sorted { $0.key < $1.key }
        var found: UInt64?
        for (name, value) in externalIds where found == nil {
            found = key(forExternalId: name, value: value)
        }
        if found == nil, let cookie { found = byCookie[cookie] }
        let key: UInt64
        if let found {
            key = found
        } else {
            key = nextKey
            nextKey += 1
            customers[key] = CustomerRecord(key: key)
        }
        if let cookie { link(cookie: cookie, to: key) }
        for (name, value) in externalIds { link(externalId: ExternalId(name: name, value: value), to: key) }
        return key
    }

    /// Finds or creates the customer with `cookie`.
    mutating func resolve(cookie: String, nextKey: inout UInt64) -> UInt64 {
        resolve([Self.cookieIdName: cookie], nextKey: &nextKey)
    }

    private mutating func link(cookie: String, to key: UInt64) {
        let owner = byCookie[cookie]
        guard owner != key else { return }
        if let owner { customers[owner]?.cookies.removeAll { $0 == cookie } }
        byCookie[cookie] = key
        customers[key]?.cookies.append(cookie)
    }

    private mutating func link(externalId id: ExternalId, to key: UInt64) {
        let owner = byExternalId[id]
        guard owner != key else { return }
        if let owner { customers[owner]?.externalIds[id.name] = nil }
        if let previous = customers[key]?.externalIds[id.name] {
            byExternalId[ExternalId(name: id.name, value: previous)] = nil
        }
        byExternalId[id] = key
        customers[key]?.externalIds[id.name] = id.value
    }
}
