import Foundation

/// Whether paths `a` and `b` name one file or directory: the same file when both exist (whatever
/// the case, links or mounts that lead there), else the same path once resolved.
func namesTheSameFile(_ a: String, _ b: String) -> Bool {
    var first = stat()
    var second = stat()
    if stat(a, &first) == 0, stat(b, &second) == 0 {
        return first.st_dev == second.st_dev && first.st_ino == second.st_ino
    }
    func resolved(_ path: String) -> String { URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path }
    return resolved(a) == resolved(b)
}
