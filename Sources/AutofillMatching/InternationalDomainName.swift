internal import CIDN2

/// Unicode domain labels to their ASCII ("xn--") form with libidn2 (UTS #46 processing).
enum InternationalDomainName {
    /// The ASCII form of `label`: non-transitional processing, falling back to transitional.
    /// Also checks ASCII "xn--" labels (they must decode and round-trip). nil when invalid.
    static func toASCII(_ label: some Collection<UInt8>) -> [UInt8]? {
        var text = Array(label)
        text.append(0)
        return text.withUnsafeBufferPointer { buffer -> [UInt8]? in
            buffer.withMemoryRebound(to: CChar.self) { chars -> [UInt8]? in
                for flags in [IDN2_NONTRANSITIONAL, IDN2_TRANSITIONAL] {
                    var output: UnsafeMutablePointer<CChar>?
                    let status = idn2_to_ascii_8z(chars.baseAddress, &output, Int32(flags.rawValue))
                    defer { idn2_free(output) }
                    if status == Int32(IDN2_OK.rawValue), let output {
                        return Array(String(cString: output).utf8)
                    }
                }
                return nil
            }
        }
    }
}
