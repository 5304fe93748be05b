/// The median of `values`: the middle element once sorted (the upper one of the two middles for an
/// even count). `values` must not be empty.
func median(_ values: [Double]) -> Double {
    precondition(!values.isEmpty, "median of no values")
    return values.sorted()[values.count / 2]
}
