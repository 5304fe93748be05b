/// One scenario option of ``BenchOptions`` that a command line can give, named as the report's
/// configuration names it. `--quick` is not one: it is the suite-wide CI mode, which every
/// scenario accepts (one with nothing to shorten runs as usual).
public enum BenchOptionName: String, Sendable, Codable, CaseIterable, Comparable {
    case callbacks
    case producers
    case rate
    case duration
    case switchRate
    case transport
    case debounce
    case seed
    case devices
    case stages
    case threshold
    case fetchDelayMs
    case spinWindowMs

    /// The command-line spelling (`--switch-rate`).
    public var flag: String {
        switch self {
        case .switchRate: "--switch-rate"
        case .fetchDelayMs: "--fetch-delay-ms"
        case .spinWindowMs: "--spin-window-ms"
        default: "--\(rawValue)"
        }
    }

    /// Declaration order, so that lists of options read the same every time.
    public static func < (lhs: Self, rhs: Self) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

extension Set where Element == BenchOptionName {
    /// The flags in declaration order, comma-separated (`--producers, --duration`).
    public var flagList: String { sorted().map(\.flag).joined(separator: ", ") }

    /// What a scenario honouring these options accepts on the command line: their flags, then
    /// `--quick` (`--producers, --duration, --quick`).
    public var acceptedFlagList: String { (sorted().map(\.flag) + ["--quick"]).joined(separator: ", ") }
}
