import Foundation

/// What one callgrind output file says: the instructions executed while collection was on, and how
/// often each function called each other one from collected code.
///
/// Reads the format callgrind writes (`events:`, `fn=`, `cfn=`, `calls=`, `totals:`/`summary:`),
/// with or without string compression (`(id) name` defines an id, `(id)` refers to it).
struct CallgrindProfile: Equatable {
    /// Instructions executed (the `Ir` event) while collection was on, every thread together.
    var instructions: Int
    /// Calls made from collected code, by caller and callee name.
    var calls: [Edge: Int]

    struct Edge: Hashable {
        var caller: String
        var callee: String
    }

    /// Calls to any function in `names` from a function outside `names` and `alsoNotFrom`: one
    /// logical operation that enters through several of them (`swift_bridgeObjectRetain` jumping to
    /// `swift_retain`) counts once. Callgrind's counts on such runtime-internal edges also take in
    /// calls made while collection was off, so they are never read.
    func calls(to names: Set<String>, notFrom alsoNotFrom: Set<String> = []) -> Int {
        calls.reduce(0) { total, entry in
            let (edge, count) = entry
            guard names.contains(edge.callee), !names.contains(edge.caller), !alsoNotFrom.contains(edge.caller) else { return total }
            return total + count
        }
    }

    enum ParseError: Error, CustomStringConvertible {
        case noInstructions(String)
        var description: String {
            switch self {
            case .noInstructions(let detail): "no instruction count in the callgrind output: \(detail)"
            }
        }
    }

    /// Parses one output file (several, with `--separate-threads=yes`, are added with `+`).
    init(parsing text: String) throws {
        var events: [String] = []
        var totals: [Int]?
        var names: [Int: String] = [:]
        var calls: [Edge: Int] = [:]
        var caller = ""
        var callee: String?
        var expectCallCount = false
        var skipNextCost = false
        var costSum = 0
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            if expectCallCount {
                expectCallCount = false
                if line.hasPrefix("calls=") {
                    let count = line.dropFirst("calls=".count).split(separator: " ").first.flatMap { Int($0) } ?? 0
                    if let callee { calls[Edge(caller: caller, callee: callee), default: 0] += count }
                    // The next line is the inclusive cost of the call: not a cost of this function.
                    skipNextCost = true
                    continue
                }
            }
            if line.hasPrefix("events:") {
                events = line.dropFirst("events:".count).split(separator: " ").map(String.init)
            } else if line.hasPrefix("totals:") || line.hasPrefix("summary:") {
                let values = line.split(separator: ":", maxSplits: 1)[1].split(separator: " ").compactMap { Int($0) }
                totals = values
            } else if line.hasPrefix("cfn=") {
                callee = Self.resolve(String(line.dropFirst("cfn=".count)), names: &names)
                expectCallCount = true
            } else if line.hasPrefix("fn=") {
                caller = Self.resolve(String(line.dropFirst("fn=".count)), names: &names)
            } else if let first = line.first, first.isNumber || first == "+" || first == "-" || first == "*" {
                // A cost line: position(s) then event counts; Ir is the first event.
                let fields = line.split(separator: " ")
                if skipNextCost {
                    skipNextCost = false
                } else if fields.count >= 2, let ir = Int(fields[1]) {
                    costSum += ir
                }
            }
        }
        let irIndex = events.firstIndex(of: "Ir") ?? 0
        if let totals, totals.indices.contains(irIndex) {
            instructions = totals[irIndex]
        } else if costSum > 0 || !calls.isEmpty {
            instructions = costSum
        } else {
            throw ParseError.noInstructions("\(text.prefix(200))")
        }
        self.calls = calls
    }

    /// Adds another profile (another thread's part of the same run).
    static func + (left: CallgrindProfile, right: CallgrindProfile) -> CallgrindProfile {
        CallgrindProfile(instructions: left.instructions + right.instructions, calls: left.calls.merging(right.calls, uniquingKeysWith: +))
    }

    init(instructions: Int, calls: [Edge: Int]) {
        self.instructions = instructions
        self.calls = calls
    }

    /// `(12) name` defines id 12 as `name`; `(12)` refers to it; a plain name stands for itself.
    private static func resolve(_ field: String, names: inout [Int: String]) -> String {
        guard field.hasPrefix("("), let close = field.firstIndex(of: ")"),
              let id = Int(field[field.index(after: field.startIndex)..<close])
        else { return field }
        let rest = field[field.index(after: close)...].trimmingCharacters(in: .whitespaces)
        if rest.isEmpty { return names[id] ?? field }
        names[id] = rest
        return rest
    }
}
