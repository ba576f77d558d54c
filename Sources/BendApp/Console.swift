import Glibc

/// Writes a line to standard error (messages, notes; standard output is for results).
func printErr(_ message: String) {
    var line = message
    line += "\n"
    _ = line.withCString { write(2, $0, strlen($0)) }
}

/// Parses with `OptionParser`, turning its errors into `AppError.usage`.
func parse(_ arguments: [String], specs: [OptionSpec]) throws -> (options: [(String, String?)], operands: [String]) {
    do {
        return try OptionParser.parse(arguments, specs: specs)
    } catch let e as UsageError {
        throw AppError.usage(e.message)
    }
}
