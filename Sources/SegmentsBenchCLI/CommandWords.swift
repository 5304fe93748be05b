import ArgumentParser

/// The words of a command line that name commands, checked before ArgumentParser parses it.
///
/// Two cases ArgumentParser lets through: `help` followed by a word that names no command prints
/// the top-level help and exits 0, so a script asking for a misspelt command's help passes; and a
/// first word that names no command goes to the default `suite`, which calls it an unexpected
/// argument.
struct CommandWords {
    /// A command's name and its subcommands.
    private let name: String
    private let shown: Bool
    private let subcommands: [CommandWords]

    /// The tree of `command` and its subcommands.
    init<Command: ParsableCommand>(_ command: Command.Type) {
        name = Command._commandName
        shown = Command.configuration.shouldDisplay
        subcommands = Command.configuration.subcommands.map { CommandWords(opening: $0) }
    }

    private init(opening command: any ParsableCommand.Type) {
        self.init(command)
    }

    /// `segments-bench`'s commands.
    static let segmentsBench = CommandWords(SegmentsBench.self)

    /// A usage error naming the first word that stands where a command's name goes and names none,
    /// or nil. Words are read up to the first option (`-…`) or to a command without subcommands.
    func unknownCommand(in arguments: [String]) -> ValidationError? {
        let words = arguments.first == "help" ? Array(arguments.dropFirst()) : arguments
        var command = self
        var path = [name]
        for word in words {
            if word.hasPrefix("-") || command.subcommands.isEmpty { return nil }
            guard let next = command.subcommands.first(where: { $0.name == word }) else {
                let names = command.subcommands.filter(\.shown).map(\.name).joined(separator: ", ")
                return ValidationError("\(path.joined(separator: " ")) has no command named '\(word)' (its commands: \(names))")
            }
            command = next
            path.append(word)
        }
        return nil
    }
}
